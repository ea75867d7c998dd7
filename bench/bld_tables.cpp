// Palagi & Seccia (2019) Tables 2–8 on the data we have: B2LD against full L-BFGS and BLInG
// against IG, five architectures, several seeds, a time budget per run.
//
//   bld_tables run    --dataset mv|friedman1 --algorithms bld.b2ld,bld.lbfgs [--archs 1x50,3x20,200-50-200,5x50,10x50]
//                     [--seeds 3] [--first-seed 1] [--budget 30] [--clock cpu|wall] [--share i/k]
//                     [--params '{"key": value}'] --out runs.jsonl
//   bld_tables report --in runs.jsonl[,more.jsonl] [--tie 0.05] [--charts DIR]
//
// Data (fixed for every seed, as in the paper: the seeds change the initial weights only):
//  - mv: tb::data::MvGenerator, 40768 rows, data seed 1, split 80/20 with seed 1 (32614 train,
//    8154 test: Table 1's sizes), every column min-max scaled to [0, 1] on the training rows,
//    the target included;
//  - friedman1: Generators::friedman1, 20000 rows × 10 features, noise 1, the same split and
//    scaling.
// Every run trains on ONE thread (its own arena) with a time budget (--budget seconds on --clock,
// the test double's, as the host's: RunContext::budgetSpent()): with --clock cpu the budget is
// CPU time of the process, which is why a process runs one run at a time; --share i/k runs every k-th job
// from the i-th, so k processes can share the cores (bench/README.md has the commands).
// `run` appends one JSON line per run: final objective f, train and test MSE ((1/P)Σ‖y − ŷ‖²),
// ‖∇f‖₂ at the end, the time the budget clock counted, why it ended, B2LD's updates per layer,
// and the curve (time, f) of its checkpoints. `report` prints the paper's tables from those
// lines: best objective over seeds (Table 2/6), wins/ties/defeats of the first algorithm with a
// 5 % tie band (Table 3/4/7), updates per layer of the best B2LD run on the deepest net (Table
// 5), the [10×50]/[1×50] ratio of best objectives (Table 8), and with --charts one PNG per
// dataset and architecture: objective against training time, log-log, every seed.

#include <B2ldTrainer.h>
#include <BldConfig.h>
#include <BldObjective.h>
#include <ChartPalette.h>
#include <ChartRenderer.h>
#include <Generators.h>
#include <IncrementalTrainer.h>
#include <LbfgsBaselineTrainer.h>
#include <MinMaxScaler.h>
#include <MvGenerator.h>
#include <Sampling.h>
#include <Splits.h>

#include <trainbench/testing/TestRunContext.h>

#include <QApplication>
#include <QChart>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMap>
#include <QTextStream>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>

