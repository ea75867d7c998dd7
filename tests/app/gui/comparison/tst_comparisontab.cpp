// Comparisons in the workbench: a parameter sweep built from an algorithm's form, run, and shown
// as the final metric against the parameter with the comparison tables; the sweep editor; the
// comparison panel's markers and copies; Compare on runs picked in the run browser.

#include "setup/AlgorithmPanel.h"
#include "comparison/ComparisonPanel.h"
#include "comparison/ComparisonTab.h"
#include "setup/DatasetPanel.h"
#include "runs/ExperimentController.h"
#include "setup/ExperimentPanel.h"
#include "window/MainWindow.h"
#include "setup/ParamForm.h"
#include "runs/RunBrowser.h"
#include "setup/KindFields.h"
#include "setup/SweepEditor.h"
#include "comparison/SweepResultView.h"

#include <charts/FeatureFrontierChart.h>
#include <charts/FrontierChart.h>
#include <charts/ParamSweepChart.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QJsonArray>
#include <QLineEdit>
#include <QLineSeries>
#include <QSpinBox>
#include <QScrollArea>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QLabel>
#include <QHeaderView>
#include <engine/kinds/param_sweep/ParamSweep.h>

#include <QSpinBox>
#include <QtTest>

#include <memory>

using namespace tb;
using namespace tb::gui;

namespace {
// Configuration `name` on data set "d" with final test accuracies `values` (seed i for value i).
AlgorithmCurves config(const QString& name, const QList<double>& values)
{
    AlgorithmCurves c;
    c.algorithmId = "alg";
    c.label = c.configuration = name;
    c.dataset = "d";
    for (int i = 0; i < values.size(); ++i) {
        MetricPoint p;
        p.trainTime = 1 + i;
        p.testAccuracy = values[i];
        c.repeats << QVector<MetricPoint>{p};
        c.statuses << RunStatus::Finished;
        c.infos << QJsonObject();
        c.seeds << std::uint64_t(i);
        c.repeatNumbers << i;
    }
    return c;
}
} // namespace

