// Suites (engine/Suite.h) in the workbench window (offscreen): a suite runs from Run to the end and
// the Comparison tab comes forward with the comparison across its sets (critical-difference
// diagram, per-set table with each set's winner); stored sets of one suite picked in the run
// browser are compared across sets too; a suite file opened and saved keeps its sets, the data-set
// panel naming them.

#include "comparison/ComparisonPanel.h"
#include "comparison/ComparisonTab.h"
#include "comparison/SweepResultView.h"
#include "runs/ExperimentController.h"
#include "runs/RunBrowser.h"
#include "setup/DatasetPanel.h"
#include "window/ChartTabs.h"
#include "window/MainWindow.h"

#include <engine/PluginRegistry.h>
#include <store/RunStore.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace tb;
using namespace tb::gui;

namespace {

QJsonArray tinySets()
{
    QJsonArray sets;
    const QStringList names{"moons", "circles"};
    for (int i = 0; i < names.size(); ++i)
        sets.append(QJsonObject{{"name", names[i]},
                                {"dataset", QJsonObject{{"source", names[i]}, {"samples", 120}, {"noise", 0.15},
                                                        {"test_fraction", 0.3}, {"seed", i + 1}}}});
    return sets;
}

// Ridge and BPLS on two 120-point sets, three seeds: a suite that trains in about a second. Its
// sets are @p data's: {"datasets": [...]} or {"suite": "PATH"}.
QJsonObject tinySuite(const QJsonObject& data)
{
    QJsonObject o{{"name", "tiny suite"},
                  {"kind", "learning-curve"},
                  {"format", 2},
                  {"repeats", 3},
                  {"seed", 1},
                  {"threads", 1},
                  {"algorithms", QJsonArray{QJsonObject{{"id", "linear.ridge"}, {"label", "ridge"}, {"params", QJsonObject{}}},
                                            QJsonObject{{"id", "bpls.classify"},
                                                        {"label", "BPLS"},
                                                        {"params", QJsonObject{{"hidden", QJsonArray{8}}}}}}}};
    for (auto it = data.begin(); it != data.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

bool writeJson(const QString& path, const QJsonObject& o)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(o).toJson()) > 0;
}

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

QString currentCentreTab(const MainWindow& w)
{
    auto* centre = qobject_cast<QTabWidget*>(w.centralWidget());
    return centre ? centre->tabText(centre->currentIndex()).remove('&') : QString();
}

} // namespace

class TestSuiteWindow : public QObject {
    Q_OBJECT
    std::unique_ptr<PluginRegistry> m_registry;
    QTemporaryDir m_dir;

    std::unique_ptr<MainWindow> newWindow(const QString& db)
    {
        auto w = std::make_unique<MainWindow>(*m_registry);
        w->setConfirmations(false);
        QString error;
        if (!db.isEmpty() && !w->openDatabase(db, &error))
            qWarning("%s", qPrintable(error));
        return w;
    }

