// Palagi & Seccia (2019) Tables 2–8 on the data we have: B2LD against full L-BFGS and BLInG
// against IG, five architectures, several seeds, a time budget per run.
//
//   bld_tables run    --dataset mv|friedman1 --algorithms bld.b2ld,bld.lbfgs [--archs
//   1x50,3x20,200-50-200,5x50,10x50]
//                     [--seeds 3] [--first-seed 1] [--time-budget 30] [--clock cpu|wall] [--share i/k]
//                     [--params '{"key": value}'] --out runs.jsonl [--quick]
//   bld_tables report --in runs.jsonl[,more.jsonl] [--tie 0.05] [--charts DIR]
//
// Data (fixed for every seed, as in the paper: the seeds change the initial weights only),
// loaded as the experiment files of resources/experiments/bld-*.json load them (DataSource):
//  - mv: {"source": "mv", "seed": 1, "min_max_scale": true}: 40768 rows of MvGenerator, split
//    80/20 with seed 1 (32614 train, 8154 test: Table 1's sizes), every column min-max scaled
//    to [0, 1] on the training rows, the target included;
//  - friedman1: Generators::friedman1, 20000 rows × 10 features, noise 1, the same split and
//    scaling.
// Every run goes through the engine's Runner on ONE thread (its own arena), as trainbench-cli
// runs those files, with the host's time budget (time_budget_s = --time-budget on
// time_budget_clock = --clock): with --clock cpu the budget is CPU time of the process, which is why a
// process runs one run at a time; --share i/k runs every k-th job from the i-th, so k processes
// can share the cores (docs/bld.md, "How the settings were chosen", has the commands).
// `run` appends one JSON line per run: final objective f, train and test MSE ((1/P)Σ‖y − ŷ‖², in
// the scaled units), ‖∇f‖₂ at the end, the time the budget clock counted, why it ended, B2LD's
// updates per layer, and the curve (time, f) of its checkpoints on the budget clock (the host's
// training clock, or the process CPU time with the host's pauses). f and ‖∇f‖ are computed on the
// final network the plugin's trainer holds (the training library's objective, as the trainers evaluate
// it): this program measures that on purpose, which is why it links tb_bld_core. `report`
// prints the paper's tables from those lines: best objective over seeds (Table 2/6),
// wins/ties/defeats of the first algorithm with a 5 % tie band (Table 3/4/7), updates per layer
// of the best B2LD run on the deepest net (Table 5), the [10×50]/[1×50] ratio of best objectives
// (Table 8), and with --charts one PNG per dataset and architecture: objective against training
// time, log-log, every seed.

#include <support/BenchArguments.h>
#include <support/BenchData.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>
#include <support/TrainingCpuClock.h>

#include <bld/B2ldTrainer.h>
#include <bld/BldConfig.h>
#include <bld/BldObjective.h>
#include <charts/ChartPalette.h>
#include <charts/ChartRenderer.h>
#include <bld/IncrementalTrainer.h>
#include <bld/LbfgsBaselineTrainer.h>
#include <training/Sampling.h>

#include <QChart>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMap>
#include <QPen>
#include <QSet>
#include <QTextStream>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

namespace {

using namespace tb::bld;
using tb::bench::BenchArguments;

struct Arch {
    QString name; // as in the paper: "1x50", "200-50-200" …
    QVariantList hidden;
};

Arch parseArch(const QString& s)
{
    Arch a{s, {}};
    const QStringList x = s.split('x');
    if (x.size() == 2) {
        for (int i = 0; i < x[0].toInt(); ++i)
            a.hidden << x[1].toInt();
    } else {
        for (const QString& w : s.split('-'))
            a.hidden << w.toInt();
    }
    if (a.hidden.isEmpty() || a.hidden.contains(0))
        throw BenchArguments::Error("--archs: bad architecture \"" + s.toStdString() +
                                    "\" (e.g. 10x50, 200-50-200)");
    return a;
}

QJsonObject dataSpec(const QString& name)
{
    if (name == "mv")
        return {{"source", "mv"}, {"seed", 1}, {"min_max_scale", true}};
    if (name == "friedman1")
        return {{"source", "friedman1"}, {"samples", 20000}, {"features", 10},       {"noise", 1.0},
                {"test_fraction", 0.2},  {"seed", 1},        {"min_max_scale", true}};
    throw BenchArguments::Error("--dataset: expected mv or friedman1, got \"" + name.toStdString() + "\"");
}

// The curve on the budget clock, and the final network the plugin's trainer holds.
class BudgetCurve final : public tb::RunObserver {
public:
    explicit BudgetCurve(bool cpu) : m_cpu(cpu) {}
    QJsonArray curve;
    std::optional<tb::num::Mlp> network;
    Eigen::MatrixXd trainPrediction, testPrediction;
    const tb::data::DatasetPair* data = nullptr;

