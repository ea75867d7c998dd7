// Fashion-MNIST reproduction of the BPLS paper (Tomić et al. 2024, Table I) and its speed.
//
//   bpls_fashion [--seeds 10] [--threads 2] [--params '{"blend":"search"}'] [--data DIR]
//                [--validation 10000] [--train-limit N] [--quiet] [--no-gram] [--final-only]
//                [--stop-after SECONDS] [--no-step] [--quick]
//
// Loads Fashion-MNIST as the engine does (DataSource, timed separately), trains bpls.classify
// (784-50-10, softmax) once per seed through the engine's Runner in a TBB arena of --threads
// workers — the plugin trainbench-cli runs, with the host's checkpoint clock: training time
// stops while a checkpoint evaluates the model — and reports train and test accuracy per epoch,
// their mean and best over the seeds, and the training time.
// --validation V holds out V random training rows (seeded, never the test set) and reports
// accuracy on them instead of the test set: that is how variants are compared.
// --no-gram skips the Gram-versus-GEMM throughput measurement; --final-only evaluates only the
// final model (for profiling: the per-checkpoint evaluations are the host's work, not training).
// --stop-after S presses Stop S seconds into every run and reports how long fit() took to return.
// After every fit it also times the mixed-precision normal-equations step of the same data
// ([X 1]ᵀ[X 1] and [X 1]ᵀB with 50 right-hand sides, standardised float inputs: the first
// layer's step of the first sweep) in the same arena, and prints Algorithm 2's training time
// over that step's time ("ratio"): issue 10 asks for at most 2. Pairing each fit with a step
// measured right after it keeps the ratio meaningful on a shared machine. --no-step skips it.
// The per-phase times (gram, hidden, solve, forward, inputs, gather, blend) are
// BplsTrainer::History, read from the plugin's own trainer once the run is over: this program
// measures those internal steps on purpose, which is why it links tb_bpls_core.
// Results are recorded in bench/README.md, section "BPLS" (speed), and in docs/bpls.md, "How the
// defaults were chosen" (the validation split).

#include <support/BenchArguments.h>
#include <support/BenchData.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>
#include <support/Spread.h>
#include <support/Stopwatch.h>

#include <bpls/BplsTrainer.h>
#include <training/DesignMatrix.h>

#include <QJsonDocument>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

