// Every core busy (issue 51, item 1): each family's Fashion-MNIST-sized run at 1 and at 2 threads
// through the engine's Runner, on the host's training clock (checkpoint evaluations excluded).
// For each: training wall time at 1 and 2 threads, the speed-up, and the cores kept busy at 2
// threads — the process's CPU time while the run trained over that wall time (one run at a time,
// so the process's CPU is the run's) — and whether the final metrics are the same at both thread
// counts (the families promise results independent of the thread count).
//
//   build/bin/core_use [--families bpls,linear,adam,lbfgs,lsq,b2ld,dsgd] [--train-limit N]
//                      [--repeats R] [--data DIR] [--quick]
//
// Prints one line per family and thread count, then a Markdown table (bench/README.md, "Issue 51,
// item 1") and "RESULT family=… speedup=… busy=…" lines that bench/run_all.sh collects. Each
// configuration is run --repeats times per thread count, alternating 1, 2, 1, 2 …, and the medians
// are reported (a noisy 2-core machine: one slow run must not decide a ratio).
#include <support/BenchArguments.h>
#include <support/BenchData.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>
#include <support/Spread.h>

#include <QStringList>

#include <cmath>
#include <cstdio>
#include <vector>

using tb::bench::BenchArguments;

namespace {

struct Family {
    const char* name;       // the --families key
    const char* algorithm;  // its algorithm id
    QVariantMap params;     // Fashion-MNIST-sized work of a few seconds
    const char* serial;     // what cannot be parallel, when something cannot ("" otherwise)
};

QList<Family> families()
{
    const QVariantList hidden{50};
    return {
        {"bpls", "bpls.classify", {{"hidden", hidden}}, ""},
        {"linear", "linear.ridge", {{"gram_ridge", 1.0}}, ""},
        {"adam", "gradient.adam",
         {{"lr", 0.001}, {"batch_size", 128}, {"epochs", 2}, {"hidden", hidden}, {"activation", "sigmoid"},
          {"init", "glorot"}},
         ""},
        {"lbfgs", "gradient.lbfgs", {{"iterations", 30}, {"hidden", hidden}, {"activation", "sigmoid"}, {"init", "glorot"}}, ""},
        {"lsq", "lsq.stagewise", {{"stages", 3}, {"block_size", 1024}}, ""},
        {"b2ld", "bld.b2ld", {{"hidden", hidden}, {"sweeps", 2}}, ""},
        {"dsgd", "dsgd.preconditioned", {{"epochs", 0.5}, {"batch_size", 7500}, {"precision", "mixed"}}, ""},
        // LIBLINEAR's solvers are single-threaded: the whole fit is serial (minutes on all 60000
        // rows: not in the default list).
        {"liblinear", "liblinear.classify", {}, "LIBLINEAR's solver is single-threaded: the whole fit"},
    };
}

double median(std::vector<double> v)
{
    return v.empty() ? 0.0 : tb::bench::Spread::of(v).median;
}

// The same number, NaN included (a metric the task does not have is NaN in both runs).
bool same(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

} // namespace

int main(int argc, char** argv)
{
    BenchArguments args("core_use",
                        "Each family at 1 and 2 threads on Fashion-MNIST: training time, speed-up, cores busy, "
                        "and whether the results are the same at both thread counts.");
    args.add("families", "LIST", "comma-separated families (bpls, linear, adam, lbfgs, lsq, b2ld, dsgd, liblinear)",
             "bpls,linear,adam,lbfgs,lsq,b2ld,dsgd", "bpls,linear,adam");
    args.add("repeats", "R", "runs per family and thread count, alternating", "3", "1");
    args.add(BenchArguments::Common::TrainLimit, "0", "6000");
    args.add(BenchArguments::Common::Data);
    return tb::bench::benchMain(argc, argv, args, {}, [&] {
        const QStringList wanted = args.text("families").split(QLatin1Char(','), Qt::SkipEmptyParts);
        const int repeats = int(args.integer("repeats", 1, 100));
        const tb::bench::BenchRunner runner;
        const auto data = std::make_shared<const tb::data::DatasetPair>(
            tb::bench::BenchData::load(tb::bench::BenchData::fashionMnistSpec(args)));
        std::printf("data: %lld train, %lld test, %lld inputs\n", (long long)data->train.rows(),
                    (long long)data->test.rows(), (long long)data->train.inputs());
        QStringList table{QStringLiteral("| family (algorithm) | 1 thread, s | 2 threads, s | speed-up | cores busy at 2 | "
                                         "same results | what is serial |"),
                          QStringLiteral("|---|---|---|---|---|---|---|")};
        for (const Family& f : families()) {
            if (!wanted.contains(QLatin1String(f.name)))
                continue;
            runner.require(QLatin1String(f.algorithm));
            std::vector<double> wall[2], cpu[2];
            tb::RunResult last[2];
            for (int r = 0; r < repeats; ++r)
                for (int t = 0; t < 2; ++t) {
                    tb::RunJob job = tb::bench::BenchRunner::job(QLatin1String(f.algorithm), f.params, data, 1, t + 1);
                    job.datasetDescription = "fashion-mnist";
                    const tb::bench::BenchRun run = runner.run(job);
                    run.requireFinished(QLatin1String(f.algorithm));
                    wall[t].push_back(run.result.last.trainTime);
                    cpu[t].push_back(run.trainCpuSeconds);
                    last[t] = run.result;
                    std::printf("%-10s %d thread(s): %.3f s training, %.3f s CPU (%.2f cores), test %.2f %%\n", f.name,
                                t + 1, run.result.last.trainTime, run.trainCpuSeconds,
                                run.trainCpuSeconds / std::max(run.result.last.trainTime, 1e-9),
                                100 * run.result.last.testAccuracy);
                }
            const double w1 = median(wall[0]), w2 = median(wall[1]);
            std::vector<double> busy;
            for (std::size_t i = 0; i < wall[1].size(); ++i)
                busy.push_back(cpu[1][i] / std::max(wall[1][i], 1e-9));
            const double b2 = median(busy);
            const bool identical = same(last[0].last.testAccuracy, last[1].last.testAccuracy) &&
                                   same(last[0].last.trainAccuracy, last[1].last.trainAccuracy) &&
                                   same(last[0].last.loss, last[1].last.loss);
            table << QStringLiteral("| %1 (`%2`) | %3 | %4 | %5× | %6 | %7 | %8 |")
                         .arg(QLatin1String(f.name), QLatin1String(f.algorithm))
                         .arg(w1, 0, 'f', 2)
                         .arg(w2, 0, 'f', 2)
                         .arg(w1 / std::max(w2, 1e-9), 0, 'f', 2)
                         .arg(b2, 0, 'f', 2)
                         .arg(identical ? QStringLiteral("yes") : QStringLiteral("**no**"))
                         .arg(*f.serial ? QString::fromUtf8(f.serial) : QStringLiteral("—"));
            std::printf("RESULT family=%s algorithm=%s wall1=%.3f wall2=%.3f speedup=%.2f busy=%.2f same=%s\n", f.name,
                        f.algorithm, w1, w2, w1 / std::max(w2, 1e-9), b2, identical ? "yes" : "no");
        }
        std::printf("\n%s\n", qPrintable(table.join(QLatin1Char('\n'))));
        return 0;
    });
}