class TestComparisonTab : public QObject {
    Q_OBJECT
    std::unique_ptr<PluginRegistry> m_registry;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        m_registry = std::make_unique<PluginRegistry>();
        m_registry->scan({QStringLiteral(TB_PLUGIN_BUILD_DIR), QStringLiteral(TB_TEST_PLUGIN_DIR)});
        QVERIFY(m_registry->algorithm("test.noise"));
    }

    void sweepFromTheFormRunsAndShowsTheResultChart()
    {
        MainWindow w(*m_registry);
        w.setConfirmations(false);
        QString error;
        QVERIFY2(w.openDatabase(m_dir.filePath("sweep.sqlite"), &error), qPrintable(error));
        QVERIFY(w.setExperiment(QJsonObject{{"name", "offset sweep"},
                                            {"kind", "learning-curve"},
                                            {"dataset", QJsonObject{{"source", "friedman1"}, {"samples", 120}}},
                                            {"algorithms", QJsonArray{QJsonObject{{"id", "test.noise"}, {"label", "Noise"},
                                                                                  {"params", QJsonObject{{"epochs", 2}}}}}},
                                            {"seed", 3},
                                            {"threads", 1}})
                    .isEmpty());
        // "Sweep this parameter…" on the offset row of test.noise's form.
        ParamForm* form = w.algorithmPanel()->form("test.noise");
        QVERIFY(form);
        Q_EMIT form->sweepRequested("offset");
        ExperimentPanel* exp = w.experimentPanel();
        QCOMPARE(exp->kind(), QStringLiteral("param-sweep"));
        auto* editor = qobject_cast<SweepEditor*>(exp->kindFields("param-sweep")->editor());
        QVERIFY(editor);
        QCOMPARE(editor->axisCount(), 1);
        QCOMPARE(editor->keyBox(0)->currentText(), QStringLiteral("offset"));
        // The offset is a linear real with default 0: the suggestion is that default alone.
        editor->valuesEdit(0)->setText("0, 0.5, 2");
        qobject_cast<QSpinBox*>(exp->field("repeats"))->setValue(2);
        QStringList problems;
        const auto spec = w.currentSpec(&problems);
        QVERIFY2(spec, qPrintable(problems.join('\n')));
        QCOMPARE(spec->kind, QStringLiteral("param-sweep"));
        QCOMPARE(ParamSweep::sweepOf(*spec).grid.size(), 1);
        QCOMPARE(ParamSweep::sweepOf(*spec).grid[0].values, (QVariantList{0.0, 0.5, 2.0}));

        QVERIFY2(w.runExperiment(&error), qPrintable(error));
        QVERIFY(w.controller()->waitForFinished(60000));
        QCOMPARE(w.controller()->result().runsFinished, 6);
        // The Comparison tab came forward and shows RMSE against the offset, mean over 2 seeds.
        ComparisonTab* tab = w.comparison();
        // The Comparison tab (ComparisonTab in its scroll area) is the one shown.
        QCOMPARE(qobject_cast<QScrollArea*>(qobject_cast<QTabWidget*>(w.centralWidget())->currentWidget())->widget(), tab);
        SweepResultView* view = tab->sweepView();
        QCOMPARE(view->parameter(), QStringLiteral("offset"));
        QCOMPARE(view->metric(), MetricId::TestRmse);
        charts::ParamSweepChart* chart = view->parameterChart();
        QCOMPARE(chart->groupCount(), 1);
        const QList<QPointF> pts = chart->lineSeries(0, 0)->points();
        QCOMPARE(pts.size(), 3);
        QCOMPARE(pts[2].x(), 2.0);
        QVERIFY(pts[0].y() < pts[1].y() && pts[1].y() < pts[2].y()); // RMSE grows with |offset|
        // The tables: three configurations against the first; offset 2 is significantly worse.
        ComparisonPanel* panel = tab->panel();
        QTableWidget* matrix = panel->view(ComparisonPanel::MatrixTab);
        QCOMPARE(matrix->rowCount(), 3);
        QVERIFY(matrix->item(0, 0)->text().endsWith("(baseline)"));
        QVERIFY2(matrix->item(2, 1)->text().endsWith("▼"), qPrintable(matrix->item(2, 1)->text()));
        QCOMPARE(panel->view(ComparisonPanel::TimeTab)->rowCount(), 3);
        QVERIFY(panel->tabs()->isTabEnabled(ComparisonPanel::GridTab));
        QCOMPARE(panel->view(ComparisonPanel::GridTab)->rowCount(), 3);
        // The frontier tab has every run.
        view->tabs()->setCurrentIndex(view->indexOf("frontier"));
        QCOMPARE(view->frontierChart()->data().size(), 6);

        // Picked runs from the browser: Compare shows just those.
        w.runBrowser()->refresh();
        QVERIFY(w.runBrowser()->waitUntilIdle()); // the browser reads the store off the GUI thread
        QList<qint64> ids;
        for (const RunRecord& r : w.store()->runs(w.controller()->experimentId()))
            if (r.params.value("offset").toDouble() != 0.5)
                ids << r.id;
        QCOMPARE(ids.size(), 4);
        Q_EMIT w.runBrowser()->compareRequested(ids);
        QCOMPARE(tab->caption(), QStringLiteral("4 picked run(s)"));
        QCOMPARE(panel->view(ComparisonPanel::MatrixTab)->rowCount(), 2);

        // Re-run of one cell trains that cell alone, with the same seed and the same numbers.
        const RunRecord cell = w.store()->run(ids.last()).value();
        const double rmse = w.store()->metrics(cell.id).last().testRmse;
        QVERIFY2(w.rerun(cell.id, &error), qPrintable(error));
        QVERIFY(w.controller()->waitForFinished(60000));
        const QList<RunRecord> again = w.store()->runs(w.controller()->experimentId());
        QCOMPARE(again.size(), 1);
        QCOMPARE(again[0].seed, cell.seed);
        QCOMPARE(again[0].params, cell.params);
        QCOMPARE(w.store()->metrics(again[0].id).last().testRmse, rmse);
    }

    void tunedComparisonShowsItsTuningAndItsTrials()
    {
        // A tuned comparison in the workbench: while it runs, the status line says each contender's
        // trials and best so far; when it ends, the Comparison tab draws the expected best of n
        // trials and the trials in parallel coordinates, and compares tuned against defaults.
        MainWindow w(*m_registry);
        w.setConfirmations(false);
        QString error;
        QVERIFY2(w.openDatabase(m_dir.filePath("tuned.sqlite"), &error), qPrintable(error));
        const QJsonObject spec{
            {"name", "tuned"},
            {"kind", "tuned-comparison"},
            {"dataset", QJsonObject{{"source", "moons"}, {"samples", 200}, {"validation_fraction", 0.25}}},
            {"algorithms", QJsonArray{QJsonObject{{"id", "test.noise"}, {"label", "Noise"},
                                                  {"search", QJsonObject{{"epochs", QJsonObject{{"integer", QJsonArray{1, 4}}}}}}},
                                      QJsonObject{{"id", "linear.ridge"}, {"label", "Ridge"},
                                                  {"search", QJsonObject{{"ridge", QJsonObject{{"log_uniform", QJsonArray{0.001, 10}}}}}}}}},
            {"tuning", QJsonObject{{"trials", 5}}},
            {"final", QJsonObject{{"seeds", 2}}},
            {"seed", 3},
            {"threads", 1}};
        QVERIFY(w.setExperiment(spec).isEmpty());
        // The kind's own fields come from its section schema: the budget is on the form.
        QVERIFY(w.experimentPanel()->field("tuning.trials"));
        {
            QStringList problems;
            const auto shown = w.currentSpec(&problems);
            QVERIFY2(shown, qPrintable(problems.join('\n')));
            // The algorithm entries keep their kind's keys (the search spaces) through the panels.
            QVERIFY(shown->algorithms.value(0).kindKeys.contains("search"));
        }
        // Live: the trials reach the controller's selection as they finish, before the final runs.
        int trialsSeenLive = 0;
        // The Comparison tab in view while it runs (as a user watching the tuning has it).
        auto showComparison = [&] {
            for (QTabWidget* t : w.findChildren<QTabWidget*>())
                for (int i = 0; i < t->count(); ++i)
                    if (t->tabText(i).remove('&') == "Comparison" && t->currentIndex() != i)
                        t->setCurrentIndex(i);
        };
        connect(w.controller(), &ExperimentController::updated, this, [&] {
            if (w.controller()->isRunning()) {
                showComparison();
                int n = 0;
                for (const AlgorithmCurves& c : w.controller()->selection())
                    n += int(c.repeats.size());
                trialsSeenLive = std::max(trialsSeenLive, n);
            }
        });
        QVERIFY2(w.runExperiment(&error), qPrintable(error));
        QVERIFY(w.controller()->waitForFinished(60000));
        QVERIFY2(trialsSeenLive > 0, "no trial reached the live selection while the experiment ran");
        QCOMPARE(w.controller()->selection().size(), 2);
        QCOMPARE(w.controller()->selection()[0].configuration, QString("Noise"));
        QCOMPARE(w.controller()->selection()[0].repeats.size(), 5);
        QCOMPARE(w.controller()->selection()[1].repeats.size(), 5);
        const ExperimentResult& result = w.controller()->result();
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QVERIFY2(result.runsFinished == 10 + 8, qPrintable(QString("%1 finished, %2 cancelled, %3 planned; %4")
                                                              .arg(result.runsFinished).arg(result.runsCancelled)
                                                              .arg(result.runsPlanned).arg(w.logText())));
        const QStringList status = w.controller()->kindStatus();
        QCOMPARE(status.size(), 2);
        QVERIFY2(status[0].startsWith("Noise: 5 of 5 trials") && status[0].contains("best validation accuracy"),
                 qPrintable(status.join('\n')));
        QVERIFY2(w.logText().contains("Ridge: 5 of 5 trials"), qPrintable(w.logText()));
        SweepResultView* view = w.comparison()->sweepView();
        const int tuning = view->indexOf("tuning");
        QVERIFY(tuning >= 0);
        QVERIFY(view->tabs()->isTabEnabled(tuning));
        // Shown live and then finished, the tuning stays in front (not the sweep chart the final
        // runs' settings enable).
        QCOMPARE(view->tabs()->currentIndex(), tuning);
        QVERIFY(view->tabs()->isTabEnabled(view->indexOf("parallel-coordinates")));
        QCOMPARE(w.comparison()->panel()->view(ComparisonPanel::MatrixTab)->rowCount(), 4); // tuned and defaults of each
        // Shown live (the trials so far, no final run yet), the tuning chart is there already.
        w.comparison()->clear();
        w.comparison()->showLive(w.controller()->spec(), {}, w.controller()->selection());
        QVERIFY(view->tabs()->isTabEnabled(tuning));
        QCOMPARE(view->tabs()->currentIndex(), tuning);
    }

    void featuresTabOnlyForRunsWithFeatureCounts()
    {
        // Stagewise runs record "feature_counts" (one per checkpoint): the Features tab is enabled
        // and shows one point per stage; runs without (Adam) leave it disabled, and a view left on
        // it falls back to the frontier.
        AlgorithmCurves stagewise;
        stagewise.algorithmId = "lsq.stagewise";
        stagewise.label = "stagewise";
        QVector<MetricPoint> pts(3);
        for (int i = 0; i < 3; ++i) {
            pts[i].seq = i;
            pts[i].epoch = i + 1;
            pts[i].trainTime = 1.0 + i;
            pts[i].testAccuracy = 0.8 + 0.01 * i;
        }
        stagewise.repeats = {pts};
        stagewise.statuses = {RunStatus::Finished};
        stagewise.infos = {QJsonObject{{"feature_counts", QJsonArray{300, 600, 900}}}};
        SweepResultView view;
        view.setCurves({stagewise});
        QVERIFY(view.tabs()->isTabEnabled(view.indexOf("feature-frontier")));
        view.tabs()->setCurrentIndex(view.indexOf("feature-frontier"));
        QCOMPARE(view.featuresChart()->shownPoints().size(), 3);
        AlgorithmCurves adam = stagewise;
        adam.algorithmId = "gradient.adam";
        adam.infos = {QJsonObject{}};
        view.setCurves({adam});
        QVERIFY(!view.tabs()->isTabEnabled(view.indexOf("feature-frontier")));
        QCOMPARE(view.tabs()->currentIndex(), view.indexOf("frontier"));
    }

    void sweepEditorChecksWhatIsTyped()
    {
        SweepEditor e;
        const ParamSpec lr = ParamSpec::real("lr", "Rate", 0.01, 1e-6, 1, "Step.", true);
        const ParamSpec rule = ParamSpec::choice("rule", "Rule", {"a", "b", "c"}, "a", "Rule.");
        e.setParameters({lr, rule});
        QCOMPARE(SweepEditor::suggestedValues(lr), QStringLiteral("log(0.001, 0.1, 3)"));
        QCOMPARE(SweepEditor::suggestedValues(rule), QStringLiteral("a, b, c"));
        QSignalSpy changed(&e, &SweepEditor::changed);
        e.addAxis("lr");
        e.addAxis("rule", "a, c");
        QCOMPARE(changed.count(), 2);
        QVERIFY(e.problems().isEmpty());
        QJsonObject sweep = e.sweepJson();
        QCOMPARE(sweep.value("grid").toObject().value("rule").toArray(), (QJsonArray{"a", "c"}));
        QCOMPARE(sweep.value("grid").toObject().value("lr").toObject().value("scale").toString(), QStringLiteral("log"));
        e.valuesEdit(0)->setText("0.1, 7");
        QVERIFY2(e.problems().value(0).startsWith("sweep.grid.lr: parameter \"lr\": expected a number"),
                 qPrintable(e.problems().join('\n')));
        // Written as typed, so the experiment's validation names it too.
        QCOMPARE(e.sweepJson().value("grid").toObject().value("lr").toString(), QStringLiteral("0.1, 7"));
        // A parameter no selected algorithm has any more stays, reported.
        e.setParameters({lr});
        QVERIFY(e.problems().join('\n').contains("sweep.grid.rule: not a parameter of every selected algorithm"));
        // Round trip with the kept keys of a file.
        e.setSweepJson(QJsonObject{{"grid", QJsonObject{{"lr", QJsonArray{0.1, 0.2}}}}, {"cells_at_once", 2}});
        QCOMPARE(e.axisCount(), 1);
        QCOMPARE(e.valuesEdit(0)->text(), QStringLiteral("0.1, 0.2"));
        QCOMPARE(e.sweepJson().value("cells_at_once").toInt(), 2);
        e.removeAxis(0);
        QCOMPARE(e.axisCount(), 0);
    }

    void defaultBaselineIsTheBestOnValidation()
    {
        // B is best on test, C on validation: selection is on validation (as a reviewer asks).
        QList<AlgorithmCurves> curves{config("A", {0.70, 0.71, 0.72}), config("B", {0.90, 0.91, 0.92}),
                                      config("C", {0.85, 0.86, 0.87})};
        const double validation[] = {0.60, 0.80, 0.95};
        for (int c = 0; c < 3; ++c)
            for (auto& run : curves[c].repeats)
                run.last().validationAccuracy = validation[c];
        ComparisonPanel p;
        p.setCurves(curves);
        QCOMPARE(p.baseline(), QStringLiteral("C"));
        QCOMPARE(p.findChild<QLabel*>("baseline_why")->text(), QStringLiteral("best on validation accuracy"));
        // The α field shows its whole value (it showed ").05" in a narrow window).
        p.resize(420, 500);
        p.show();
        QVERIFY(QTest::qWaitForWindowExposed(&p));
        auto* alpha = p.findChild<QLineEdit*>();
        for (QLineEdit* e : p.findChildren<QLineEdit*>())
            if (e->text() == "0.05")
                alpha = e;
        QVERIFY(alpha && alpha->text() == "0.05");
        QVERIFY2(alpha->width() >= alpha->fontMetrics().horizontalAdvance("0.05") + 8, qPrintable(QString::number(alpha->width())));
        // The tables show more than two or three rows.
        QTableWidget* m = p.view(ComparisonPanel::MatrixTab);
        QVERIFY(m->minimumHeight() >= 7 * m->verticalHeader()->defaultSectionSize());
    }

    void panelMarksAndCopies()
    {
        ComparisonPanel p;
        // B beats A on every one of 5 seeds by 4 to 6 points (all different); C equals A.
        p.setCurves({config("A", {0.80, 0.81, 0.79, 0.80, 0.82}), config("B", {0.85, 0.85, 0.85, 0.855, 0.865}),
                     config("C", {0.80, 0.81, 0.79, 0.80, 0.82})});
        QCOMPARE(p.metric(), MetricId::TestAccuracy);
        // Issue 29: the default baseline is the best (here on test: there is no validation
        // split, and the panel says so), not the first row, which gave every other row a ▲.
        QCOMPARE(p.baseline(), QStringLiteral("B"));
        auto* why = p.findChild<QLabel*>("baseline_why");
        QVERIFY(why);
        QCOMPARE(why->text(), QStringLiteral("best on test accuracy (no validation split)"));
        QTableWidget* m = p.view(ComparisonPanel::MatrixTab);
        QVERIFY(m->item(0, 1)->text().endsWith("▼"));
        // Another baseline: B is now significantly better than A, C is not.
        p.setBaseline("A");
        QVERIFY(why->text().isEmpty());
        QVERIFY(m->item(1, 1)->text().endsWith("▲"));
        QCOMPARE(m->item(1, 1)->foreground().color(), QColor(0x00, 0x7A, 0x3D));
        QVERIFY(!m->item(2, 1)->text().contains("▲") && !m->item(2, 1)->text().contains("▼"));
        // The user's choice stays when the runs are updated.
        p.setCurves(p.curves());
        QCOMPARE(p.baseline(), QStringLiteral("A"));
        p.setBaseline("B");
        QVERIFY(p.view(ComparisonPanel::MatrixTab)->item(0, 1)->text().endsWith("▼"));
        // Wilcoxon with 5 untied pairs is exact and cannot go below p = 2/32: no markers, and the
        // note says so.
        p.testBox()->setCurrentIndex(1);
        QVERIFY(!p.view(ComparisonPanel::MatrixTab)->item(0, 1)->text().contains("▼"));
        QVERIFY(p.table(ComparisonPanel::MatrixTab).notes().join(' ').contains("no difference is significant"));
        // Copy as Markdown puts the table on the clipboard.
        p.tabs()->setCurrentIndex(ComparisonPanel::PairsTab);
        QVERIFY(p.currentTableText(TextTable::Format::Markdown).startsWith("**test accuracy against B"));
        QVERIFY(!p.tabs()->isTabEnabled(ComparisonPanel::GridTab)); // no swept parameters
        p.clear();
        QCOMPARE(p.view(ComparisonPanel::MatrixTab)->rowCount(), 0);
    }
};

int main(int argc, char** argv)
{
    QTemporaryDir home;
    qputenv("XDG_CONFIG_HOME", home.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath("data").toUtf8());
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName("trainbench-test");
    QCoreApplication::setApplicationName("tst_comparisontab");
    TestComparisonTab t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_comparisontab.moc"