namespace {

using tb::bench::BenchArguments;
using tb::bench::Stopwatch;

// Gram throughput against Eigen's own GEMM, same data, same arena, same run.
void gramThroughput(const tb::data::Dataset& train, int threads)
{
    const Eigen::MatrixXd& x = train.x;
    const Eigen::Index n = x.rows(), d = x.cols();
    Eigen::MatrixXd b = Eigen::MatrixXd::Constant(n, 50, 0.25); // 50 right-hand sides as in the first layer
    tbb::task_arena arena(threads);
    arena.execute([&] {
        // Reference: Eigen's full product XᵀX (2·n·d² flops), row halves per thread, summed.
        auto gemm = [&] {
            std::vector<Eigen::MatrixXd> parts(static_cast<std::size_t>(threads));
            const Stopwatch t;
            tbb::parallel_for(0, threads, [&](int p) {
                const Eigen::Index r0 = n * p / threads, r1 = n * (p + 1) / threads;
                parts[std::size_t(p)].noalias() =
                    x.middleRows(r0, r1 - r0).transpose() * x.middleRows(r0, r1 - r0);
            });
            Eigen::MatrixXd g = parts[0];
            for (int p = 1; p < threads; ++p)
                g += parts[std::size_t(p)];
            return t.seconds();
        };
        double tGemm = 1e9;
        for (int rep = 0; rep < 3; ++rep)
            tGemm = std::min(tGemm, gemm());
        const double gemmRate = 2.0 * double(n) * double(d) * double(d) / tGemm;
        std::printf("gram: Eigen GEMM X^T X (%lldx%lld, %d threads): %.3f s, %.1f GFLOP/s\n", (long long)n,
                    (long long)d, threads, tGemm, gemmRate / 1e9);
        // The same in float: the reference for the mixed-precision path.
        const Eigen::MatrixXf xf = x.cast<float>();
        double tGemmF = 1e9;
        for (int rep = 0; rep < 3; ++rep) {
            std::vector<Eigen::MatrixXf> parts(static_cast<std::size_t>(threads));
            const Stopwatch t;
            tbb::parallel_for(0, threads, [&](int p) {
                const Eigen::Index r0 = n * p / threads, r1 = n * (p + 1) / threads;
                parts[std::size_t(p)].noalias() =
                    xf.middleRows(r0, r1 - r0).transpose() * xf.middleRows(r0, r1 - r0);
            });
            Eigen::MatrixXf g = parts[0];
            for (int p = 1; p < threads; ++p)
                g += parts[std::size_t(p)];
            tGemmF = std::min(tGemmF, t.seconds());
        }
        const double gemmRateF = 2.0 * double(n) * double(d) * double(d) / tGemmF;
        std::printf("gram: Eigen GEMM X^T X in float: %.3f s, %.1f GFLOP/s\n", tGemmF, gemmRateF / 1e9);
        for (auto prec : {tb::train::Precision::Double, tb::train::Precision::Mixed}) {
            const tb::train::DesignMatrix in(x, prec, false, true);
            double tGram = 1e9;
            Eigen::MatrixXd g, c;
            for (int rep = 0; rep < 3; ++rep) {
                const Stopwatch t;
                in.normalEquations(b, true, g, c);
                tGram = std::min(tGram, t.seconds());
            }
            // Useful work: the symmetric Gram (n·d'·(d'+1) flops, d' = d+1) and AᵀB (2·n·d'·k).
            const double dd = double(d + 1);
            const double flops = double(n) * dd * (dd + 1) + 2.0 * double(n) * dd * 50.0;
            const bool dbl = prec == tb::train::Precision::Double;
            const double ref = dbl ? gemmRate : gemmRateF;
            std::printf("gram: BPLS first-layer normal equations [X 1]^T[X 1] and [X 1]^T B (50 columns), "
                        "%s: %.3f s, "
                        "%.1f GFLOP/s useful = %.0f%% of the %s GEMM rate; time %.2fx the %s GEMM's\n",
                        dbl ? "double" : "mixed", tGram, flops / tGram / 1e9, 100.0 * flops / tGram / ref,
                        dbl ? "double" : "float", tGram / (dbl ? tGemm : tGemmF), dbl ? "double" : "float");
        }
    });
}

// What this benchmark reads beyond the run's result: the trainer's phase times once fit() is
// over, and when fit() returned (the host's training clock stops right then).
class FitObserver final : public tb::RunObserver {
public:
    std::optional<tb::bpls::BplsTrainer::History> history;
    Stopwatch::Clock::time_point clockStopped;

    void trainingClock(const tb::RunJob&, bool running) override
    {
        if (!running)
            clockStopped = Stopwatch::Clock::now();
    }
    void modelReady(const tb::RunJob&, const tb::Trainer& trainer, const tb::MetricPoint&, const QJsonObject&,
                    bool final) override
    {
        if (!final)
            return;
        if (const auto* bpls = tb::bench::BenchRunner::pluginTrainer<tb::bpls::BplsTrainer>(trainer))
            history = bpls->history();
    }
};

} // namespace

