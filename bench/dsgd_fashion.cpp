// Fashion-MNIST reproduction of the doubly stochastic gradients' claims (Dai et al. 2014,
// issue 13): the block-preconditioned variant, Algorithm 1 as written and the random-feature
// baseline (2⁸ features), under the paper's two stopping rules — one pass over the data (SC1:
// "epochs": 1 in the parameters) and an equal training-time budget (SC2: --time-budget).
//
//   dsgd_fashion --run 'LABEL=ID {"param": value, ...}' [--run ...] [--seeds 3] [--first-seed 1]
//                [--threads 2] [--time-budget SECONDS] [--binary 0,6] [--limit-train N]
//                [--validation V] [--data DIR] [--csv FILE] [--plot FILE.png] [--title TEXT]
//
// ID is dsgd.doubly_stochastic, dsgd.preconditioned or dsgd.random_features_sgd. The runs are
// interleaved seed by seed (A B C A B C …) so that a busy machine slows all of them alike. The
// training clock stops while a checkpoint evaluates the model on the test set (the host's
// convention); --time-budget S answers Stop at the first checkpoint after S seconds of training.
// --binary a,b keeps two classes (e.g. 0,6: T-shirt/top against Shirt, the stand-in for MNIST8M
// 8-vs-6) with the second as the positive class. --validation V holds out V training rows
// (seeded) and reports accuracy on them instead of the test set (for choosing parameters).
// --plot writes test error against training time (FILE.png) and against the number of random
// features (FILE-features.png), the mean over seeds per checkpoint. Results: bench/README.md,
// section "Doubly stochastic gradients".

#include <ClassSubset.h>
#include <DsgdConfig.h>
#include <DsgdTrainer.h>
#include <IdxLoader.h>
#include <Metrics.h>
#include <ProcessSetup.h>
#include <RandomFeatureSgdTrainer.h>
#include <Rng.h>
#include <trainbench/testing/TestRunContext.h>

#include <ChartRenderer.h>

#include <QApplication>
#include <QChart>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>
#include <tbb/task_arena.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <random>

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct RunSpec {
    QString label;
    QString id;
    QVariantMap params;
};

struct Point {
    double epoch, seconds, features, accuracy;
};

struct Args {
    std::vector<RunSpec> runs;
    int seeds = 3;
    std::uint64_t firstSeed = 1;
    int threads = 2;
    double timeBudget = 0;
    std::vector<int> binary;
    Eigen::Index limitTrain = -1;
    Eigen::Index validation = 0;
    QString dir, csv, plot, title;
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
        if (k == "--run") {
            const QString v = next();
            const int eq = int(v.indexOf('=')), sp = int(v.indexOf(' ', eq));
            if (eq < 1)
                throw std::invalid_argument("--run needs LABEL=ID {params}");
            RunSpec r;
            r.label = v.left(eq);
            r.id = (sp < 0 ? v.mid(eq + 1) : v.mid(eq + 1, sp - eq - 1)).trimmed();
            if (sp >= 0) {
                QJsonParseError err;
                const QJsonDocument doc = QJsonDocument::fromJson(v.mid(sp + 1).toUtf8(), &err);
                if (!doc.isObject())
                    throw std::invalid_argument("--run " + r.label.toStdString() + ": " + err.errorString().toStdString());
                r.params = doc.object().toVariantMap();
            }
            a.runs.push_back(r);
        } else if (k == "--seeds")
            a.seeds = next().toInt();
        else if (k == "--first-seed")
            a.firstSeed = next().toULongLong();
        else if (k == "--threads")
            a.threads = next().toInt();
        else if (k == "--time-budget")
            a.timeBudget = next().toDouble();
        else if (k == "--binary") {
            for (const QString& c : next().split(','))
                a.binary.push_back(c.toInt());
            if (a.binary.size() != 2)
                throw std::invalid_argument("--binary needs two class indices, e.g. 0,6");
        } else if (k == "--limit-train")
            a.limitTrain = next().toLongLong();
        else if (k == "--validation")
            a.validation = next().toLongLong();
        else if (k == "--data")
            a.dir = next();
        else if (k == "--csv")
            a.csv = next();
        else if (k == "--plot")
            a.plot = next();
        else if (k == "--title")
            a.title = next();
        else
            throw std::invalid_argument("unknown option " + k);
    }
    if (a.runs.empty())
        throw std::invalid_argument("give at least one --run LABEL=ID {params}");
    return a;
}

std::unique_ptr<tb::Trainer> makeTrainer(const RunSpec& r)
{
    const auto a = tb::dsgd::DsgdConfig::fromId(r.id);
    if (!a || *a == tb::dsgd::Algorithm::KernelRidge)
        throw std::invalid_argument("unknown or unsupported algorithm " + r.id.toStdString());
    QString err;
    const auto p = tb::dsgd::DsgdConfig::schema(*a).normalise(r.params, &err);
    if (!p)
        throw std::invalid_argument(r.label.toStdString() + ": " + err.toStdString());
    const tb::dsgd::DsgdConfig c = tb::dsgd::DsgdConfig::fromParams(*a, *p);
    if (*a == tb::dsgd::Algorithm::RandomFeatureSgd)
        return std::make_unique<tb::dsgd::RandomFeatureSgdTrainer>(c);
    return std::make_unique<tb::dsgd::DsgdTrainer>(c);
}

