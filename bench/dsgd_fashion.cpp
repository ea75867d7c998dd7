// Fashion-MNIST reproduction of the doubly stochastic gradients' claims (Dai et al. 2014,
// issue 13): the block-preconditioned variant, Algorithm 1 as written and the random-feature
// baseline (2⁸ features), under the paper's two stopping rules — one pass over the data (SC1:
// "epochs": 1 in the parameters) and an equal training-time budget (SC2: --time-budget).
//
//   dsgd_fashion --run 'LABEL=ID {"param": value, ...}' [--run ...] [--seeds 3] [--first-seed 1]
//                [--threads 2] [--time-budget SECONDS] [--binary 0,6] [--train-limit N]
//                [--validation V] [--data DIR] [--csv FILE] [--plot FILE.png] [--title TEXT] [--quick]
//
// ID is dsgd.doubly_stochastic, dsgd.preconditioned or dsgd.random_features_sgd (any algorithm
// runs; the features are the dsgd plugin's facts). Every run goes through the engine's Runner
// as trainbench-cli runs it. The runs are interleaved seed by seed (A B C A B C …) so that a busy
// machine slows all of them alike. The training clock stops while a checkpoint evaluates the
// model (the host's convention); --time-budget S is the run's time budget: Stop at the first
// checkpoint after S seconds of training. --binary a,b keeps two classes (the data set's
// keep_classes; e.g. 0,6: T-shirt/top against Shirt, the stand-in for MNIST8M 8-vs-6) with the
// second as the positive class. --validation V holds out V training rows (seeded) and reports
// accuracy on them instead of the test set (for choosing parameters). --plot writes test error
// against training time (FILE.png) and against the number of random features
// (FILE-features.png), the mean over seeds per checkpoint. --quick without --run runs the three
// methods of docs/dsgd.md ("How the experiments' settings were chosen") for one pass on 5000 rows.
// The settings and how they were chosen: that section; the paper's claims: resources/claims/dsgd.json.

#include <support/BenchArguments.h>
#include <support/BenchData.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>
#include <support/CsvWriter.h>
#include <support/Spread.h>

#include <charts/ChartRenderer.h>

#include <QChart>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <cmath>
#include <cstdio>
#include <memory>

namespace {

using tb::bench::BenchArguments;

struct RunSpec {
    QString label;
    QString id;
    QVariantMap params;
};

struct Point {
    double epoch, seconds, features, accuracy;
};

// "LABEL=ID {params}".
RunSpec parseRun(const QString& v)
{
    const int eq = int(v.indexOf('=')), sp = int(v.indexOf(' ', eq));
    if (eq < 1)
        throw BenchArguments::Error("--run: expected LABEL=ID {params}, got \"" + v.toStdString() + "\"");
    RunSpec r;
    r.label = v.left(eq);
    r.id = (sp < 0 ? v.mid(eq + 1) : v.mid(eq + 1, sp - eq - 1)).trimmed();
    if (sp >= 0) {
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(v.mid(sp + 1).toUtf8(), &err);
        if (!doc.isObject())
            throw BenchArguments::Error("--run " + r.label.toStdString() + ": " +
                                        err.errorString().toStdString());
        r.params = doc.object().toVariantMap();
    }
    return r;
}

// The random features a dsgd trainer holds at its latest checkpoint, from its facts.
double featuresOf(const QJsonObject& facts)
{
    const QJsonArray perCheckpoint = facts.value("checkpoint_features").toArray();
    if (!perCheckpoint.isEmpty())
        return perCheckpoint.last().toDouble();
    return facts.value("features").toDouble(0);
}

// Collects each checkpoint (with the features the trainer reported by then) and prints it.
class Curve final : public tb::RunObserver {
public:
    Curve(QString label, std::uint64_t seed, const char* evalName)
        : m_label(std::move(label)), m_seed(seed), m_evalName(evalName)
    {
    }
    std::vector<Point> points;

