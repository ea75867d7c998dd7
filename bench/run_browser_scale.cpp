// How the workbench copes with a large run store: a generated database of N runs (param sweeps
// like a power user's: swept values to 12 digits, repeats, tags), opened in the main window.
//
//   run_browser_scale [--runs 20000] [--per-experiment 208] [--db FILE] [--filter tanh] [--overlay 200] [--quick]
//
// Measured, on the GUI thread's clock, with a 2 ms probe timer recording the event loop's gaps:
//  - open: from openDatabase() until the run browser lists every run (its model holds N runs and
//    it is no longer busy), and the longest stall of the event loop meanwhile;
//  - typing: the filter text typed one character every 120 ms, then cleared; the longest stall
//    from the first key until the browser shows the matches, and how many match;
//  - overlay: that many runs put on the charts (MainWindow::overlayRuns) and drawn.
// --db keeps the generated database (made once, reused when it holds --runs runs). Run it under
// Xvfb for real painting or with QT_QPA_PLATFORM=offscreen. See bench/README.md ("Run browser at scale").

#include <support/BenchArguments.h>
#include <support/BenchMain.h>

#include <engine/ExperimentKind.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>
#include <runs/RunBrowser.h>
#include <window/MainWindow.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

/// Gaps between the ticks of a 2 ms timer on the GUI thread: the event loop's stalls.
class StallProbe {
public:
    StallProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(2);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            if (m_last >= 0)
                m_longest = std::max(m_longest, (now - m_last) / 1e6);
            m_last = now;
        });
    }
    void start()
    {
        m_longest = 0;
        m_last = 0; // the time until the first tick counts too
        m_clock.start();
        m_timer.start();
    }
    /// Longest gap in ms since start(), counting the time since the last tick.
    double stop()
    {
        if (m_last >= 0)
            m_longest = std::max(m_longest, (m_clock.nsecsElapsed() - m_last) / 1e6);
        m_timer.stop();
        return m_longest;
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = -1;
    double m_longest = 0;
};

/// A kind whose runs are listed one by one (no summary points): any, the store does not read it.
QString listedKind()
{
    for (const tb::ExperimentKind* k : tb::ExperimentKinds::all())
        if (k->summaryAxis().isEmpty())
            return k->id();
    return {};
}

int storedRuns(const QString& path)
{
    if (!QFileInfo::exists(path))
        return 0;
    tb::RunStore::Options o;
    o.readOnly = true;
    QString error;
    auto store = tb::RunStore::open(path, o, &error);
    return store ? int(store->runListing().size()) : 0;
}