namespace {

using namespace tb::bld;

struct Arch {
    QString name;       // as in the paper: "1x50", "200-50-200" …
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
    if (a.hidden.isEmpty())
        throw std::invalid_argument("bad architecture " + s.toStdString());
    return a;
}

tb::data::DatasetPair loadData(const QString& name)
{
    tb::data::Dataset d;
    if (name == "mv")
        d = tb::data::MvGenerator::generate(tb::data::MvGenerator::kPaperRows, 1);
    else if (name == "friedman1")
        d = tb::data::Generators::friedman1(20000, 10, 1.0, 1);
    else
        throw std::invalid_argument("unknown dataset " + name.toStdString());
    tb::data::DatasetPair p = tb::data::splitTrainTest(d, 0.2, 1);
    tb::data::scaleMinMax(p, true);
    return p;
}

std::unique_ptr<tb::Trainer> makeTrainer(const BldConfig& c)
{
    switch (c.algorithm) {
    case Algorithm::B2ld: return std::make_unique<B2ldTrainer>(c);
    case Algorithm::Lbfgs: return std::make_unique<LbfgsBaselineTrainer>(c);
    default: return std::make_unique<IncrementalTrainer>(c);
    }
}

const tb::num::Mlp& networkOf(const tb::Trainer& t, Algorithm a)
{
    switch (a) {
    case Algorithm::B2ld: return static_cast<const B2ldTrainer&>(t).network();
    case Algorithm::Lbfgs: return static_cast<const LbfgsBaselineTrainer&>(t).network();
    default: return static_cast<const IncrementalTrainer&>(t).network();
    }
}

QJsonObject runOne(const tb::data::DatasetPair& data, const QString& dataset, const Arch& arch, const QString& id,
                   std::uint64_t seed, double budget, const QString& clock, const QVariantMap& extra)
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
    QString err;
    const auto norm = BldConfig::schema(a).normalise(p, &err);
    if (!norm)
        throw std::invalid_argument(err.toStdString());
    const BldConfig config = BldConfig::fromParams(a, *norm);
    auto trainer = makeTrainer(config);
    const tb::ClockKind kind = clock == QLatin1String("cpu") ? tb::ClockKind::Cpu : tb::ClockKind::Wall;
    tb::testing::TestRunContext ctx(seed, 1);
    ctx.budget = tb::RunBudget{budget, kind};
    // The curve on the budget's clock, which pauses during checkpoints (recorded cheaply:
    // nothing is evaluated inside the checkpoint).
    QJsonArray curve;
    ctx.onCheckpoint = [&](const tb::Checkpoint& cp) { curve.append(QJsonArray{ctx.budgetUsed(), cp.loss}); };
    const auto& train = data.train;
    ctx.restartClock();
    tbb::task_arena(1).execute([&] { trainer->fit(train.view(), ctx); });
    const double seconds = ctx.budgetUsed();
    const tb::num::Mlp& net = networkOf(*trainer, a);
    tb::num::Mlp copy = net;
    const double rho = config.rho(double(net.parameterCount()));
    const Eigen::MatrixXd xt = tb::train::transposedCopy(train.x);
    double f = 0, gnorm = 0;
    tbb::task_arena(1).execute([&] {
        auto obj = makeObjective(copy, xt, train.y, rho);
        Eigen::VectorXd g;
        f = obj->evaluate(copy.flatten(), g);
        gnorm = g.norm();
    });
    const double trainMse = (net.predict(train.x) - train.y).squaredNorm() / double(train.rows());
    const double testMse = (net.predict(data.test.x) - data.test.y).squaredNorm() / double(data.test.rows());
    QJsonObject o{{"dataset", dataset},     {"arch", arch.name},   {"algorithm", id},
                  {"seed", double(seed)},   {"budget", budget},    {"clock", clock},
                  {"objective", f},         {"train_mse", trainMse}, {"test_mse", testMse},
                  {"gradient_norm", gnorm}, {"seconds", seconds},  {"weights", double(net.parameterCount())},
                  {"end_reason", ctx.records.value("end_reason").toString()},
                  {"curve", curve}};
    if (ctx.records.contains("layer_updates"))
        o.insert("layer_updates", ctx.records.value("layer_updates"));
    return o;
}