    void modelReady(const tb::RunJob&, const tb::Trainer&, const tb::MetricPoint& p, const QJsonObject& facts,
                    bool final) override
    {
        if (final)
            return;
        points.push_back({p.epoch, p.trainTime, featuresOf(facts), p.testAccuracy});
        std::printf("  %-12s seed %llu  epoch %7.3f  %8.2f s  %8.0f features  %s accuracy %.4f\n",
                    qPrintable(m_label), (unsigned long long)m_seed, p.epoch, p.trainTime,
                    points.back().features, m_evalName, p.testAccuracy);
        std::fflush(stdout);
    }

private:
    QString m_label;
    std::uint64_t m_seed;
    const char* m_evalName;
};

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

void plot(const QString& title, const std::vector<RunSpec>& runs,
          const std::vector<std::vector<std::vector<Point>>>& all, bool byFeatures, const QString& path)
{
    auto* chart = new QChart;
    chart->setTitle(title.isEmpty() ? QStringLiteral("Fashion-MNIST") : title);
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
    const QColor colours[] = {QColor(31, 119, 180), QColor(214, 39, 40), QColor(44, 160, 44),
                              QColor(148, 103, 189), QColor(255, 127, 14)};
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
    BenchArguments args("dsgd_fashion",
                        "The doubly stochastic gradients plugin on Fashion-MNIST through the engine's "
                        "Runner: test accuracy against training time and random features, seeds "
                        "interleaved.");
    args.add("run", "'LABEL=ID {params}'", "a run (repeat the option for several)");
    args.add(BenchArguments::Common::Seeds, "3", "1", "seeds first-seed … first-seed + N − 1");
    args.add(BenchArguments::Common::FirstSeed, "1");
    args.add(BenchArguments::Common::Threads, "2");
    args.add(BenchArguments::Common::TimeBudget, "0");
    args.add("binary", "A,B", "keep classes A and B (B positive): a binary problem");
    args.add(BenchArguments::Common::TrainLimit, "0", "5000");
    args.add(BenchArguments::Common::Validation, "0");
    args.add(BenchArguments::Common::Data);
    args.add(BenchArguments::Common::Csv);
    args.add(BenchArguments::Common::Plot, {}, {}, "and FILE-features.png");
    args.add(BenchArguments::Common::Title);
    return tb::bench::benchMain(argc, argv, args, {.charts = true}, [&] {
        std::vector<RunSpec> runs;
        for (const QString& v : args.values("run"))
            runs.push_back(parseRun(v));
        if (runs.empty() && args.quick())
            for (const char* v : {"preconditioned=dsgd.preconditioned {\"epochs\": 1, \"batch_size\": 1000, "
                                  "\"bandwidth_scale\": 0.7071}",
                                  "Algorithm 1=dsgd.doubly_stochastic {\"epochs\": 1, \"batch_size\": 500, "
                                  "\"features_per_step\": 32, "
                                  "\"theta\": 10, \"t0\": 1000, \"nu\": 0}",
                                  "r-SGD 2^8=dsgd.random_features_sgd {\"epochs\": 1, \"features\": 256, "
                                  "\"batch_size\": 32, \"theta\": 1, "
                                  "\"t0\": 1000}"})
                runs.push_back(parseRun(QString::fromUtf8(v)));
        if (runs.empty())
            throw BenchArguments::Error("give at least one --run LABEL=ID {params} (or --quick)");
        const int seeds = int(args.integer("seeds", 1));
        const std::uint64_t firstSeed = args.seed("first-seed");
        const int threads = int(args.integer("threads", 1, 1024));
        const double timeBudget = args.real("time-budget", 0);
        const Eigen::Index validation = args.integer("validation", 0);
        QJsonObject extra;
        if (!args.text("binary").isEmpty()) {
            const QList<qint64> classes = args.integers("binary", 0, 9);
            if (classes.size() != 2)
                throw args.invalid("binary", "expected two class indices, e.g. 0,6");
            extra.insert("keep_classes", QJsonArray{double(classes[0]), double(classes[1])});
        }
        const tb::bench::BenchRunner runner;
        for (const RunSpec& r : runs)
            runner.normalise(r.id, r.params); // a bad parameter fails here, before any run
        tb::data::DatasetPair loaded =
            tb::bench::BenchData::load(tb::bench::BenchData::fashionMnistSpec(args, extra));
        if (validation > 0)
            tb::bench::BenchData::holdOut(loaded, validation, tb::bench::BenchData::Order::Source);
        const auto data = std::make_shared<const tb::data::DatasetPair>(std::move(loaded));
        const char* evalName = validation > 0 ? "validation" : "test";
        std::printf("data: %lld training rows, %lld %s rows, %lld inputs, %lld classes\n",
                    (long long)data->train.rows(), (long long)data->test.rows(), evalName,
                    (long long)data->train.inputs(), (long long)data->train.outputs());
        std::unique_ptr<tb::bench::CsvWriter> csv;
        if (!args.text("csv").isEmpty())
            csv = std::make_unique<tb::bench::CsvWriter>(
                args.text("csv"), QStringList{"label", "seed", "checkpoint", "epoch", "train_seconds",
                                              "features", "test_accuracy"});

        // all[run][seed] = checkpoints
        std::vector<std::vector<std::vector<Point>>> all(runs.size());
        for (int s = 0; s < seeds; ++s) {
            const std::uint64_t seed = firstSeed + std::uint64_t(s);
            for (std::size_t r = 0; r < runs.size(); ++r) {
                const RunSpec& spec = runs[r];
                tb::RunJob job = tb::bench::BenchRunner::job(spec.id, spec.params, data, seed, threads);
                job.label = spec.label;
                job.datasetDescription = "fashion-mnist";
                job.budget = tb::RunBudget{timeBudget, tb::ClockKind::Wall};
                Curve curve(spec.label, seed, evalName);
                const tb::bench::BenchRun run = runner.run(job, &curve);
                run.requireFinished(QStringLiteral("%1 seed %2").arg(spec.label).arg(seed));
                if (curve.points.empty())
                    throw std::runtime_error(qPrintable(spec.label + ": no checkpoint"));
                const Point& last = curve.points.back();
                const QJsonObject cost = run.result.info.value("predicted_cost").toObject();
                std::printf(
                    "%s seed %llu: %s accuracy %.4f after %.2f s of training (%.0f features, epoch %.3f; "
                    "predicted %.3g flops, %.3g MiB; working memory %.3g MiB; peak %.3g MiB)\n",
                    qPrintable(spec.label), (unsigned long long)seed, evalName, last.accuracy,
                    run.result.trainSeconds, last.features, last.epoch, cost.value("flops").toDouble(),
                    cost.value("memory_bytes").toDouble() / 1048576.0,
                    run.fact("working_memory_bytes") / 1048576.0,
                    double(run.result.peakMemoryBytes) / 1048576.0);
                if (csv)
                    for (std::size_t i = 0; i < curve.points.size(); ++i) {
                        const Point& p = curve.points[i];
                        csv->addRow({spec.label, QString::number(seed), QString::number(i),
                                     tb::bench::CsvWriter::fixed(p.epoch, 6),
                                     tb::bench::CsvWriter::fixed(p.seconds, 4),
                                     tb::bench::CsvWriter::fixed(p.features, 0),
                                     tb::bench::CsvWriter::fixed(p.accuracy, 6)});
                    }
                all[r].push_back(std::move(curve.points));
            }
        }
        if (csv)
            csv->close();

        std::printf("\nsummary over %d seeds (final checkpoint): mean ± sample std\n", seeds);
        for (std::size_t r = 0; r < runs.size(); ++r) {
            std::vector<double> acc, secs, feats;
            for (const auto& c : all[r]) {
                acc.push_back(c.back().accuracy);
                secs.push_back(c.back().seconds);
                feats.push_back(c.back().features);
            }
            const auto a = tb::bench::Spread::of(acc), t = tb::bench::Spread::of(secs),
                       f = tb::bench::Spread::of(feats);
            std::printf("  %-14s accuracy %.4f ± %.4f (min %.4f, max %.4f)   training %.2f ± %.2f s   "
                        "features %.0f\n",
                        qPrintable(runs[r].label), a.mean, a.std, a.min, a.max, t.mean, t.std, f.mean);
        }
        if (!args.text("plot").isEmpty()) {
            QString base = args.text("plot");
            if (base.endsWith(".png"))
                base.chop(4);
            plot(args.text("title"), runs, all, false, base + ".png");
            plot(args.text("title"), runs, all, true, base + "-features.png");
        }
        return 0;
    });
}