double featuresOf(const tb::Trainer& t)
{
    if (auto* d = dynamic_cast<const tb::dsgd::DsgdTrainer*>(&t))
        return double(d->model().features());
    if (auto* r = dynamic_cast<const tb::dsgd::RandomFeatureSgdTrainer*>(&t))
        return double(r->model().features());
    return 0;
}

// Mean over seeds at each checkpoint index reached by every seed.
std::vector<Point> meanCurve(const std::vector<std::vector<Point>>& curves)
{
    std::size_t n = SIZE_MAX;
    for (const auto& c : curves)
        n = std::min(n, c.size());
    std::vector<Point> out;
    for (std::size_t i = 0; i < n && !curves.empty(); ++i) {
        Point m{0, 0, 0, 0};
        for (const auto& c : curves) {
            m.epoch += c[i].epoch;
            m.seconds += c[i].seconds;
            m.features += c[i].features;
            m.accuracy += c[i].accuracy;
        }
        const double k = double(curves.size());
        out.push_back({m.epoch / k, m.seconds / k, m.features / k, m.accuracy / k});
    }
    return out;
}

void plot(const Args& args, const std::vector<RunSpec>& runs, const std::vector<std::vector<std::vector<Point>>>& all,
          bool byFeatures, const QString& path)
{
    auto* chart = new QChart;
    chart->setTitle(args.title.isEmpty() ? QStringLiteral("Fashion-MNIST") : args.title);
    auto* x = new QLogValueAxis;
    x->setBase(10);
    x->setLabelFormat(byFeatures ? "%g" : "%g");
    x->setTitleText(byFeatures ? "random features" : "training time (s)");
    x->setMinorTickCount(8);
    auto* y = new QValueAxis;
    y->setTitleText("test error (%)");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double lo = 100, hi = 0, xlo = 1e300, xhi = 0;
    const QColor colours[] = {QColor(31, 119, 180), QColor(214, 39, 40), QColor(44, 160, 44), QColor(148, 103, 189),
                              QColor(255, 127, 14)};
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const std::vector<Point> mean = meanCurve(all[r]);
        auto* s = new QLineSeries;
        s->setName(runs[r].label);
        QPen pen(colours[r % 5]);
        pen.setWidthF(2.0);
        s->setPen(pen);
        for (const Point& p : mean) {
            const double xv = byFeatures ? p.features : p.seconds;
            if (!(xv > 0))
                continue;
            const double err = 100.0 * (1.0 - p.accuracy);
            s->append(xv, err);
            lo = std::min(lo, err);
            hi = std::max(hi, err);
            xlo = std::min(xlo, xv);
            xhi = std::max(xhi, xv);
        }
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        if (byFeatures && s->count() > 0 && xlo == xhi) {
            // Fixed features: every checkpoint at one x. Show them as points too.
            auto* pts = new QScatterSeries;
            pts->setColor(colours[r % 5]);
            pts->setMarkerSize(7);
            for (const QPointF& q : s->points())
                pts->append(q);
            chart->addSeries(pts);
            pts->attachAxis(x);
            pts->attachAxis(y);
            chart->legend()->markers(pts).first()->setVisible(false);
        }
    }
    hi = std::min(hi, lo + 40.0);
    y->setRange(std::floor(lo) - 0.5, std::ceil(hi) + 0.5);
    x->setRange(std::pow(10, std::floor(std::log10(xlo))), std::pow(10, std::ceil(std::log10(xhi))));
    chart->legend()->setAlignment(Qt::AlignTop);
    if (!tb::charts::ChartRenderer::savePng(chart, path))
        throw std::runtime_error("cannot write " + path.toStdString());
    std::printf("wrote %s\n", qPrintable(path));
    delete chart;
}

} // namespace

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv);
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    Args args;
    try {
        args = parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "dsgd_fashion: %s\n", e.what());
        return 2;
    }
    const QString dir = args.dir.isEmpty() ? tb::data::IdxLoader::fashionMnistDir() : args.dir;
    const auto t0 = Clock::now();
    tb::data::DatasetPair data = tb::data::IdxLoader::loadFashionMnist(dir, args.limitTrain, -1, 1);
    if (!args.binary.empty()) {
        data = tb::data::ClassSubset::keep(data, args.binary);
    }
    tb::data::Dataset train = data.train, eval = data.test;
    if (args.validation > 0) {
        std::vector<Eigen::Index> order(std::size_t(data.train.rows()));
        std::iota(order.begin(), order.end(), Eigen::Index(0));
        std::mt19937_64 g(12345);
        std::shuffle(order.begin(), order.end(), g);
        const std::vector<Eigen::Index> valRows(order.begin(), order.begin() + args.validation);
        const std::vector<Eigen::Index> trainRows(order.begin() + args.validation, order.end());
        auto take = [&](const std::vector<Eigen::Index>& rows) {
            tb::data::Dataset s;
            s.task = data.train.task;
            s.classNames = data.train.classNames;
            s.x = data.train.x(rows, Eigen::all);
            s.y = data.train.y(rows, Eigen::all);
            for (Eigen::Index r : rows)
                s.labels.push_back(data.train.labels[std::size_t(r)]);
            return s;
        };
        train = take(trainRows);
        eval = take(valRows);
    }
    std::printf("data: %lld training rows, %lld %s rows, %lld inputs, %lld classes (%.1f s to load)\n",
                (long long)train.rows(), (long long)eval.rows(), args.validation > 0 ? "validation" : "test",
                (long long)train.inputs(), (long long)train.y.cols(), since(t0));
    std::FILE* csv = args.csv.isEmpty() ? nullptr : std::fopen(qPrintable(args.csv), "w");
    if (csv)
        std::fprintf(csv, "label,seed,checkpoint,epoch,train_seconds,features,test_accuracy\n");

    // all[run][seed] = checkpoints
    std::vector<std::vector<std::vector<Point>>> all(args.runs.size());
    tbb::task_arena arena(args.threads);
    for (int s = 0; s < args.seeds; ++s) {
        const std::uint64_t seed = args.firstSeed + std::uint64_t(s);
        for (std::size_t r = 0; r < args.runs.size(); ++r) {
            const RunSpec& spec = args.runs[r];
            std::unique_ptr<tb::Trainer> trainer = makeTrainer(spec);
            tb::testing::TestRunContext ctx(seed, args.threads);
            std::vector<Point> points;
            double training = 0;
            Clock::time_point tStart = Clock::now();
            ctx.onCheckpoint = [&](const tb::Checkpoint& cp) {
                training += since(tStart);
                const double acc = tb::num::accuracy(trainer->predict(eval.x), eval.y);
                points.push_back({cp.epoch, training, featuresOf(*trainer), acc});
                std::printf("  %-12s seed %llu  epoch %7.3f  %8.2f s  %8.0f features  %s accuracy %.4f\n",
                            qPrintable(spec.label), (unsigned long long)seed, cp.epoch, training,
                            points.back().features, args.validation > 0 ? "validation" : "test", acc);
                std::fflush(stdout);
                tStart = Clock::now();
            };
            ctx.answerCheckpoint = [&](const tb::Checkpoint&) {
                return args.timeBudget > 0 && training >= args.timeBudget ? tb::CheckpointAction::Stop
                                                                          : tb::CheckpointAction::Continue;
            };
            const tb::data::Dataset& tr = train;
            tb::DatasetView view(tr.x, tr.y, tr.task);
            view.classNames = tr.classNames;
            const QJsonObject cost = trainer->predictCost({tr.rows(), tr.inputs(), tr.y.cols(), tr.task});
            arena.execute([&] {
                tStart = Clock::now();
                trainer->fit(view, ctx);
                training += since(tStart);
            });
            const Point& last = points.back();
            std::printf("%s seed %llu: %s accuracy %.4f after %.2f s of training (%.0f features, epoch %.3f; "
                        "predicted %.3g flops, %.3g MiB; working memory %.3g MiB)\n",
                        qPrintable(spec.label), (unsigned long long)seed, args.validation > 0 ? "validation" : "test",
                        last.accuracy, training, last.features, last.epoch, cost.value("flops").toDouble(),
                        cost.value("memory_bytes").toDouble() / 1048576.0,
                        ctx.records.value("working_memory_bytes").toDouble() / 1048576.0);
            if (csv)
                for (std::size_t i = 0; i < points.size(); ++i)
                    std::fprintf(csv, "%s,%llu,%zu,%.6f,%.4f,%.0f,%.6f\n", qPrintable(spec.label),
                                 (unsigned long long)seed, i, points[i].epoch, points[i].seconds, points[i].features,
                                 points[i].accuracy);
            all[r].push_back(std::move(points));
        }
    }
    if (csv)
        std::fclose(csv);

    std::printf("\nsummary over %d seeds (final checkpoint): mean ± sample std\n", args.seeds);
    for (std::size_t r = 0; r < args.runs.size(); ++r) {
        std::vector<double> acc, secs, feats;
        for (const auto& c : all[r]) {
            acc.push_back(c.back().accuracy);
            secs.push_back(c.back().seconds);
            feats.push_back(c.back().features);
        }
        const auto a = tb::num::meanStd(acc), t = tb::num::meanStd(secs), f = tb::num::meanStd(feats);
        std::printf("  %-14s accuracy %.4f ± %.4f (min %.4f, max %.4f)   training %.2f ± %.2f s   features %.0f\n",
                    qPrintable(args.runs[r].label), a.mean, a.std, *std::min_element(acc.begin(), acc.end()),
                    *std::max_element(acc.begin(), acc.end()), t.mean, t.std, f.mean);
    }
    if (!args.plot.isEmpty()) {
        QString base = args.plot;
        if (base.endsWith(".png"))
            base.chop(4);
        plot(args, args.runs, all, false, base + ".png");
        plot(args, args.runs, all, true, base + "-features.png");
    }
    return 0;
}