/// Param sweeps of 208 runs each (4 algorithms × 13 learning rates × 4 repeats), the way a
/// power user's database grows: labels with 12-digit swept values, a third of the runs tanh,
/// 20 checkpoints per run.
bool generate(const QString& path, int runs, int perExperiment)
{
    QFile::remove(path);
    QString error;
    auto store = tb::RunStore::open(path, &error);
    if (!store) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return false;
    }
    const QStringList algorithms{QStringLiteral("gradient.adam"), QStringLiteral("gradient.sgd"),
                                 QStringLiteral("gradient.rmsprop"), QStringLiteral("bpls.algorithm2")};
    const QStringList names{QStringLiteral("Adam"), QStringLiteral("SGD"), QStringLiteral("RMSProp"),
                            QStringLiteral("BPLS")};
    const QStringList activations{QStringLiteral("relu"), QStringLiteral("tanh"), QStringLiteral("sigmoid")};
    int made = 0;
    for (int e = 0; made < runs; ++e) {
        tb::ExperimentRecord x;
        x.name = QStringLiteral("Moons sweep %1 (%2)").arg(e).arg(activations[e % 3]);
        x.kind = listedKind();
        x.spec = QJsonObject{{QStringLiteral("name"), x.name},
                             {QStringLiteral("kind"), x.kind},
                             {QStringLiteral("seed"), 1000 + e},
                             {QStringLiteral("threads"), 2}};
        const qint64 experiment = store->createExperiment(x);
        const int end = std::min(runs, made + perExperiment);
        for (int a = 0; a < 4 && made < end; ++a)
            for (int l = 0; l < 13 && made < end; ++l)
                for (int repeat = 0; repeat < 4 && made < end; ++repeat, ++made) {
                    const double lr = std::pow(10.0, -4 + l * 0.25);
                    tb::RunRecord r;
                    r.experimentId = experiment;
                    r.algorithmId = algorithms[a];
                    r.algorithmName = QStringLiteral("%1 lr=%2, hidden=[16,16]").arg(names[a]).arg(lr, 0, 'g', 12);
                    r.pluginId = algorithms[a].section(QLatin1Char('.'), 0, 0);
                    r.pluginVersion = QStringLiteral("1.4.0");
                    // The parameters and facts of a real gradient.adam run (25 keys, ~900 bytes of facts).
                    r.params = QVariantMap{{QStringLiteral("lr"), lr},
                                           {QStringLiteral("hidden"), QVariantList{16, 16}},
                                           {QStringLiteral("activation"), activations[e % 3]},
                                           {QStringLiteral("epochs"), 20},
                                           {QStringLiteral("batch_size"), 32},
                                           {QStringLiteral("beta1"), 0.9},
                                           {QStringLiteral("beta2"), 0.999},
                                           {QStringLiteral("bias"), true},
                                           {QStringLiteral("checkpoint_every"), 0},
                                           {QStringLiteral("epsilon"), 1e-8},
                                           {QStringLiteral("hidden_bias"), true},
                                           {QStringLiteral("init"), QStringLiteral("uniform")},
                                           {QStringLiteral("init_high"), 1},
                                           {QStringLiteral("init_low"), -1},
                                           {QStringLiteral("inverse_decay"), 0.1},
                                           {QStringLiteral("loss"), QStringLiteral("auto")},
                                           {QStringLiteral("output_activation"), QStringLiteral("auto")},
                                           {QStringLiteral("patience"), 5},
                                           {QStringLiteral("precision"), QStringLiteral("double")},
                                           {QStringLiteral("ridge"), 0.0},
                                           {QStringLiteral("schedule"), QStringLiteral("constant")},
                                           {QStringLiteral("shuffle"), true},
                                           {QStringLiteral("step_epochs"), 10},
                                           {QStringLiteral("step_factor"), 0.5},
                                           {QStringLiteral("validation_fraction"), 0}};
                    r.dataset = QStringLiteral("moons (n=400, noise 0.2)");
                    r.seed = quint64(1000003) * quint64(made + 1);
                    r.threads = 2;
                    r.repeat = repeat;
                    r.started = QDateTime::currentDateTimeUtc();
                    const qint64 id = store->createRun(r);
                    const double acc = 0.5 + 0.45 * std::exp(-std::abs(l - 7) / 4.0);
                    for (int k = 1; k <= 20; ++k) {
                        tb::MetricPoint p;
                        p.seq = k;
                        p.epoch = k;
                        p.trainTime = 0.0025 * k;
                        p.loss = 1 - acc * k / 20;
                        p.trainAccuracy = acc * k / 20 + 0.01;
                        p.testAccuracy = acc * k / 20;
                        store->appendMetric(id, p);
                    }
                    store->finishRun(id, tb::RunStatus::Finished, {},
                                     QJsonObject{{QStringLiteral("final"),
                                                  QJsonObject{{QStringLiteral("train_accuracy"), acc + 0.01},
                                                              {QStringLiteral("test_accuracy"), acc},
                                                              {QStringLiteral("loss"), 1 - acc},
                                                              {QStringLiteral("epochs"), 20},
                                                              {QStringLiteral("train_seconds"), 0.05 + 0.001 * l}}},
                                                 {QStringLiteral("peak_memory_bytes"), 3.0e6},
                                                 {QStringLiteral("build"), QStringLiteral("GCC 12.2.0, Release, -march=native: AVX-512F AVX2 FMA")},
                                                 {QStringLiteral("cpu"), QStringLiteral("AMD EPYC (AuthenticAMD family 25 model 17)")},
                                                 {QStringLiteral("git_hash"), QStringLiteral("b928356f922d")},
                                                 {QStringLiteral("loss_function"), QStringLiteral("cross_entropy")},
                                                 {QStringLiteral("measured_seconds"), 0.05 + 0.001 * l},
                                                 {QStringLiteral("network"), QStringLiteral("2-16-16-2, tanh/softmax, bias")},
                                                 {QStringLiteral("predicted_cost"),
                                                  QJsonObject{{QStringLiteral("checkpoints"), 20},
                                                              {QStringLiteral("flops"), 2381400},
                                                              {QStringLiteral("flops_per_epoch"), 79380},
                                                              {QStringLiteral("memory_bytes"), 108232},
                                                              {QStringLiteral("shape"), QStringLiteral("315×2 → 2 classes")}}},
                                                 {QStringLiteral("log"),
                                                  QJsonArray{QStringLiteral("threads: 2 of 2 cores; batches of 32 rows")}},
                                                 {QStringLiteral("weights"), 338}});
                    if (made % 50 == 0)
                        store->setRunNotes(id, {QStringLiteral("baseline")}, QStringLiteral("kept for the report"));
                }
    }
    if (!store->flush(10 * 60 * 1000) || !store->failure().isEmpty()) {
        std::fprintf(stderr, "writing %s failed: %s\n", qPrintable(path), qPrintable(store->failure()));
        return false;
    }
    return true;
}

int runsListed(const QAbstractItemModel* m)
{
    int n = 0;
    for (int r = 0; r < m->rowCount(); ++r)
        n += m->rowCount(m->index(r, 0));
    return n;
}

bool busy(const tb::gui::RunBrowser* b)
{
    return b->property("busy").toBool();
}

