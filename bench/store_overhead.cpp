/// store_overhead — what logging to the run store costs a training loop.
///
///   store_overhead [--runs 1000] [--checkpoints 50] [--train-ms 1] [--db FILE] [--quick]
///
/// Simulates `runs` training runs of `checkpoints` checkpoints each; between checkpoints the
/// training thread computes for `train-ms` milliseconds (a busy loop of floating-point work, timed
/// by the clock). Each run is logged as the runner does: createRun(), one appendMetric() per
/// checkpoint, finishRun(). Reported, as shares of the pure training time:
///  - caller overhead: wall time the training thread spends inside RunStore calls (what slows
///    training down; target < 2 %);
///  - writer CPU: CPU time used by every other thread of the process, i.e. the writer thread and
///    SQLite (what it costs the machine, on another core);
///  - end to end: (total wall time incl. the final flush − training time) / training time.
/// Without --db a temporary file is used and removed.

#include <support/BenchArguments.h>
#include <support/BenchMain.h>
#include <support/CpuTime.h>

#include <engine/ExperimentKind.h>
#include <store/RunStore.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTextStream>

#include <chrono>
#include <cstdio>
#include <ctime>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d)
{
    return std::chrono::duration<double>(d).count();
}

/// Busy floating-point work for @p ms milliseconds; returns a value so it cannot be optimised away.
double train(double ms, double state)
{
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double, std::milli>(ms));
    do {
        for (int i = 0; i < 256; ++i)
            state = state * 0.999999 + 1e-7 * (i & 7);
    } while (Clock::now() < until);
    return state;
}

} // namespace

int main(int argc, char** argv)
{
    using tb::bench::BenchArguments;
    BenchArguments args("store_overhead",
                        "What logging to the run store costs a training loop: runs × checkpoints "
                        "logged as the runner logs them, with busy work between checkpoints.");
    args.add("runs", "N", "simulated runs", "1000", "20");
    args.add("checkpoints", "N", "checkpoints per run", "50", "20");
    args.add("train-ms", "MS", "milliseconds of busy work between checkpoints", "1");
    args.add("db", "FILE", "the database (default: a temporary file, removed)");
    return tb::bench::benchMain(argc, argv, args, {}, [&] {
        QTextStream out(stdout);
        QTextStream err(stderr);
        const int runs = int(args.integer("runs", 1));
        const int checkpoints = int(args.integer("checkpoints", 1));
        const double trainMs = args.real("train-ms", 1e-3);
        QTemporaryDir tmp;
        const QString path =
            args.text("db").isEmpty() ? tmp.filePath(QStringLiteral("bench.sqlite")) : args.text("db");

        QString error;
        auto store = tb::RunStore::open(path, &error);
        if (!store) {
            err << error << '\n';
            return 2;
        }
        tb::ExperimentRecord e;
        e.name = QStringLiteral("store_overhead");
        e.kind = tb::ExperimentKinds::all().value(0)->id();  // any kind: the store does not read it
        const qint64 experiment = store->createExperiment(e);

        Clock::duration inCreate{}, inAppend{}, inFinish{};
        double training = 0, state = 1;
        const double cpu0 = tb::bench::CpuTime::process(), thread0 = tb::bench::CpuTime::thread();
        const auto start = Clock::now();
        for (int r = 0; r < runs; ++r) {
            tb::RunRecord run;
            run.experimentId = experiment;
            run.algorithmId = QStringLiteral("gradient.adam");
            run.params = {{QStringLiteral("lr"), 1e-3}, {QStringLiteral("hidden"), QVariantList{64, 32}}};
            run.seed = 0x9E3779B97F4A7C15ull * std::uint64_t(r + 1);
            run.repeat = r;
            auto t = Clock::now();
            const qint64 id = store->createRun(run);
            inCreate += Clock::now() - t;
            for (int c = 0; c < checkpoints; ++c) {
                t = Clock::now();
                state = train(trainMs, state);
                const auto trained = Clock::now();
                training += seconds(trained - t);
                tb::MetricPoint p;
                p.seq = c;
                p.epoch = c + 1;
                p.trainTime = training;
                p.loss = state;
                p.trainAccuracy = 0.5 + 0.01 * c;
                p.testAccuracy = 0.49 + 0.01 * c;
                store->appendMetric(id, p);
                inAppend += Clock::now() - trained;
            }
            t = Clock::now();
            store->finishRun(id, tb::RunStatus::Finished, {}, {{QStringLiteral("final_loss"), state}});
            inFinish += Clock::now() - t;
        }
        const double loopWall = seconds(Clock::now() - start);
        const auto flushStart = Clock::now();
        const bool flushed = store->flush(-1);
        const double flushWall = seconds(Clock::now() - flushStart);
        const double totalWall = seconds(Clock::now() - start);
        const double otherCpu =
            (tb::bench::CpuTime::process() - cpu0) - (tb::bench::CpuTime::thread() - thread0);
        const qsizetype stored = store->metrics(store->runs(experiment).last().id).size();
        const qsizetype storedRuns = store->runs(experiment).size();

        const double caller = seconds(inCreate + inAppend + inFinish);
        const long points = long(runs) * checkpoints;
        auto pct = [&](double s) {
            return QString::number(100.0 * s / training, 'f', 3) + QStringLiteral(" %");
        };
        out << "store_overhead: " << runs << " runs x " << checkpoints << " checkpoints, " << trainMs
            << " ms training between checkpoints (" << points << " points) → " << path << "\n";
        out << "  training time           " << QString::number(training, 'f', 3) << " s\n";
        out << "  createRun   (waits)     " << QString::number(1e6 * seconds(inCreate) / runs, 'f', 1)
            << " µs/call\n";
        out << "  appendMetric (queued)   "
            << QString::number(1e9 * seconds(inAppend) / double(points), 'f', 0) << " ns/call\n";
        out << "  finishRun   (queued)    " << QString::number(1e6 * seconds(inFinish) / runs, 'f', 2)
            << " µs/call\n";
        out << "  caller overhead         " << QString::number(caller, 'f', 4) << " s = " << pct(caller)
            << " of training\n";
        out << "  writer thread CPU       " << QString::number(otherCpu, 'f', 4) << " s = " << pct(otherCpu)
            << " of training\n";
        out << "  end to end              " << QString::number(totalWall, 'f', 3) << " s wall, loop "
            << QString::number(loopWall, 'f', 3) << " s + final flush "
            << QString::number(1e3 * flushWall, 'f', 1) << " ms = " << pct(totalWall - training)
            << " over training\n";
        out << "  stored                  " << storedRuns << " runs, last run " << stored << " points, flush "
            << (flushed ? "ok" : "FAILED") << "\n";
        if (!flushed || storedRuns != runs || stored != checkpoints) {
            err << "store_overhead: data missing: " << store->lastError() << '\n';
            return 3;
        }
        return 0;
    });
}
