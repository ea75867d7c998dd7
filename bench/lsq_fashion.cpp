// Least Squares Revisited (Agarwal et al. 2014) on Fashion-MNIST: accuracy against training time
// (wall and CPU) per checkpoint, over seeds, and the features LIBLINEAR is compared on.
//
//   lsq_fashion --algo lsq.stagewise --params '{"flavour":"logistic","pca":50}' [--seeds 3]
//               [--first-seed 1] [--threads 2] [--validation 10000] [--limit-train N]
//               [--target 0.888] [--data DIR] [--quiet]
//   lsq_fashion --dump-libsvm PREFIX --params '{"features":"gaussian_cos","feature_count":1000,"pca":50}'
//
// Trains the algorithm once per seed in a TBB arena of --threads workers, exactly as the host
// would call it (TestRunContext), and reports per checkpoint the training time with the host's
// convention (the clock stops while the checkpoint evaluates the model), the process CPU time
// spent training (likewise paused: a loaded machine stretches wall time, not CPU time), and train
// and test accuracy. --validation V holds out V seeded training rows and reports accuracy on them
// instead of the test set: that is how parameters were chosen. --target A prints, per seed, the
// first checkpoint whose accuracy reaches A (wall and CPU seconds).
// --dump-libsvm PREFIX writes the features lsq.gls would fit (the same PCA, bandwidth and seeded
// random features, seed --first-seed) to PREFIX.train and PREFIX.test in LIBSVM format (labels
// 1 … 10), for `liblinear-train` on the same features (bench/README.md, "Figure 2 analogue").
// Results are recorded in bench/README.md, section "Least Squares Revisited".

#include <CalibratedTrainer.h>
#include <FeatureMap.h>
#include <GlsTrainer.h>
#include <IdxLoader.h>
#include <LsqConfig.h>
#include <Metrics.h>
#include <ProcessSetup.h>
#include <Rng.h>
#include <StagewiseTrainer.h>

#include <trainbench/testing/TestRunContext.h>

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}
double cpuNow()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Args {
    QString algo = QStringLiteral("lsq.stagewise");
    QVariantMap params;
    int seeds = 1;
    std::uint64_t firstSeed = 1;
    int threads = 2;
    Eigen::Index validation = 0;
    Eigen::Index limitTrain = -1;
    double target = 0.0;
    QString dir;
    QString dump;
    bool quiet = false;
};

Args parse(int argc, char** argv)
{
    Args a;
    for (int i = 1; i < argc; ++i) {
        const QString k = QString::fromLocal8Bit(argv[i]);
        auto next = [&]() -> QString {
            if (i + 1 >= argc)
                throw std::runtime_error("missing value after " + k.toStdString());
            return QString::fromLocal8Bit(argv[++i]);
        };
        if (k == "--algo")
            a.algo = next();
        else if (k == "--params") {
            QJsonParseError e;
            const QJsonDocument doc = QJsonDocument::fromJson(next().toUtf8(), &e);
            if (!doc.isObject())
                throw std::runtime_error("--params: not a JSON object: " + e.errorString().toStdString());
            a.params = doc.object().toVariantMap();
        } else if (k == "--seeds")
            a.seeds = next().toInt();
        else if (k == "--first-seed")
            a.firstSeed = next().toULongLong();
        else if (k == "--threads")
            a.threads = next().toInt();
        else if (k == "--validation")
            a.validation = next().toLongLong();
        else if (k == "--limit-train")
            a.limitTrain = next().toLongLong();
        else if (k == "--target")
            a.target = next().toDouble();
        else if (k == "--data")
            a.dir = next();
        else if (k == "--dump-libsvm")
            a.dump = next();
        else if (k == "--quiet")
            a.quiet = true;
        else
            throw std::runtime_error("unknown option " + k.toStdString() + " (see the comment at the top of lsq_fashion.cpp)");
    }
    return a;
}