/// Runs the event loop until @p done holds (checked every 2 ms) or @p timeoutMs passes. The loop
/// sleeps between checks, as the workbench's does: a spinning wait would take a core from the
/// workers it measures.
template <typename Done>
bool waitUntil(Done done, int timeoutMs = 120000)
{
    QElapsedTimer t;
    t.start();
    QEventLoop loop;
    QTimer check;
    check.setInterval(2);
    QObject::connect(&check, &QTimer::timeout, [&] {
        if (done() || t.elapsed() > timeoutMs)
            loop.quit();
    });
    if (done())
        return true;
    check.start();
    loop.exec();
    return done();
}

} // namespace

int main(int argc, char** argv)
{
    using tb::bench::BenchArguments;
    BenchArguments args("run_browser_scale",
                        "The workbench with a large run store: opening it to a usable run browser, typing "
                        "and clearing a filter (longest event-loop stall), overlaying runs on the charts.");
    args.add("runs", "N", "runs in the generated database", "20000", "2000");
    args.add("per-experiment", "N", "runs per experiment (at most 208)", "208");
    args.add("db", "FILE", "the database (made when it does not hold --runs runs; default: a temporary file)");
    args.add("filter", "TEXT", "the filter typed", "tanh");
    args.add("overlay", "N", "runs put on the charts", "200", "20");
    return tb::bench::benchMain(argc, argv, args, {.widgets = true}, [&] {
        const int runs = int(args.integer("runs", 1));
        const int overlay = int(args.integer("overlay", 0));
        const QString filter = args.text("filter");
        QTemporaryDir dir;
        qputenv("XDG_CONFIG_HOME", dir.filePath("config").toUtf8()); // leave the user's settings alone
        const QString path = args.text("db").isEmpty() ? dir.filePath("runs.sqlite") : args.text("db");
        const int perExperiment = std::clamp(int(args.integer("per-experiment", 1)), 1, 208);
        if (storedRuns(path) != runs) {
            QElapsedTimer t;
            t.start();
            if (!generate(path, runs, perExperiment))
                return 1;
            std::printf("generated %s: %d runs in %.1f s\n", qPrintable(path), runs, t.elapsed() / 1000.0);
        }

        tb::PluginRegistry registry;
        registry.scan();
        tb::gui::MainWindow window(registry);
        window.setConfirmations(false);
        window.resize(1366, 768);
        window.show();
        waitUntil([] { return false; }, 300); // settle: the window is up before the clock starts
        tb::gui::RunBrowser* browser = window.runBrowser();
        auto* view = browser->findChild<QTreeView*>(QStringLiteral("runTree"));
        auto* edit = browser->findChild<QLineEdit*>(QStringLiteral("runFilterEdit"));

        std::printf("platform %s, %d runs\n", qPrintable(QGuiApplication::platformName()), runs);
        std::printf("%-28s %10s %14s %10s\n", "step", "time s", "longest stall ms", "rows");
        StallProbe probe;
        QElapsedTimer clock;
        QString error;
        probe.start();
        clock.start();
        if (!window.openDatabase(path, &error)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        if (!waitUntil([&] { return !busy(browser) && runsListed(browser->model()) == runs; })) {
            std::fprintf(stderr, "the browser did not list %d runs (it lists %d)\n", runs, runsListed(browser->model()));
            return 1;
        }
        QApplication::processEvents();
        std::printf("%-28s %10.3f %14.1f %10d\n", "open to usable browser", clock.elapsed() / 1000.0, probe.stop(),
                    view->model()->rowCount());

        // Typing: one character every 120 ms, then until the matches are shown.
        const auto type = [&](const QStringList& texts, const char* step) {
            probe.start();
            clock.start();
            for (const QString& t : texts) {
                edit->setText(t);
                waitUntil([] { return false; }, 120);
            }
            waitUntil([&] { return !busy(browser); });
            QApplication::processEvents();
            std::printf("%-28s %10.3f %14.1f %10d\n", step, clock.elapsed() / 1000.0, probe.stop(),
                        runsListed(view->model()));
        };
        QStringList prefixes;
        for (int i = 1; i <= filter.size(); ++i)
            prefixes << filter.left(i);
        type(prefixes, qPrintable(QStringLiteral("type \"%1\"").arg(filter)));
        type({QString()}, "clear the filter");
        type({QStringLiteral("lr<0.001")}, "type \"lr<0.001\"");
        type({QString()}, "clear the filter");

        if (overlay > 0) {
            QList<qint64> ids;
            for (int i = 1; i <= std::min(overlay, runs); ++i)
                ids << qint64(i);
            probe.start();
            clock.start();
            const int shown = window.overlayRuns(ids);
            QApplication::processEvents();
            std::printf("%-28s %10.3f %14.1f %10d\n", qPrintable(QStringLiteral("overlay %1 runs").arg(overlay)),
                        clock.elapsed() / 1000.0, probe.stop(), shown);
        }
        return 0;
    });
}