    void trainingClock(const tb::RunJob&, bool running) override { m_cpuClock.update(running); }
    void checkpointLogged(const tb::RunJob&, qint64, const tb::MetricPoint& p) override
    {
        curve.append(QJsonArray{m_cpu ? m_cpuClock.seconds() : p.trainTime, p.loss});
    }
    void modelReady(const tb::RunJob&, const tb::Trainer& trainer, const tb::MetricPoint&, const QJsonObject&,
                    bool final) override
    {
        if (!final)
            return;
        using tb::bench::BenchRunner;
        if (const auto* t = BenchRunner::pluginTrainer<B2ldTrainer>(trainer))
            network = t->network();
        else if (const auto* t = BenchRunner::pluginTrainer<LbfgsBaselineTrainer>(trainer))
            network = t->network();
        else if (const auto* t = BenchRunner::pluginTrainer<IncrementalTrainer>(trainer))
            network = t->network();
        trainPrediction = trainer.predict(data->train.x);
        testPrediction = trainer.predict(data->test.x);
    }
    double seconds(const tb::bench::BenchRun& run) const
    {
        return m_cpu ? m_cpuClock.seconds() : run.result.trainSeconds;
    }

private:
    bool m_cpu;
    tb::bench::TrainingCpuClock m_cpuClock;
};

QJsonObject runOne(const tb::bench::BenchRunner& runner,
                   const std::shared_ptr<const tb::data::DatasetPair>& data, const QString& dataset,
                   const Arch& arch, const QString& id, std::uint64_t seed, double budget,
                   const QString& clock, const QVariantMap& extra)
{
    const Algorithm a = *BldConfig::algorithmFromId(id);
    QVariantMap p = extra;
    p.insert("hidden", arch.hidden);
    if (a == Algorithm::B2ld)
        p.insert("sweeps", 100000000);
    else if (a == Algorithm::Lbfgs)
        p.insert({{"iterations", 100000000}, {"checkpoint_every", 10}});
    else
        p.insert("epochs", 100000000);
    tb::RunJob job = tb::bench::BenchRunner::job(id, p, data, seed, 1);
    job.datasetDescription = dataset;
    job.budget = tb::RunBudget{budget, clock == QLatin1String("cpu") ? tb::ClockKind::Cpu : tb::ClockKind::Wall};
    BudgetCurve observer(clock == "cpu");
    observer.data = data.get();
    const tb::bench::BenchRun run = runner.run(job, &observer);
    run.requireFinished(QStringLiteral("%1 [%2] seed %3").arg(id, arch.name).arg(seed));
    if (!observer.network)
        throw std::runtime_error(qPrintable(id + ": the plugin's trainer is not this build's class"));
    const tb::data::Dataset& train = data->train;
    tb::num::Mlp copy = *observer.network;
    const double rho = run.fact("rho");
    const Eigen::MatrixXd xt = tb::train::transposedCopy(train.x);
    double f = 0, gnorm = 0;
    tbb::task_arena(1).execute([&] {
        auto obj = makeObjective(copy, xt, train.y, rho);
        Eigen::VectorXd g;
        f = obj->evaluate(copy.flatten(), g);
        gnorm = g.norm();
    });
    const double trainMse = (observer.trainPrediction - train.y).squaredNorm() / double(train.rows());
    const double testMse = (observer.testPrediction - data->test.y).squaredNorm() / double(data->test.rows());
    QJsonObject o{{"dataset", dataset},
                  {"arch", arch.name},
                  {"algorithm", id},
                  {"seed", double(seed)},
                  {"budget", budget},
                  {"clock", clock},
                  {"objective", f},
                  {"train_mse", trainMse},
                  {"test_mse", testMse},
                  {"gradient_norm", gnorm},
                  {"seconds", observer.seconds(run)},
                  {"weights", double(observer.network->parameterCount())},
                  {"end_reason", run.result.info.value("end_reason").toString()},
                  {"curve", observer.curve}};
    if (run.result.info.contains("layer_updates"))
        o.insert("layer_updates", run.result.info.value("layer_updates"));
    return o;
}

int runMode(const BenchArguments& args)
{
    const QString dataset = args.text("dataset");
    const QJsonObject spec = dataSpec(dataset);
    const QStringList ids = args.list("algorithms");
    QList<Arch> archs;
    for (const QString& s : args.list("archs"))
        archs << parseArch(s);
    const int seeds = int(args.integer("seeds", 1));
    const std::uint64_t firstSeed = args.seed("first-seed");
    const double budget = args.real("time-budget", 0);
    const QString clock = args.text("clock");
    if (clock != "cpu" && clock != "wall")
        throw args.invalid("clock", "expected cpu or wall");
    const QStringList share = args.text("share").split('/');
    bool okIndex = false, okShares = false;
    const int shareIndex = share.value(0).toInt(&okIndex), shares = share.value(1).toInt(&okShares);
    if (share.size() != 2 || !okIndex || !okShares || shares < 1 || shareIndex < 0 || shareIndex >= shares)
        throw args.invalid("share", "expected i/k with 0 ≤ i < k");
    const QVariantMap extra = args.jsonObject("params").toVariantMap();
    if (args.text("out").isEmpty())
        throw BenchArguments::Error("run needs --out FILE");
    const tb::bench::BenchRunner runner;
    for (const QString& id : ids)
        if (!BldConfig::algorithmFromId(id))
            throw args.invalid("algorithms", "expected bld.b2ld, bld.lbfgs, bld.bling or bld.ig");
    QFile out(args.text("out"));
    if (!out.open(QIODevice::Append | QIODevice::Text))
        throw std::runtime_error("cannot append to " + out.fileName().toStdString() + ": " +
                                 out.errorString().toStdString());
    const auto data = std::make_shared<const tb::data::DatasetPair>(tb::bench::BenchData::load(spec));
    std::cerr << dataset.toStdString() << ": " << data->train.rows() << " train, " << data->test.rows()
              << " test rows, " << data->train.inputs() << " inputs\n";
    int job = 0;
    for (const Arch& arch : archs)
        for (int s = 0; s < seeds; ++s)
            for (const QString& id : ids) {
                if (job++ % shares != shareIndex)
                    continue;
                const std::uint64_t seed = firstSeed + std::uint64_t(s);
                const QJsonObject r = runOne(runner, data, dataset, arch, id, seed, budget, clock, extra);
                out.write(QJsonDocument(r).toJson(QJsonDocument::Compact) + '\n');
                if (!out.flush())
                    throw std::runtime_error("cannot write " + out.fileName().toStdString());
                std::cerr << arch.name.toStdString() << " seed " << seed << " " << id.toStdString()
                          << ": f = " << r.value("objective").toDouble() << ", test MSE "
                          << r.value("test_mse").toDouble() << ", " << r.value("seconds").toDouble() << " s, "
                          << r.value("end_reason").toString().toStdString() << "\n";
            }
    return 0;
}

QString sci(double v)
{
    return QString::number(v, 'e', 2);
}

void chart(const QString& path, const QString& title, const QList<QJsonObject>& runs, const QStringList& ids)
{
    auto* c = new QChart;
    c->setTitle(title);
    auto* x = new QLogValueAxis;
    x->setTitleText("training time (s, budget clock)");
    x->setLabelFormat("%g");
    auto* y = new QLogValueAxis;
    y->setTitleText("objective f = (1/P)Σ‖y − ŷ‖² + ρ‖w‖²");
    y->setLabelFormat("%.0e");
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    double lo = 1e300, hi = 0, tmax = 0;
    QSet<QString> labelled;
    for (const QJsonObject& r : runs) {
        const int k = int(ids.indexOf(r.value("algorithm").toString()));
        auto* s = new QLineSeries;
        QPen pen(tb::charts::ChartPalette::color(std::max(0, k)));
        pen.setWidthF(1.5);
        s->setPen(pen);
        for (const QJsonValue& v : r.value("curve").toArray()) {
            const double t = std::max(v[0].toDouble(), 1e-3), f = v[1].toDouble();
            if (!(f > 0) || !std::isfinite(f))
                continue;
            s->append(t, f);
            lo = std::min(lo, f);
            hi = std::max(hi, f);
            tmax = std::max(tmax, t);
        }
        s->setName(r.value("algorithm").toString());
        c->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        // One legend entry per algorithm.
        const bool first = !labelled.contains(s->name());
        labelled.insert(s->name());
        for (QLegendMarker* m : c->legend()->markers(s))
            m->setVisible(first);
    }
    x->setRange(1e-3, std::max(1.0, tmax * 1.2));
    y->setRange(lo / 1.5, hi * 1.5);
    QString error;
    if (!tb::charts::ChartRenderer::savePng(c, path, tb::charts::ChartRenderer::defaultSize(), &error))
        throw std::runtime_error(error.toStdString());
    delete c;
}

int reportMode(const BenchArguments& args)
{
    const double tie = args.real("tie", 0, 1);
    QList<QJsonObject> runs;
    if (args.list("in").isEmpty())
        throw BenchArguments::Error("report needs --in FILE[,FILE…]");
    for (const QString& file : args.list("in")) {
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
            throw std::runtime_error("cannot read " + file.toStdString());
        int line = 0;
        while (!f.atEnd()) {
            ++line;
            const QByteArray l = f.readLine().trimmed();
            if (l.isEmpty())
                continue;
            QJsonParseError pe;
            const QJsonDocument d = QJsonDocument::fromJson(l, &pe);
            if (!d.isObject())
                throw std::runtime_error(file.toStdString() + ":" + std::to_string(line) + ": " +
                                         pe.errorString().toStdString());
            runs << d.object();
        }
    }
    // (dataset, pair of algorithms) → arch → seed → algorithm → run
    QStringList datasets, archs, ids;
    for (const QJsonObject& r : runs) {
        for (auto [list, key] : {std::pair{&datasets, "dataset"}, {&archs, "arch"}, {&ids, "algorithm"}})
            if (!list->contains(r.value(key).toString()))
                *list << r.value(key).toString();
    }
    const QStringList paperOrder{"1x50", "3x20", "200-50-200", "5x50", "10x50"};
    std::sort(archs.begin(), archs.end(), [&](const QString& a, const QString& b) {
        return paperOrder.indexOf(a) < paperOrder.indexOf(b);
    });
    QTextStream out(stdout);
    for (const QString& ds : datasets) {
        out << "\n### " << ds << "\n\n";
        // Best objective (and its test MSE, ‖∇f‖, time) per architecture and algorithm.
        out << "| network |";
        for (const QString& id : ids)
            out << " " << id << " best f | test MSE | ‖∇f‖ | s |";
        out << "\n|---|";
        for (int i = 0; i < ids.size(); ++i)
            out << "---|---|---|---|";
        out << "\n";
        std::map<QString, std::map<QString, double>> best;
        for (const QString& arch : archs) {
            out << "| " << arch << " |";
            for (const QString& id : ids) {
                const QJsonObject* b = nullptr;
                for (const QJsonObject& r : runs)
                    if (r.value("dataset") == ds && r.value("arch") == arch && r.value("algorithm") == id &&
                        (!b || r.value("objective").toDouble() < b->value("objective").toDouble()))
                        b = &r;
                if (!b) {
                    out << " – | – | – | – |";
                    continue;
                }
                best[id][arch] = b->value("objective").toDouble();
                out << " " << sci(b->value("objective").toDouble()) << " | "
                    << sci(b->value("test_mse").toDouble()) << " | "
                    << sci(b->value("gradient_norm").toDouble()) << " | "
                    << QString::number(b->value("seconds").toDouble(), 'f', 1) << " |";
            }
            out << "\n";
        }
        // Wins / ties / defeats of the first algorithm against the second, seed by seed.
        if (ids.size() >= 2) {
            for (const char* what : {"objective", "test_mse"}) {
                out << "\n"
                    << ids[0] << " vs " << ids[1] << ", " << what << " [wins ; ties ; defeats], tie band "
                    << tie * 100 << " %:";
                for (const QString& arch : archs) {
                    int w = 0, t = 0, d = 0;
                    QMap<double, QMap<QString, double>> bySeed;
                    for (const QJsonObject& r : runs)
                        if (r.value("dataset") == ds && r.value("arch") == arch)
                            bySeed[r.value("seed").toDouble()][r.value("algorithm").toString()] =
                                r.value(what).toDouble();
                    for (const auto& s : bySeed) {
                        if (!s.contains(ids[0]) || !s.contains(ids[1]))
                            continue;
                        const double a = s.value(ids[0]), b = s.value(ids[1]);
                        if (a < (1 - tie) * b)
                            ++w;
                        else if (b < (1 - tie) * a)
                            ++d;
                        else
                            ++t;
                    }
                    out << "  " << arch << " [" << w << " ; " << t << " ; " << d << "]";
                }
                out << "\n";
            }
            out << "\nbest f on the deepest / shallowest net ([10×50]/[1×50], Table 8):";
            for (const QString& id : ids)
                if (best[id].count("10x50") && best[id].count("1x50"))
                    out << "  " << id << " " << QString::number(best[id]["10x50"] / best[id]["1x50"], 'f', 2);
            out << "\n";
        }
        // Updates per layer of the best B2LD run on [10×50] (Table 5).
        const QJsonObject* b = nullptr;
        for (const QJsonObject& r : runs)
            if (r.value("dataset") == ds && r.value("arch") == "10x50" &&
                r.value("algorithm") == "bld.b2ld" &&
                (!b || r.value("objective").toDouble() < b->value("objective").toDouble()))
                b = &r;
        if (b) {
            out << "\nupdates per layer, best B2LD run on [10×50] (seed " << b->value("seed").toInt() << "):";
            for (const QJsonValue& l : b->value("layer_updates").toArray())
                out << " " << l.toObject().value("updates").toInt();
            out << "\nArmijo fallbacks per layer:";
            for (const QJsonValue& l : b->value("layer_updates").toArray())
                out << " " << l.toObject().value("armijo_fallbacks").toInt();
            out << "\n";
        }
        // Median end reasons and times, for the text.
        for (const QString& id : ids) {
            QMap<QString, int> reasons;
            for (const QJsonObject& r : runs)
                if (r.value("dataset") == ds && r.value("algorithm") == id)
                    ++reasons[r.value("arch").toString() + ": " + r.value("end_reason").toString()];
            out << "\n" << id << " ended by:";
            for (auto it = reasons.begin(); it != reasons.end(); ++it)
                out << "  " << it.key() << " ×" << it.value();
            out << "\n";
        }
        if (!args.text("charts").isEmpty()) {
            QDir().mkpath(args.text("charts"));
            for (const QString& arch : archs) {
                QList<QJsonObject> sel;
                for (const QJsonObject& r : runs)
                    if (r.value("dataset") == ds && r.value("arch") == arch)
                        sel << r;
                const QString path = args.text("charts") + "/bld-" + ds + "-" +
                                     ids.join("-vs-").remove("bld.") + "-" + arch + ".png";
                chart(path, QString("%1 [%2]: %3").arg(ds, arch, ids.join(" vs ")), sel, ids);
                out << "chart: " << path << "\n";
            }
        }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    BenchArguments args("bld_tables",
                        "Palagi & Seccia (2019) Tables 2–8: `run` trains the block-layer "
                        "decomposition algorithms through the engine's Runner and appends one JSON "
                        "line per run; `report` prints the paper's tables and draws the charts.");
    args.addPositional("mode", "run or report", "run|report");
    args.add("dataset", "mv|friedman1", "run: the data set", "mv");
    args.add("algorithms", "ID,ID", "run: the algorithms, the first compared with the second",
             "bld.b2ld,bld.lbfgs");
    args.add("archs", "A,A,…", "run: hidden layers, e.g. 10x50 (ten of 50) or 200-50-200",
             "1x50,3x20,200-50-200,5x50,10x50", "1x50");
    args.add(BenchArguments::Common::Seeds, "3", "1", "run: seeds first-seed … first-seed + N − 1");
    args.add(BenchArguments::Common::FirstSeed, "1");
    args.add(BenchArguments::Common::TimeBudget, "30", "2", "run: each run's time budget (time_budget_s)");
    args.add("clock", "cpu|wall", "run: the budget's clock (time_budget_clock)", "cpu");
    args.add("share", "i/k", "run: every k-th run from the i-th (k processes side by side)", "0/1");
    args.add(BenchArguments::Common::Params, {}, {}, "run: added to every run's");
    args.add(BenchArguments::Common::Out, {}, {}, "run: appends a JSON line per run");
    args.add("in", "FILE,FILE", "report: the JSON lines of `run`");
    args.add("tie", "T", "report: the tie band of wins/ties/defeats", "0.05");
    args.add("charts", "DIR", "report: draw one PNG per data set and architecture into DIR");
    // No huge-page restart, as when the recorded tables ran; the charts need a QApplication.
    return tb::bench::benchMain(argc, argv, args, {.hugePages = false, .charts = true}, [&] {
        const QStringList mode = args.positional();
        if (mode.size() != 1)
            throw BenchArguments::Error("expected the mode: run or report (--help lists the options)");
        if (mode[0] == "run")
            return runMode(args);
        if (mode[0] == "report")
            return reportMode(args);
        throw BenchArguments::Error("unknown mode \"" + mode[0].toStdString() + "\": expected run or report");
    });
}
