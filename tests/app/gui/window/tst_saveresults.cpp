// File → Save results to another database (issue 17): when the open database fails during an
// experiment (here: the file may not grow, as on a full disk), the window says so, keeps the
// results it shows, and writes them into another database as runs that can be repeated.

#include "runs/ExperimentController.h"
#include "window/MainWindow.h"

#include <engine/PluginRegistry.h>
#include <store/RunStore.h>
#include <trainbench/Seeds.h>

#include <QAction>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <sys/resource.h>

using namespace tb;
using namespace tb::gui;

class TestSaveResults : public QObject {
    Q_OBJECT
    std::unique_ptr<PluginRegistry> m_registry;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        m_registry = std::make_unique<PluginRegistry>();
        m_registry->scan({QStringLiteral(TB_PLUGIN_BUILD_DIR), QStringLiteral(TB_TEST_PLUGIN_DIR)});
        QVERIFY(m_registry->algorithm("test.sleepy"));
    }

    void failedDatabaseKeepsTheResultsForAnotherOne()
    {
        MainWindow w(*m_registry);
        w.setConfirmations(false);
        QString error;
        const QString db = m_dir.filePath(QStringLiteral("small-disk.sqlite"));
        QVERIFY2(w.openDatabase(db, &error), qPrintable(error));
        QVERIFY(!w.saveResultsAction()->isEnabled());
        const QJsonObject spec{
            {"name", "kept"},
            {"kind", "learning-curve"},
            {"dataset", QJsonObject{{"source", "moons"}, {"samples", 100}}},
            {"algorithms", QJsonArray{QJsonObject{{"id", "test.sleepy"}, {"label", "Sleepy"},
                                                  {"params", QJsonObject{{"epochs", 150}, {"epoch_ms", 20}}}}}},
            {"repeats", 2},
            {"seed", 7},
            {"threads", 1}};
        QVERIFY(w.setExperiment(spec).isEmpty());

        // The database may not grow past 120 KiB (RLIMIT_FSIZE; SIGXFSZ ignored so that the write
        // fails instead of killing the process): a full disk without mounting one.
        rlimit old{};
        getrlimit(RLIMIT_FSIZE, &old);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit small = old;
        small.rlim_cur = 120 * 1024;
        QVERIFY(setrlimit(RLIMIT_FSIZE, &small) == 0);
        const bool started = w.runExperiment(&error);
        const bool finished = started && w.controller()->waitForFinished(60000);
        setrlimit(RLIMIT_FSIZE, &old);
        std::signal(SIGXFSZ, oldHandler);
        QVERIFY2(started, qPrintable(error));
        QVERIFY(finished);

        const ExperimentResult& result = w.controller()->result();
        QVERIFY2(result.storeError.contains(db), qPrintable(result.storeError));
        QVERIFY(w.saveResultsAction()->isEnabled());
        QVERIFY2(w.logText().contains(QLatin1String("Database write failed")), qPrintable(w.logText()));
        QVERIFY2(w.logText().contains(QLatin1String("The database failed: the experiment was stopped")),
                 qPrintable(w.logText()));
        QCOMPARE(result.curves.size(), 1);
        const int trained = int(result.curves.first().repeats.first().size());
        QVERIFY2(trained >= 5 && trained < 150, qPrintable(QString::number(trained)));

        // The failed file itself is refused; another one gets every point shown.
        QVERIFY(!w.saveResultsTo(db, &error));
        QVERIFY2(error.contains(QLatin1String("failed")), qPrintable(error));
        const QString other = m_dir.filePath(QStringLiteral("other.sqlite"));
        QVERIFY2(w.saveResultsTo(other, &error), qPrintable(error));
        QVERIFY2(w.logText().contains(QStringLiteral("saved to %1").arg(other)), qPrintable(w.logText()));
        auto store = RunStore::open(other, &error);
        QVERIFY2(store, qPrintable(error));
        const auto exps = store->experiments();
        QCOMPARE(exps.size(), 1);
        QCOMPARE(exps.first().name, QStringLiteral("kept"));
        const auto runs = store->runs(exps.first().id);
        QCOMPARE(runs.size(), result.curves.first().repeats.size());
        QCOMPARE(runs.first().seed, deriveSeed(7, 0));
        QCOMPARE(runs.first().status, RunStatus::Failed);
        QCOMPARE(store->metrics(runs.first().id).size(), trained);
    }
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QTemporaryDir home; // settings and the default database stay out of the user's folders
    qputenv("XDG_CONFIG_HOME", home.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath("data").toUtf8());
    TestSaveResults t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_saveresults.moc"
