// Least Squares Revisited (Agarwal et al. 2014) on Fashion-MNIST: accuracy against training time
// (wall and CPU) per checkpoint, over seeds, and the features LIBLINEAR is compared on.
//
//   lsq_fashion --algorithm lsq.stagewise --params '{"flavour":"logistic","pca":50}' [--seeds 1]
//               [--first-seed 1] [--threads 2] [--validation 10000] [--train-limit N]
//               [--target 0.888] [--data DIR] [--quiet] [--quick]
//   lsq_fashion --dump-libsvm PREFIX --params '{"features":"gaussian_cos","feature_count":1000,"pca":50}'
//
// Trains the algorithm once per seed through the engine's Runner in a TBB arena of --threads
// workers, exactly as trainbench-cli runs it, and reports per checkpoint the training time on
// the host's clock (it stops while the checkpoint evaluates the model), the process CPU time
// spent training (paused at the same moments: a loaded machine stretches wall time, not CPU
// time), and train and test accuracy. --validation V holds out V seeded training rows and
// reports accuracy on them instead of the test set: that is how parameters were chosen.
// --target A prints, per seed, the first checkpoint whose accuracy reaches A (wall and CPU s).
// --dump-libsvm PREFIX writes the features lsq.gls would fit (the same PCA, bandwidth and seeded
// random features, seed --first-seed) to PREFIX.train and PREFIX.test in LIBSVM format (labels
// 1 … 10), for `liblinear-train` on the same features (the first Figure 2 analogue; the claims
// of resources/claims/lsq.json run it through the liblinear plugin and the data set's
// random_features option instead):
// it reproduces that internal step of the plugin on purpose (LsqConfig's feature settings, the
// toolkit's FeatureMap), which is why this program links tb_lsq_core.
// Results are recorded in docs/lsq.md ("How the experiments' settings were chosen") and
// bench/README.md ("Least Squares Revisited: mixed precision and the ridge floor").

#include <support/BenchArguments.h>
#include <support/BenchData.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>
#include <support/Spread.h>
#include <support/TrainingCpuClock.h>

#include <training/FeatureMap.h>
#include <lsq/LsqConfig.h>

#include <QFile>
#include <QJsonDocument>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace {

using tb::bench::BenchArguments;

// LIBSVM rows "label index:value …" (1-based indices, every feature: the features are dense).
void writeLibsvm(const QString& path, const Eigen::MatrixXd& f, const Eigen::MatrixXd& y)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        throw std::runtime_error("cannot write " + path.toStdString() + ": " +
                                 file.errorString().toStdString());
    QByteArray line;
    char buf[64];
    for (Eigen::Index i = 0; i < f.rows(); ++i) {
        Eigen::Index label = 0;
        y.row(i).maxCoeff(&label);
        line = QByteArray::number(qlonglong(label + 1));
        for (Eigen::Index j = 0; j < f.cols(); ++j) {
            std::snprintf(buf, sizeof buf, " %lld:%.7g", (long long)(j + 1), f(i, j));
            line += buf;
        }
        line += '\n';
        if (file.write(line) != line.size())
            throw std::runtime_error("write failed: " + path.toStdString());
    }
    if (!file.flush())
        throw std::runtime_error("write failed: " + path.toStdString());
}

// The features lsq.gls fits for the parameters given (seed = the run seed).
void dumpFeatures(const QVariantMap& params, std::uint64_t seed, int threads, const QString& prefix,
                  const tb::data::Dataset& train, const tb::data::Dataset& test)
{
    QString err;
    const auto p = tb::lsq::LsqConfig::schema(tb::lsq::Algorithm::Gls).normalise(params, &err);
    if (!p)
        throw std::runtime_error("--params: " + err.toStdString());
    const tb::lsq::LsqConfig c = tb::lsq::LsqConfig::fromParams(*p, tb::lsq::Algorithm::Gls);
    tbb::task_arena(threads).execute([&] {
        tb::train::FeatureMap map;
        Eigen::MatrixXd ztrain, ztest;
        map.fit(train.x, c.features, seed, {}, {}, nullptr, ztrain);
        if (!map.projects())
            ztrain = train.x;
        map.project(test.x, ztest);
        Eigen::MatrixXd ftrain = ztrain, ftest = ztest;
        if (!c.features.raw) {
            const tb::train::RandomFeatures rf = map.block(0, c.features.count);
            rf.transform(ztrain, ftrain);
            rf.transform(ztest, ftest);
        }
        std::printf("features: %lld of %lld projected inputs, bandwidth %.6g\n", (long long)ftrain.cols(),
                    (long long)map.projectedInputs(), map.bandwidth());
        writeLibsvm(prefix + ".train", ftrain, train.y);
        writeLibsvm(prefix + ".test", ftest, test.y);
        std::printf("wrote %s.train (%lld rows) and %s.test (%lld rows)\n", qPrintable(prefix),
                    (long long)ftrain.rows(), qPrintable(prefix), (long long)ftest.rows());
    });
}

} // namespace