int runMode(const QMap<QString, QString>& opt)
{
    const QString dataset = opt.value("dataset", "mv");
    const QStringList ids = opt.value("algorithms", "bld.b2ld,bld.lbfgs").split(',');
    QList<Arch> archs;
    for (const QString& s : opt.value("archs", "1x50,3x20,200-50-200,5x50,10x50").split(','))
        archs << parseArch(s);
    const int seeds = opt.value("seeds", "3").toInt();
    const std::uint64_t firstSeed = opt.value("first-seed", "1").toULongLong();
    const double budget = opt.value("budget", "30").toDouble();
    const QString clock = opt.value("clock", "cpu");
    const QStringList share = opt.value("share", "0/1").split('/');
    const int shareIndex = share.value(0).toInt(), shares = std::max(1, share.value(1).toInt());
    QVariantMap extra;
    if (opt.contains("params")) {
        const QJsonDocument doc = QJsonDocument::fromJson(opt.value("params").toUtf8());
        if (!doc.isObject())
            throw std::invalid_argument("--params: not a JSON object");
        extra = doc.object().toVariantMap();
    }
    if (!opt.contains("out"))
        throw std::invalid_argument("run needs --out FILE");
    QFile out(opt.value("out"));
    if (!out.open(QIODevice::Append | QIODevice::Text))
        throw std::runtime_error("cannot append to " + out.fileName().toStdString());
    const tb::data::DatasetPair data = loadData(dataset);
    std::cerr << dataset.toStdString() << ": " << data.train.rows() << " train, " << data.test.rows() << " test rows, "
              << data.train.inputs() << " inputs\n";
    int job = 0;
    for (const Arch& arch : archs)
        for (int s = 0; s < seeds; ++s)
            for (const QString& id : ids) {
                if (job++ % shares != shareIndex)
                    continue;
                const std::uint64_t seed = firstSeed + std::uint64_t(s);
                const QJsonObject r = runOne(data, dataset, arch, id, seed, budget, clock, extra);
                out.write(QJsonDocument(r).toJson(QJsonDocument::Compact) + '\n');
                if (!out.flush())
                    throw std::runtime_error("cannot write " + out.fileName().toStdString());
                std::cerr << arch.name.toStdString() << " seed " << seed << " " << id.toStdString() << ": f = "
                          << r.value("objective").toDouble() << ", test MSE " << r.value("test_mse").toDouble() << ", "
                          << r.value("seconds").toDouble() << " s, " << r.value("end_reason").toString().toStdString()
                          << "\n";
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

int reportMode(const QMap<QString, QString>& opt)
{
    const double tie = opt.value("tie", "0.05").toDouble();
    QList<QJsonObject> runs;
    for (const QString& file : opt.value("in").split(',', Qt::SkipEmptyParts)) {
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
                out << " " << sci(b->value("objective").toDouble()) << " | " << sci(b->value("test_mse").toDouble())
                    << " | " << sci(b->value("gradient_norm").toDouble()) << " | "
                    << QString::number(b->value("seconds").toDouble(), 'f', 1) << " |";
            }
            out << "\n";
        }
        // Wins / ties / defeats of the first algorithm against the second, seed by seed.
        if (ids.size() >= 2) {
            for (const char* what : {"objective", "test_mse"}) {
                out << "\n" << ids[0] << " vs " << ids[1] << ", " << what << " [wins ; ties ; defeats], tie band "
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
            if (r.value("dataset") == ds && r.value("arch") == "10x50" && r.value("algorithm") == "bld.b2ld" &&
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
        if (opt.contains("charts")) {
            QDir().mkpath(opt.value("charts"));
            for (const QString& arch : archs) {
                QList<QJsonObject> sel;
                for (const QJsonObject& r : runs)
                    if (r.value("dataset") == ds && r.value("arch") == arch)
                        sel << r;
                const QString path = opt.value("charts") + "/bld-" + ds + "-" + ids.join("-vs-").remove("bld.") + "-" +
                                     arch + ".png";
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
    QApplication app(argc, argv); // the charts need one (QT_QPA_PLATFORM=offscreen without a display)
    try {
        if (argc < 2)
            throw std::invalid_argument("usage: bld_tables run|report [--key value …] (see the file comment)");
        const QString mode = argv[1];
        QMap<QString, QString> opt;
        for (int i = 2; i < argc; ++i) {
            const QString k = QString::fromLocal8Bit(argv[i]);
            if (!k.startsWith("--") || i + 1 >= argc)
                throw std::invalid_argument("expected --key value, got " + k.toStdString());
            opt.insert(k.mid(2), QString::fromLocal8Bit(argv[++i]));
        }
        if (mode == "run")
            return runMode(opt);
        if (mode == "report")
            return reportMode(opt);
        throw std::invalid_argument("unknown mode " + mode.toStdString());
    } catch (const std::exception& e) {
        std::cerr << "bld_tables: " << e.what() << "\n";
        return 1;
    }
}
