// Fashion-MNIST reproduction of the BPLS paper (Tomić et al. 2024, Table I) and its speed.
//
//   bpls_fashion [--seeds 10] [--threads 2] [--params '{"blend":"search"}'] [--data DIR]
//                [--validation 10000] [--limit-train N] [--quiet] [--no-gram] [--final-only]
//                [--stop-after SECONDS] [--no-step]
//
// Loads the IDX files through tb::data::IdxLoader (timed separately), trains bpls.classify
// (784-50-10, softmax) once per seed in a TBB arena of --threads workers, and reports train
// and test accuracy per epoch, their mean and best over the seeds, and the training time with
// the host's convention: the clock stops while a checkpoint evaluates the model.
// --validation V holds out V random training rows (seeded, never the test set) and reports
// accuracy on them instead of the test set: that is how variants are compared.
// --no-gram skips the Gram-versus-GEMM throughput measurement; --final-only evaluates only the
// final model (for profiling: the per-checkpoint evaluations are the host's work, not training).
// --stop-after S presses Stop S seconds into every fit() and reports how long fit() took to return.
// After every fit it also times the mixed-precision normal-equations step of the same data
// ([X 1]ᵀ[X 1] and [X 1]ᵀB with 50 right-hand sides, standardised float inputs: the first
// layer's step of the first sweep) in the same arena, and prints Algorithm 2's training time
// over that step's time ("ratio"): issue 10 asks for at most 2. Pairing each fit with a step
// measured right after it keeps the ratio meaningful on a shared machine. --no-step skips it.
// Results are recorded in bench/README.md, section "BPLS".

#include <BplsConfig.h>
#include <DesignMatrix.h>
#include <BplsTrainer.h>
#include <IdxLoader.h>
#include <Metrics.h>
#include <Rng.h>
#include <trainbench/testing/TestRunContext.h>

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>
#include <ProcessSetup.h>

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The host's checkpoint convention, measured: training time excludes evaluation. The trainer
// sees the SDK's test double; its checkpoint hook pauses this clock while it evaluates.
class BenchContext {
public:
    BenchContext(std::uint64_t seed, int threads, const tb::Trainer& trainer, const tb::data::Dataset& train,
                 const tb::data::Dataset& eval)
        : ctx(seed, threads), m_trainer(trainer), m_train(train), m_eval(eval)
    {
        ctx.onCheckpoint = [this](const tb::Checkpoint& cp) {
            m_training += since(m_t0);
            double trainAcc = std::nan(""), evalAcc = std::nan("");
            if (evaluateCheckpoints) {
                trainAcc = tb::num::accuracy(m_trainer.predict(m_train.x), m_train.y);
                evalAcc = tb::num::accuracy(m_trainer.predict(m_eval.x), m_eval.y);
            }
            points.push_back({cp.epoch, m_training, trainAcc, evalAcc, cp.note.toStdString()});
            m_t0 = Clock::now();
        };
    }
    void start() { m_t0 = Clock::now(); }
    double finish()
    {
        m_training += since(m_t0);
        if (!evaluateCheckpoints && !points.empty()) { // profile mode: evaluate the final model only
            points.back().train = tb::num::accuracy(m_trainer.predict(m_train.x), m_train.y);
            points.back().eval = tb::num::accuracy(m_trainer.predict(m_eval.x), m_eval.y);
        }
        return m_training;
    }

    tb::testing::TestRunContext ctx;
    bool evaluateCheckpoints = true;
    struct Point {
        double epoch, seconds, train, eval;
        std::string note;
    };
    std::vector<Point> points;

private:
    const tb::Trainer& m_trainer;
    const tb::data::Dataset& m_train;
    const tb::data::Dataset& m_eval;
    Clock::time_point m_t0;
    double m_training = 0;
};

struct Args {
    int seeds = 10;
    int threads = 2;
    QString params = "{}";
    QString dir;
    Eigen::Index validation = 0;
    Eigen::Index limitTrain = -1;
    bool quiet = false;
    bool gram = true;
    bool step = true;
    bool finalOnly = false;
    double stopAfter = -1; // seconds after the start of fit() at which Stop is pressed
};