int main(int argc, char** argv)
{
    BenchArguments args("lsq_fashion",
                        "A Least Squares Revisited algorithm on Fashion-MNIST through the engine's "
                        "Runner: accuracy against training time (wall and CPU) per checkpoint, over "
                        "seeds; or the features lsq.gls fits, as LIBSVM text.");
    args.add(BenchArguments::Common::Algorithm, "lsq.stagewise", {},
             "lsq.gls, lsq.calibrated or lsq.stagewise");
    args.add(BenchArguments::Common::Params, "{}");
    args.add(BenchArguments::Common::Seeds, "1", {}, "seeds first-seed … first-seed + N − 1");
    args.add(BenchArguments::Common::FirstSeed, "1");
    args.add(BenchArguments::Common::Threads, "2");
    args.add(BenchArguments::Common::Validation, "0");
    args.add(BenchArguments::Common::TrainLimit, "0", "5000");
    args.add("target", "A", "report when the accuracy first reaches A (0: not)", "0");
    args.add(BenchArguments::Common::Data);
    args.add("dump-libsvm", "PREFIX",
             "write the features lsq.gls fits to PREFIX.train and PREFIX.test, then exit");
    args.add(BenchArguments::Common::Quiet);
    return tb::bench::benchMain(argc, argv, args, {}, [&] {
        const QString algorithm = args.text("algorithm");
        const QVariantMap given = args.jsonObject("params").toVariantMap();
        const int seeds = int(args.integer("seeds", 1));
        const std::uint64_t firstSeed = args.seed("first-seed");
        const int threads = int(args.integer("threads", 1, 1024));
        const Eigen::Index validation = args.integer("validation", 0);
        const double target = args.real("target", 0, 1);
        const bool quiet = args.isSet("quiet");

        tb::data::DatasetPair loaded =
            tb::bench::BenchData::load(tb::bench::BenchData::fashionMnistSpec(args));
        // The shuffled order keeps the recorded validation figures reproducible (docs/lsq.md,
        // bench/README.md).
        if (validation > 0)
            tb::bench::BenchData::holdOut(loaded, validation, tb::bench::BenchData::Order::Shuffled);
        const QString evalName = validation > 0 ? QStringLiteral("validation") : QStringLiteral("test");
        if (!args.text("dump-libsvm").isEmpty()) {
            dumpFeatures(given, firstSeed, threads, args.text("dump-libsvm"), loaded.train, loaded.test);
            return 0;
        }
        const tb::bench::BenchRunner runner;
        runner.normalise(algorithm, given); // a bad parameter fails here, before any run
        const auto data = std::make_shared<const tb::data::DatasetPair>(std::move(loaded));
        std::printf(
            "%s %s, %lld training rows, %s %lld rows, %d threads\n", qPrintable(algorithm),
            QJsonDocument(QJsonObject::fromVariantMap(given)).toJson(QJsonDocument::Compact).constData(),
            (long long)data->train.rows(), qPrintable(evalName), (long long)data->test.rows(), threads);

        // Prints each checkpoint as it comes (the clock is stopped meanwhile).
        class Progress final : public tb::RunObserver {
        public:
            Progress(std::uint64_t seed, const QString& evalName, bool quiet)
                : m_seed(seed), m_evalName(evalName), m_quiet(quiet)
            {
            }
            void trainingClock(const tb::RunJob&, bool running) override { m_cpu.update(running); }
            void checkpointLogged(const tb::RunJob&, qint64, const tb::MetricPoint& p) override
            {
                if (m_quiet)
                    return;
                std::printf(
                    "  seed %llu  epoch %5.1f  wall %7.2f s  cpu %7.2f s  train %.4f  %s %.4f  loss %.5g\n",
                    (unsigned long long)m_seed, p.epoch, p.trainTime, m_cpu.seconds(), p.trainAccuracy,
                    qPrintable(m_evalName), p.testAccuracy, p.loss);
                std::fflush(stdout);
            }

        private:
            std::uint64_t m_seed;
            QString m_evalName;
            bool m_quiet;
            tb::bench::TrainingCpuClock m_cpu;
        };

        std::vector<double> finals, finalWall, finalCpu, hitWall, hitCpu;
        for (int s = 0; s < seeds; ++s) {
            const std::uint64_t seed = firstSeed + std::uint64_t(s);
            Progress progress(seed, evalName, quiet);
            tb::RunJob job = tb::bench::BenchRunner::job(algorithm, given, data, seed, threads);
            job.datasetDescription = "fashion-mnist";
            const tb::bench::BenchRun run = runner.run(job, &progress);
            run.requireFinished(QStringLiteral("seed %1").arg(seed));
            const tb::RunResult& r = run.result;
            if (r.points.isEmpty())
                throw std::runtime_error("no checkpoint");
            finals.push_back(r.last.testAccuracy);
            finalWall.push_back(r.last.trainTime);
            finalCpu.push_back(run.cpuSeconds.back());
            double hw = NAN, hc = NAN;
            for (int i = 0; i < r.points.size(); ++i)
                if (target > 0 && r.points[i].testAccuracy >= target) {
                    hw = r.points[i].trainTime;
                    hc = run.cpuSeconds[std::size_t(i)];
                    break;
                }
            hitWall.push_back(hw);
            hitCpu.push_back(hc);
            std::printf(
                "seed %llu: final %s accuracy %.4f after %.2f s wall, %.2f s CPU; working memory %.0f MiB, "
                "model %.0f KiB; peak memory %.0f MiB",
                (unsigned long long)seed, qPrintable(evalName), r.last.testAccuracy, r.last.trainTime,
                run.cpuSeconds.back(), run.fact("working_memory_bytes") / 1048576.0,
                run.fact("model_bytes") / 1024.0, double(r.peakMemoryBytes) / 1048576.0);
            if (target > 0)
                std::printf("; reached %.4f at %.2f s wall, %.2f s CPU", target, hw, hc);
            std::printf("\n");
        }
        const auto stats = [](const std::vector<double>& v) { return tb::bench::Spread::of(v).text(4); };
        std::printf("over %d seeds: %s accuracy %s; training wall %s s, CPU %s s\n", seeds,
                    qPrintable(evalName), qPrintable(stats(finals)), qPrintable(stats(finalWall)),
                    qPrintable(stats(finalCpu)));
        if (target > 0)
            std::printf("time to %.4f: wall %s s, CPU %s s\n", target, qPrintable(stats(hitWall)),
                        qPrintable(stats(hitCpu)));
        return 0;
    });
}