tb::lsq::Algorithm algorithmOf(const QString& id)
{
    if (id == "lsq.gls")
        return tb::lsq::Algorithm::Gls;
    if (id == "lsq.calibrated")
        return tb::lsq::Algorithm::Calibrated;
    if (id == "lsq.stagewise")
        return tb::lsq::Algorithm::Stagewise;
    throw std::runtime_error("--algo: unknown algorithm " + id.toStdString());
}

std::unique_ptr<tb::lsq::LsqTrainer> makeTrainer(tb::lsq::Algorithm a, const QVariantMap& given)
{
    QString err;
    const auto p = tb::lsq::LsqConfig::schema(a).normalise(given, &err);
    if (!p)
        throw std::runtime_error("--params: " + err.toStdString());
    const tb::lsq::LsqConfig c = tb::lsq::LsqConfig::fromParams(*p, a);
    switch (a) {
    case tb::lsq::Algorithm::Gls: return std::make_unique<tb::lsq::GlsTrainer>(c);
    case tb::lsq::Algorithm::Calibrated: return std::make_unique<tb::lsq::CalibratedTrainer>(c);
    case tb::lsq::Algorithm::Stagewise: return std::make_unique<tb::lsq::StagewiseTrainer>(c);
    }
    return nullptr;
}

// LIBSVM rows "label index:value …" (1-based indices, every feature: the features are dense).
void writeLibsvm(const QString& path, const Eigen::MatrixXd& f, const Eigen::MatrixXd& y)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        throw std::runtime_error("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
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
void dumpFeatures(const Args& args, const tb::data::Dataset& train, const tb::data::Dataset& test)
{
    QString err;
    const auto p = tb::lsq::LsqConfig::schema(tb::lsq::Algorithm::Gls).normalise(args.params, &err);
    if (!p)
        throw std::runtime_error("--params: " + err.toStdString());
    const tb::lsq::LsqConfig c = tb::lsq::LsqConfig::fromParams(*p, tb::lsq::Algorithm::Gls);
    tbb::task_arena(args.threads).execute([&] {
        tb::train::FeatureMap map;
        Eigen::MatrixXd ztrain, ztest;
        map.fit(train.x, c.features, args.firstSeed, {}, {}, nullptr, ztrain);
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
        writeLibsvm(args.dump + ".train", ftrain, train.y);
        writeLibsvm(args.dump + ".test", ftest, test.y);
        std::printf("wrote %s.train (%lld rows) and %s.test (%lld rows)\n", qPrintable(args.dump),
                    (long long)ftrain.rows(), qPrintable(args.dump), (long long)ftest.rows());
    });
}

struct Point {
    double epoch, wall, cpu, train, eval, loss;
};

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
        tb::data::DatasetPair data = tb::data::IdxLoader::loadFashionMnist(dir, args.limitTrain, -1, 1);
        tb::data::Dataset train = std::move(data.train), eval = std::move(data.test);
        QString evalName = QStringLiteral("test");
        if (args.validation > 0) {
            // Hold out seeded training rows; the test set is not touched.
            tb::data::Rng rng(12345, tb::data::Rng::Split);
            std::vector<Eigen::Index> perm(std::size_t(train.rows()));
            std::iota(perm.begin(), perm.end(), Eigen::Index(0));
            for (std::size_t i = perm.size(); i > 1; --i)
                std::swap(perm[i - 1], perm[std::size_t(rng.below(i))]);
            const Eigen::Index v = args.validation, rest = train.rows() - v;
            tb::data::Dataset fit, val;
            fit.task = val.task = train.task;
            fit.x.resize(rest, train.inputs());
            fit.y.resize(rest, train.outputs());
            val.x.resize(v, train.inputs());
            val.y.resize(v, train.outputs());
            for (Eigen::Index i = 0; i < train.rows(); ++i) {
                const Eigen::Index r = perm[std::size_t(i)];
                if (i < v) {
                    val.x.row(i) = train.x.row(r);
                    val.y.row(i) = train.y.row(r);
                } else {
                    fit.x.row(i - v) = train.x.row(r);
                    fit.y.row(i - v) = train.y.row(r);
                }
            }
            train = std::move(fit);
            eval = std::move(val);
            evalName = QStringLiteral("validation");
        }
        if (!args.dump.isEmpty()) {
            dumpFeatures(args, train, eval);
            return 0;
        }
        const tb::lsq::Algorithm algo = algorithmOf(args.algo);
        std::printf("%s %s, %lld training rows, %s %lld rows, %d threads\n", qPrintable(args.algo),
                    QJsonDocument(QJsonObject::fromVariantMap(args.params)).toJson(QJsonDocument::Compact).constData(),
                    (long long)train.rows(), qPrintable(evalName), (long long)eval.rows(), args.threads);
        std::vector<double> finals, finalWall, finalCpu, hitWall, hitCpu;
        for (int s = 0; s < args.seeds; ++s) {
            const std::uint64_t seed = args.firstSeed + std::uint64_t(s);
            auto trainer = makeTrainer(algo, args.params);
            tb::testing::TestRunContext ctx(seed, args.threads);
            std::vector<Point> points;
            double wall = 0, cpu = 0;
            auto t0 = Clock::now();
            double c0 = cpuNow();
            ctx.onCheckpoint = [&](const tb::Checkpoint& cp) {
                wall += since(t0);
                cpu += cpuNow() - c0;
                const double tr = tb::num::accuracy(trainer->predict(train.x), train.y);
                const double ev = tb::num::accuracy(trainer->predict(eval.x), eval.y);
                points.push_back({cp.epoch, wall, cpu, tr, ev, cp.loss});
                if (!args.quiet)
                    std::printf("  seed %llu  epoch %5.1f  wall %7.2f s  cpu %7.2f s  train %.4f  %s %.4f  loss %.5g\n",
                                (unsigned long long)seed, cp.epoch, wall, cpu, tr, qPrintable(evalName), ev, cp.loss);
                std::fflush(stdout);
                t0 = Clock::now();
                c0 = cpuNow();
            };
            tbb::task_arena(args.threads).execute([&] {
                t0 = Clock::now();
                c0 = cpuNow();
                trainer->fit(tb::DatasetView(train.x, train.y, train.task), ctx);
            });
            if (points.empty())
                throw std::runtime_error("no checkpoint");
            finals.push_back(points.back().eval);
            finalWall.push_back(points.back().wall);
            finalCpu.push_back(points.back().cpu);
            double hw = NAN, hc = NAN;
            for (const Point& p : points)
                if (args.target > 0 && p.eval >= args.target) {
                    hw = p.wall;
                    hc = p.cpu;
                    break;
                }
            hitWall.push_back(hw);
            hitCpu.push_back(hc);
            std::printf("seed %llu: final %s accuracy %.4f after %.2f s wall, %.2f s CPU; working memory %.0f MiB, model "
                        "%.0f KiB",
                        (unsigned long long)seed, qPrintable(evalName), points.back().eval, points.back().wall,
                        points.back().cpu, trainer->workingMemoryBytes() / 1048576.0, trainer->modelBytes() / 1024.0);
            if (args.target > 0)
                std::printf("; reached %.4f at %.2f s wall, %.2f s CPU", args.target, hw, hc);
            std::printf("\n");
        }
        const auto stats = [](const std::vector<double>& v) {
            const tb::num::MeanStd m = tb::num::meanStd(v);
            const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
            return QStringLiteral("%1 ± %2 (%3 … %4)").arg(m.mean, 0, 'f', 4).arg(m.std, 0, 'f', 4).arg(*lo, 0, 'f', 4).arg(*hi, 0, 'f', 4);
        };
        std::printf("over %d seeds: %s accuracy %s; training wall %s s, CPU %s s\n", args.seeds, qPrintable(evalName),
                    qPrintable(stats(finals)), qPrintable(stats(finalWall)), qPrintable(stats(finalCpu)));
        if (args.target > 0)
            std::printf("time to %.4f: wall %s s, CPU %s s\n", args.target, qPrintable(stats(hitWall)),
                        qPrintable(stats(hitCpu)));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lsq_fashion: %s\n", e.what());
        return 1;
    }
}