int main(int argc, char** argv)
{
    BenchArguments args("bpls_fashion",
                        "bpls.classify (784-50-10) on Fashion-MNIST over seeds through the engine's Runner: "
                        "accuracy, training time, phase times, Algorithm 2 against its own normal-equations "
                        "step, Gram throughput against GEMM.");
    args.add(BenchArguments::Common::Seeds, "10", "1", "seeds 1 … N");
    args.add(BenchArguments::Common::Threads, "2");
    args.add(BenchArguments::Common::Params, "{}", {}, "bpls.classify's (plugin defaults otherwise)");
    args.add(BenchArguments::Common::Data);
    args.add(BenchArguments::Common::Validation, "0");
    args.add(BenchArguments::Common::TrainLimit, "0", "10000");
    args.add(BenchArguments::Common::Quiet);
    args.addSwitch("no-gram", "skip the Gram-versus-GEMM throughput (--quick skips it too)");
    args.addSwitch("no-step", "skip timing the normal-equations step after each fit");
    args.addSwitch("final-only", "evaluate the final model only (profiling)");
    args.add("stop-after", "S", "press Stop S seconds into every run and report when fit() returned");
    return tb::bench::benchMain(argc, argv, args, {}, [&] {
        const int seeds = int(args.integer("seeds", 1));
        const int threads = int(args.integer("threads", 1, 1024));
        const Eigen::Index validation = args.integer("validation", 0);
        const bool quiet = args.isSet("quiet");
        const bool gram = !args.isSet("no-gram") && !args.quick();
        const bool step = !args.isSet("no-step");
        const bool finalOnly = args.isSet("final-only");
        const double stopAfter = args.text("stop-after").isEmpty() ? -1 : args.real("stop-after", 0);

        const tb::bench::BenchRunner runner;
        const QVariantMap params =
            runner.normalise("bpls.classify", args.jsonObject("params").toVariantMap());
        tb::data::DatasetPair loaded =
            tb::bench::BenchData::load(tb::bench::BenchData::fashionMnistSpec(args));
        if (validation > 0)
            tb::bench::BenchData::holdOut(loaded, validation, tb::bench::BenchData::Order::Source);
        const auto data = std::make_shared<const tb::data::DatasetPair>(std::move(loaded));
        const tb::data::Dataset& train = data->train;
        const char* evalName = validation > 0 ? "val" : "test";
        std::printf(
            "params: %s\n",
            QJsonDocument(QJsonObject::fromVariantMap(params)).toJson(QJsonDocument::Compact).constData());

        std::vector<double> trainAcc, evalAcc, seconds, cpuS, stepS, ratios;
        tbb::task_arena arena(threads);
        // The reference step: the first sweep's first-layer normal equations, as the trainer
        // computes them by default (standardised inputs stored as float, bias column, 50
        // right-hand sides; their values do not change the time). Built once, not timed.
        std::unique_ptr<tb::train::DesignMatrix> stepIn;
        const Eigen::MatrixXd stepB = Eigen::MatrixXd::Constant(train.rows(), 50, 0.25);
        if (step)
            arena.execute([&] {
                stepIn = std::make_unique<tb::train::DesignMatrix>(train.x, tb::train::Precision::Mixed, true,
                                                                   true);
            });
        for (int s = 1; s <= seeds; ++s) {
            tb::RunJob job =
                tb::bench::BenchRunner::job("bpls.classify", params, data, std::uint64_t(s), threads);
            job.datasetDescription = "fashion-mnist";
            job.evaluateCheckpoints = !finalOnly;
            FitObserver observer;
            tb::StopSource stop;
            Stopwatch::Clock::time_point stopAt;
            std::thread stopper;
            if (stopAfter >= 0)
                stopper = std::thread([&] {
                    std::this_thread::sleep_for(std::chrono::duration<double>(stopAfter));
                    stopAt = Stopwatch::Clock::now();
                    stop.requestStop();
                });
            const tb::bench::BenchRun run = runner.run(job, &observer, &stop);
            const tb::RunResult& r = run.result;
            if (stopper.joinable()) {
                stopper.join();
                const double latency = std::chrono::duration<double>(observer.clockStopped - stopAt).count();
                std::printf("seed %2d: Stop pressed %.3f s into the run, fit() returned %.1f ms later (%s)\n",
                            s, stopAfter, 1000 * latency, qPrintable(tb::runStatusName(r.status)));
                if (r.points.isEmpty())
                    continue;
            } else {
                run.requireFinished(QStringLiteral("seed %1").arg(s));
            }
            const double total = r.trainSeconds;
            if (stepIn) {
                Eigen::MatrixXd g, c;
                double stepSeconds = 0;
                arena.execute([&] {
                    const Stopwatch t;
                    stepIn->normalEquations(stepB, true, g, c);
                    stepSeconds = t.seconds();
                });
                stepS.push_back(stepSeconds);
                ratios.push_back(total / stepSeconds);
                std::printf(
                    "seed %2d: Algorithm 2 %.3f s, normal-equations step %.3f s (same run, right after), "
                    "ratio %.2f\n",
                    s, total, stepSeconds, total / stepSeconds);
            }
            const tb::MetricPoint& last = r.last;
            // The first iterate: the first checkpoint's point; without checkpoint evaluations
            // only the trainer's own record of its training accuracy.
            const double firstTrain =
                finalOnly ? run.fact("first_iterate_train_accuracy") : r.points.front().trainAccuracy;
            const double firstEval = finalOnly ? NAN : r.points.front().testAccuracy;
            trainAcc.push_back(last.trainAccuracy);
            evalAcc.push_back(last.testAccuracy);
            seconds.push_back(total);
            cpuS.push_back(run.trainCpuSeconds);
            const double nan = std::nan("");
            const auto& h = observer.history;
            std::printf(
                "seed %2d: %g epochs, train %.2f %%, %s %.2f %% (first iterate %.2f / %.2f), %.3f s "
                "training, "
                "%.3f s CPU (gram %.3f, hidden %.3f, solve %.3f, forward %.3f, inputs %.3f, gather %.3f, "
                "blend %.3f; predicted first sweep %.3f s, measured %.3f s), fallbacks %g, gram rows direct "
                "%lld updated %lld\n",
                s, last.epoch, 100 * last.trainAccuracy, evalName, 100 * last.testAccuracy, 100 * firstTrain,
                100 * firstEval, total, run.trainCpuSeconds, run.fact("gram_seconds"),
                h ? h->hiddenSeconds : nan, run.fact("solve_seconds"), run.fact("forward_seconds"),
                h ? h->inputSeconds : nan, h ? h->gatherSeconds : nan, h ? h->blendSeconds : nan,
                run.fact("predicted_seconds"), run.fact("first_sweep_measured_seconds"),
                run.fact("fallbacks"), h ? (long long)h->gramRowsDirect : -1LL,
                h ? (long long)h->gramRowsUpdated : -1LL);
            if (!h)
                std::printf("    (the plugin's trainer is not this build's BplsTrainer: hidden, inputs, "
                            "gather, blend "
                            "and gram rows unknown)\n");
            if (!quiet) {
                for (const tb::MetricPoint& p : r.points)
                    std::printf("    epoch %g  t=%.3f s  train %.2f %%  %s %.2f %%\n", p.epoch, p.trainTime,
                                100 * p.trainAccuracy, evalName, 100 * p.testAccuracy);
                for (const QJsonValue& l : r.info.value("log").toArray())
                    std::printf("    log: %s\n", qPrintable(l.toString()));
            }
        }
        if (!trainAcc.empty()) {
            const auto tm = tb::bench::Spread::of(trainAcc), em = tb::bench::Spread::of(evalAcc),
                       sm = tb::bench::Spread::of(seconds);
            const auto best = std::max_element(evalAcc.begin(), evalAcc.end()) - evalAcc.begin();
            std::printf(
                "summary over %d seeds: train %.2f ± %.2f %% (best %.2f), %s %.2f ± %.2f %% (best %.2f; "
                "train "
                "of that seed %.2f), training %.3f ± %.3f s (min %.3f, max %.3f), CPU %.3f s per fit, paper "
                "83.99 / 82.57 %%\n",
                tm.count, 100 * tm.mean, 100 * tm.std, 100 * tm.max, evalName, 100 * em.mean, 100 * em.std,
                100 * evalAcc[std::size_t(best)], 100 * trainAcc[std::size_t(best)], sm.mean, sm.std, sm.min,
                sm.max, tb::bench::Spread::of(cpuS).mean);
        }
        if (!ratios.empty()) {
            const auto st = tb::bench::Spread::of(stepS), ra = tb::bench::Spread::of(ratios),
                       sm = tb::bench::Spread::of(seconds);
            std::printf(
                "summary ratio: Algorithm 2 / normal-equations step %.2f ± %.2f (min %.2f, max %.2f; mean "
                "step %.3f s, mean Algorithm 2 %.3f s; ratio of the means %.2f); issue 10 asks for <= 2\n",
                ra.mean, ra.std, ra.min, ra.max, st.mean, sm.mean, sm.mean / st.mean);
        }
        if (gram)
            gramThroughput(train, threads);
        return 0;
    });
}