Args parse(int argc, char** argv)
{
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        auto next = [&]() -> QString {
            if (i + 1 >= argc)
                throw std::invalid_argument("missing value after " + k);
            return QString::fromLocal8Bit(argv[++i]);
        };
        if (k == "--seeds")
            a.seeds = next().toInt();
        else if (k == "--threads")
            a.threads = next().toInt();
        else if (k == "--params")
            a.params = next();
        else if (k == "--data")
            a.dir = next();
        else if (k == "--validation")
            a.validation = next().toLongLong();
        else if (k == "--limit-train")
            a.limitTrain = next().toLongLong();
        else if (k == "--quiet")
            a.quiet = true;
        else if (k == "--no-gram")
            a.gram = false;
        else if (k == "--no-step")
            a.step = false;
        else if (k == "--final-only")
            a.finalOnly = true;
        else if (k == "--stop-after")
            a.stopAfter = next().toDouble();
        else
            throw std::invalid_argument("unknown option " + k);
    }
    return a;
}

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
            const auto t0 = Clock::now();
            tbb::parallel_for(0, threads, [&](int p) {
                const Eigen::Index r0 = n * p / threads, r1 = n * (p + 1) / threads;
                parts[std::size_t(p)].noalias() = x.middleRows(r0, r1 - r0).transpose() * x.middleRows(r0, r1 - r0);
            });
            Eigen::MatrixXd g = parts[0];
            for (int p = 1; p < threads; ++p)
                g += parts[std::size_t(p)];
            return since(t0);
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
            const auto t0 = Clock::now();
            tbb::parallel_for(0, threads, [&](int p) {
                const Eigen::Index r0 = n * p / threads, r1 = n * (p + 1) / threads;
                parts[std::size_t(p)].noalias() = xf.middleRows(r0, r1 - r0).transpose() * xf.middleRows(r0, r1 - r0);
            });
            Eigen::MatrixXf g = parts[0];
            for (int p = 1; p < threads; ++p)
                g += parts[std::size_t(p)];
            tGemmF = std::min(tGemmF, since(t0));
        }
        const double gemmRateF = 2.0 * double(n) * double(d) * double(d) / tGemmF;
        std::printf("gram: Eigen GEMM X^T X in float: %.3f s, %.1f GFLOP/s\n", tGemmF, gemmRateF / 1e9);
        for (auto prec : {tb::bpls::GramPrecision::Double, tb::bpls::GramPrecision::Mixed}) {
            const tb::train::DesignMatrix in(x, prec, false, true);
            double tGram = 1e9;
            Eigen::MatrixXd g, c;
            for (int rep = 0; rep < 3; ++rep) {
                const auto t0 = Clock::now();
                in.normalEquations(b, true, g, c);
                tGram = std::min(tGram, since(t0));
            }
            // Useful work: the symmetric Gram (n·d'·(d'+1) flops, d' = d+1) and AᵀB (2·n·d'·k).
            const double dd = double(d + 1);
            const double flops = double(n) * dd * (dd + 1) + 2.0 * double(n) * dd * 50.0;
            const bool dbl = prec == tb::bpls::GramPrecision::Double;
            const double ref = dbl ? gemmRate : gemmRateF;
            std::printf("gram: BPLS first-layer normal equations [X 1]^T[X 1] and [X 1]^T B (50 columns), %s: %.3f s, "
                        "%.1f GFLOP/s useful = %.0f%% of the %s GEMM rate; time %.2fx the %s GEMM's\n",
                        dbl ? "double" : "mixed", tGram, flops / tGram / 1e9, 100.0 * flops / tGram / ref,
                        dbl ? "double" : "float", tGram / (dbl ? tGemm : tGemmF), dbl ? "double" : "float");
        }
    });
}

} // namespace

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv); // as the workbench and the CLI run: may restart once
    QCoreApplication app(argc, argv);
    try {
        const Args args = parse(argc, argv);
        const QString dir = args.dir.isEmpty() ? tb::data::IdxLoader::fashionMnistDir() : args.dir;
        if (dir.isEmpty())
            throw std::runtime_error("Fashion-MNIST not found: pass --data DIR or set TRAINBENCH_FASHION_MNIST");
        auto t0 = Clock::now();
        tb::data::DatasetPair data = tb::data::IdxLoader::loadFashionMnist(dir, args.limitTrain, -1, 1);
        std::printf("load: %s and %s in %.2f s (IdxLoader, gzip)\n", qPrintable(data.train.description),
                    qPrintable(data.test.description), since(t0));
        tb::data::Dataset train = std::move(data.train), eval = std::move(data.test);
        if (args.validation > 0) {
            // Hold out random training rows; the test set is not touched.
            tb::data::Rng rng(12345, tb::data::Rng::Split);
            std::vector<Eigen::Index> perm(std::size_t(train.rows()));
            for (std::size_t i = 0; i < perm.size(); ++i)
                perm[i] = Eigen::Index(i);
            rng.shuffle(perm);
            std::vector<Eigen::Index> valRows(perm.begin(), perm.begin() + args.validation),
                trainRows(perm.begin() + args.validation, perm.end());
            std::sort(valRows.begin(), valRows.end());
            std::sort(trainRows.begin(), trainRows.end());
            eval = train.selectRows(valRows);
            train = train.selectRows(trainRows);
        }
        const char* evalName = args.validation > 0 ? "val" : "test";

        QJsonParseError perr;
        const QJsonDocument doc = QJsonDocument::fromJson(args.params.toUtf8(), &perr);
        if (!doc.isObject())
            throw std::invalid_argument("--params: not a JSON object: " + perr.errorString().toStdString());
        QString err;
        const tb::ParamSchema schema = tb::bpls::BplsConfig::schema(true);
        const auto params = schema.normalise(doc.object().toVariantMap(), &err);
        if (!params)
            throw std::invalid_argument(err.toStdString());
        std::printf("params: %s\n", QJsonDocument(QJsonObject::fromVariantMap(*params)).toJson(QJsonDocument::Compact).constData());

        std::vector<double> trainAcc, evalAcc, seconds, gramS, firstTrain, cpuS, stepS, ratios;
        tbb::task_arena arena(args.threads);
        // The reference step: the first sweep's first-layer normal equations, as the trainer
        // computes them by default (standardised inputs stored as float, bias column, 50
        // right-hand sides; their values do not change the time). Built once, not timed.
        std::unique_ptr<tb::train::DesignMatrix> stepIn;
        const Eigen::MatrixXd stepB = Eigen::MatrixXd::Constant(train.rows(), 50, 0.25);
        if (args.step)
            arena.execute([&] {
                stepIn = std::make_unique<tb::train::DesignMatrix>(train.x, tb::train::Precision::Mixed, true, true);
            });
        for (int s = 1; s <= args.seeds; ++s) {
            tb::bpls::BplsTrainer trainer(tb::bpls::BplsConfig::fromParams(*params, true));
            BenchContext ctx(std::uint64_t(s), args.threads, trainer, train, eval);
            ctx.evaluateCheckpoints = !args.finalOnly;
            Clock::time_point stopAt;
            std::thread stopper;
            if (args.stopAfter >= 0)
                stopper = std::thread([&] {
                    std::this_thread::sleep_for(std::chrono::duration<double>(args.stopAfter));
                    stopAt = Clock::now();
                    ctx.ctx.requestStop();
                });
            const std::clock_t cpu0 = std::clock();
            arena.execute([&] {
                ctx.start();
                trainer.fit(train.view(), ctx.ctx);
            });
            const auto returned = Clock::now();
            // Process CPU time of the whole fit (all threads; includes checkpoint evaluation
            // unless --final-only): what 2 free cores must deliver, independent of other load.
            const double cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
            if (stopper.joinable()) {
                stopper.join();
                const double latency = std::chrono::duration<double>(returned - stopAt).count();
                std::printf("seed %2d: Stop pressed %.3f s into fit(), fit() returned %.1f ms later (%s)\n", s,
                            args.stopAfter, 1000 * latency,
                            latency < 0 ? "finished before Stop" : "cancelled");
                if (ctx.points.empty())
                    continue;
            }
            const double total = ctx.finish();
            const auto& h = trainer.history();
            if (stepIn) {
                Eigen::MatrixXd g, c;
                double step = 0;
                arena.execute([&] {
                    const auto t = Clock::now();
                    stepIn->normalEquations(stepB, true, g, c);
                    step = since(t);
                });
                stepS.push_back(step);
                ratios.push_back(total / step);
                std::printf("seed %2d: Algorithm 2 %.3f s, normal-equations step %.3f s (same run, right after), "
                            "ratio %.2f\n",
                            s, total, step, total / step);
            }
            const auto& last = ctx.points.back();
            trainAcc.push_back(last.train);
            evalAcc.push_back(last.eval);
            seconds.push_back(total);
            gramS.push_back(h.gramSeconds);
            firstTrain.push_back(ctx.points.front().train);
            cpuS.push_back(cpu);
            std::printf("seed %2d: %d epochs, train %.2f %%, %s %.2f %% (first iterate %.2f / %.2f), %.3f s training, "
                        "%.3f s CPU (gram %.3f, hidden %.3f, solve %.3f, forward %.3f, inputs %.3f, gather %.3f, blend %.3f; predicted first sweep %.3f s, "
                        "measured %.3f s), fallbacks %d, gram rows direct %lld updated %lld\n",
                        s, h.epochs, 100 * last.train, evalName, 100 * last.eval, 100 * ctx.points.front().train,
                        100 * ctx.points.front().eval, total, cpu, h.gramSeconds, h.hiddenSeconds, h.solveSeconds,
                        h.forwardSeconds, h.inputSeconds, h.gatherSeconds, h.blendSeconds, h.predictedSeconds,
                        ctx.ctx.records.value("first_sweep_measured_seconds").toDouble(), h.fallbacks, (long long)h.gramRowsDirect, (long long)h.gramRowsUpdated);
            if (!args.quiet)
                for (const auto& p : ctx.points)
                    std::printf("    epoch %g  t=%.3f s  train %.2f %%  %s %.2f %%  %s\n", p.epoch, p.seconds,
                                100 * p.train, evalName, 100 * p.eval, p.note.c_str());
            if (!args.quiet)
                for (const auto& l : ctx.ctx.logs)
                    std::printf("    log: %s\n", qPrintable(l));
        }
        if (!trainAcc.empty()) {
        const auto tm = tb::num::meanStd(trainAcc), em = tb::num::meanStd(evalAcc), sm = tb::num::meanStd(seconds);
        const auto best = std::max_element(evalAcc.begin(), evalAcc.end()) - evalAcc.begin();
        std::printf("summary over %d seeds: train %.2f ± %.2f %% (best %.2f), %s %.2f ± %.2f %% (best %.2f; train of "
                    "that seed %.2f), training %.3f ± %.3f s (min %.3f, max %.3f), CPU %.3f s per fit, paper 83.99 / "
                    "82.57 %%\n",
                    args.seeds, 100 * tm.mean, 100 * tm.std, 100 * *std::max_element(trainAcc.begin(), trainAcc.end()),
                    evalName, 100 * em.mean, 100 * em.std, 100 * evalAcc[std::size_t(best)],
                    100 * trainAcc[std::size_t(best)], sm.mean, sm.std,
                    *std::min_element(seconds.begin(), seconds.end()),
                    *std::max_element(seconds.begin(), seconds.end()), tb::num::meanStd(cpuS).mean);
        }
        if (!ratios.empty()) {
            const auto st = tb::num::meanStd(stepS), ra = tb::num::meanStd(ratios);
            std::printf("summary ratio: Algorithm 2 / normal-equations step %.2f ± %.2f (min %.2f, max %.2f; mean "
                        "step %.3f s, mean Algorithm 2 %.3f s; ratio of the means %.2f); issue 10 asks for <= 2\n",
                        ra.mean, ra.std, *std::min_element(ratios.begin(), ratios.end()),
                        *std::max_element(ratios.begin(), ratios.end()), st.mean, tb::num::meanStd(seconds).mean,
                        tb::num::meanStd(seconds).mean / st.mean);
        }
        if (args.gram)
            gramThroughput(train, args.threads);
    } catch (const std::exception& e) {
        std::cerr << "bpls_fashion: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