    /// The across-sets views of @p tab: the diagram's tab enabled and in front, the per-set table
    /// one row per set (and the average ranks) with a winner in each set's row.
    void verifyAcrossSets(ComparisonTab* tab)
    {
        SweepResultView* view = tab->sweepView();
        const int cd = view->indexOf("critical-difference");
        QVERIFY(cd >= 0);
        QVERIFY(view->tabs()->isTabEnabled(cd));
        QCOMPARE(view->tabs()->currentIndex(), cd);
        QVERIFY(view->tabs()->isTabEnabled(view->indexOf("performance-profile")));
        ComparisonPanel* panel = tab->panel();
        QVERIFY(panel->tabs()->isTabEnabled(ComparisonPanel::PerSetTab));
        QVERIFY(panel->tabs()->isTabEnabled(ComparisonPanel::RanksTab));
        QCOMPARE(panel->tabs()->currentIndex(), int(ComparisonPanel::PerSetTab));
        const TextTable& perSet = panel->table(ComparisonPanel::PerSetTab);
        QCOMPARE(perSet.rowCount(), 3); // moons, circles, average rank
        QCOMPARE(perSet.rows().at(0).value(0), QStringLiteral("moons"));
        QCOMPARE(perSet.rows().at(1).value(0), QStringLiteral("circles"));
        QTableWidget* shown = panel->view(ComparisonPanel::PerSetTab);
        for (int row = 0; row < 2; ++row) {
            bool winner = false;
            for (int c = 2; c < shown->columnCount(); ++c)
                if (QTableWidgetItem* item = shown->item(row, c); item && item->text().endsWith(" *"))
                    winner = winner || item->font().bold();
            QVERIFY2(winner, qPrintable(QStringLiteral("no winner in bold in row %1").arg(row)));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_registry = std::make_unique<PluginRegistry>();
        m_registry->scan({QStringLiteral(TB_PLUGIN_BUILD_DIR), QStringLiteral(TB_TEST_PLUGIN_DIR)});
        QVERIFY(m_registry->algorithm("linear.ridge"));
        QVERIFY(m_registry->algorithm("bpls.classify"));
        QVERIFY(m_dir.isValid());
    }

    void suiteRunsAndOpensTheComparisonAcrossSets()
    {
        const QString db = m_dir.filePath("run.sqlite");
        auto w = newWindow(db);
        QVERIFY(w->setExperiment(tinySuite({{"datasets", tinySets()}})).isEmpty());
        QString error;
        QVERIFY2(w->runExperiment(&error), qPrintable(error));
        QVERIFY(w->controller()->waitForFinished(60000));
        const ExperimentResult& r = w->controller()->result();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QCOMPARE(r.runsFinished, 2 * 2 * 3); // every set's runs
        QCOMPARE(currentCentreTab(*w), QStringLiteral("Comparison"));
        verifyAcrossSets(w->comparison());
        QVERIFY2(w->charts()->caption().contains("circles"), qPrintable(w->charts()->caption()));
        QVERIFY2(w->logText().contains("Set 2 of 2: circles"), qPrintable(w->logText()));
        QCOMPARE(w->controller()->experimentIds().size(), 2); // one stored experiment per set
    }

    void storedSetsOfOneSuiteAreComparedAcrossSets()
    {
        // The experiments of the suite run above, picked in the run browser and compared.
        auto w = newWindow(m_dir.filePath("run.sqlite"));
        RunStore* store = w->store();
        QVERIFY(store);
        QList<qint64> experiments, runs;
        for (const ExperimentRecord& e : store->experiments()) {
            experiments << e.id;
            for (const RunRecord& r : store->runs(e.id))
                runs << r.id;
        }
        QCOMPARE(experiments.size(), 2);
        QVERIFY(w->runBrowser()->waitUntilIdle()); // the browser reads the store off the GUI thread
        w->runBrowser()->setSelection(experiments, {});
        QCOMPARE(w->runBrowser()->selectedRunIds().size(), runs.size());
        Q_EMIT w->runBrowser()->compareRequested(w->runBrowser()->selectedRunIds());
        QCOMPARE(currentCentreTab(*w), QStringLiteral("Comparison"));
        QVERIFY2(w->comparison()->caption().startsWith("Suite tiny suite"), qPrintable(w->comparison()->caption()));
        verifyAcrossSets(w->comparison());
        // One configuration over the sets: no "(exp N)" in the names.
        QCOMPARE(w->comparison()->panel()->baselineBox()->count(), 2);
    }

    void suiteFileOpensAndSavesWithItsSets()
    {
        const QString folder = m_dir.filePath("project");
        QVERIFY(writeJson(folder + "/suites/tiny.json", QJsonObject{{"name", "tiny sets"}, {"sets", tinySets()}}));
        const QString file = folder + "/experiments/suite.json";
        QVERIFY(writeJson(file, tinySuite({{"suite", "../suites/tiny.json"}})));
        auto w = newWindow(QString());
        QString error;
        QVERIFY2(w->openExperiment(file, &error), qPrintable(error));
        QVERIFY(!w->isModified());

        // The panel shows the first set, read-only, under a note naming every set.
        DatasetPanel* panel = w->datasetPanel();
        QVERIFY(panel->isSuite());
        QVERIFY(panel->suiteNote()->isVisibleTo(panel));
        QVERIFY2(panel->suiteNote()->text().contains("moons, circles"), qPrintable(panel->suiteNote()->text()));
        QVERIFY2(panel->suiteNote()->text().contains("../suites/tiny.json"), qPrintable(panel->suiteNote()->text()));
        QVERIFY(!panel->editor("source")->isEnabled());
        QCOMPARE(panel->spec().value("source").toString(), QStringLiteral("moons"));

        QStringList problems;
        const auto spec = w->currentSpec(&problems);
        QVERIFY2(spec, qPrintable(problems.join('\n')));
        QVERIFY(spec->isSuite());
        QCOMPARE(spec->suite.size(), 2);

        // Saved beside it, the file names the suite as it did; saved elsewhere, the path still reaches it.
        const QString same = folder + "/experiments/again.json";
        QVERIFY2(w->saveExperiment(same, &error), qPrintable(error));
        QJsonObject saved = readJson(same);
        QCOMPARE(saved.value("suite").toString(), QStringLiteral("../suites/tiny.json"));
        QVERIFY(!saved.contains("dataset"));
        const QString elsewhere = m_dir.filePath("elsewhere/deeper/moved.json");
        QDir().mkpath(QFileInfo(elsewhere).absolutePath());
        QVERIFY2(w->saveExperiment(elsewhere, &error), qPrintable(error));
        saved = readJson(elsewhere);
        QCOMPARE(saved.value("suite").toString(), QStringLiteral("../../project/suites/tiny.json"));
        const auto reread = ExperimentSpec::fromFile(elsewhere, &error);
        QVERIFY2(reread, qPrintable(error));
        QCOMPARE(reread->suite.size(), 2);
        QCOMPARE(reread->suite.at(1).name, QStringLiteral("circles"));
        // And the window still reads its suite after the move.
        const auto after = w->currentSpec(&problems);
        QVERIFY2(after, qPrintable(problems.join('\n')));
        QCOMPARE(after->suite.size(), 2);
    }

    void inlineDatasetsAreWrittenBackAsGiven()
    {
        const QString file = m_dir.filePath("inline/suite.json");
        QVERIFY(writeJson(file, tinySuite({{"datasets", tinySets()}})));
        auto w = newWindow(QString());
        QString error;
        QVERIFY2(w->openExperiment(file, &error), qPrintable(error));
        QVERIFY(w->datasetPanel()->isSuite());
        const QString saved = m_dir.filePath("inline/saved.json");
        QVERIFY2(w->saveExperiment(saved, &error), qPrintable(error));
        const QJsonObject o = readJson(saved);
        QCOMPARE(o.value("datasets").toArray(), tinySets());
        QVERIFY(!o.contains("dataset"));

        // An experiment on one data set opened next has an editable panel again and writes its "dataset".
        QJsonObject single = tinySuite({{"dataset", tinySets().at(0).toObject().value("dataset")}});
        QVERIFY(w->setExperiment(single).isEmpty());
        QVERIFY(!w->datasetPanel()->isSuite());
        QVERIFY(!w->datasetPanel()->suiteNote()->isVisibleTo(w->datasetPanel()));
        QVERIFY(w->datasetPanel()->editor("source")->isEnabled());
        QVERIFY(w->experimentJson().contains("dataset"));
        QVERIFY(!w->experimentJson().contains("datasets"));
    }
};

int main(int argc, char** argv)
{
    // Settings and the default database of this test only, never the user's.
    QTemporaryDir home;
    qputenv("XDG_CONFIG_HOME", home.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath("data").toUtf8());
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName("trainbench-test");
    QCoreApplication::setApplicationName("tst_suitewindow");
    TestSuiteWindow t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_suitewindow.moc"
