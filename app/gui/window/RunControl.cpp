#include "RunControl.h"

#include <engine/PluginRegistry.h>

#include <engine/ExperimentKind.h>
#include <engine/ExperimentRunner.h>
#include <engine/SuiteRunner.h>

#include "DatabaseControl.h"
#include "ExperimentDocument.h"
#include "WindowMessages.h"
#include "ChartTabs.h"
#include "comparison/ComparisonTab.h"
#include "runs/ExperimentController.h"
#include "runs/RunBrowser.h"

#include <store/BuildInfo.h>
#include <data/DataSource.h>
#include <store/RunStore.h>
#include <engine/StoredRuns.h>

#include <QAction>
#include <QLocale>
#include <QFileInfo>
#include <QMessageBox>
#include <QProgressBar>
#include <QTabWidget>

#include <algorithm>

namespace tb::gui {

namespace {

// What kind @p kind counts, for @p n of them ("runs", "cells").
QString kindUnit(const QString& kind, int n)
{
    const ExperimentKind* k = ExperimentKinds::find(kind);
    return k ? k->unit(n) : (n == 1 ? QStringLiteral("run") : QStringLiteral("runs"));
}

} // namespace

RunControl::RunControl(const PluginRegistry& registry, ExperimentController* controller,
                       ExperimentDocument* document, DatabaseControl* database, ChartTabs* charts,
                       ComparisonTab* comparison, RunBrowser* browser, QTabWidget* centre,
                       QWidget* comparisonPage, WindowMessages* messages, QWidget* window)
    : QObject(window), m_registry(registry), m_controller(controller), m_document(document),
      m_database(database), m_charts(charts), m_comparison(comparison), m_browser(browser), m_centre(centre),
      m_comparisonPage(comparisonPage), m_messages(messages), m_window(window),
      m_runAction(new QAction(tr("&Run"), this)), m_stopAction(new QAction(tr("&Stop"), this)),
      m_resumeAction(new QAction(tr("Res&ume stopped experiment"), this)),
      m_runProgress(new QProgressBar), m_progress(new QProgressBar)
{
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setToolTip(tr("Run the experiment (Ctrl+R)"));
    m_stopAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_stopAction->setToolTip(tr("Stop the running experiment (Esc); finished runs are kept"));
    connect(m_runAction, &QAction::triggered, this, [this] {
        QString error;
        if (!runExperiment(&error))
            m_messages->showProblems(tr("Cannot run the experiment"), error);
    });
    connect(m_stopAction, &QAction::triggered, this, &RunControl::stop);
    m_resumeAction->setToolTip(tr("Train what a stopped experiment left undone, into the same experiment: its "
                                  "finished runs (noise sweeps: cells) are kept"));
    m_resumeAction->setEnabled(false);
    connect(m_resumeAction, &QAction::triggered, this, [this] {
        QString error;
        if (!resumeExperiment(&error))
            m_messages->showProblems(tr("Cannot resume the experiment"), error);
    });

    m_runProgress->setFixedWidth(140);
    m_runProgress->setToolTip(tr("Current run: epochs done of those planned (busy when unknown)"));
    m_runProgress->setTextVisible(false);
    m_progress->setFixedWidth(220);
    m_progress->setToolTip(tr("Whole experiment"));
    m_progress->setValue(0);

    connect(m_controller, &ExperimentController::started, this, &RunControl::onStarted);
    connect(m_controller, &ExperimentController::updated, this, &RunControl::onUpdated);
    connect(m_controller, &ExperimentController::finished, this, &RunControl::onFinished);
    connect(m_controller, &ExperimentController::suiteSetStarted, this, &RunControl::onSuiteSetStarted);
    connect(m_controller, &ExperimentController::statusText, m_messages, &WindowMessages::setStatus);
    connect(m_controller, &ExperimentController::logMessage, m_messages, &WindowMessages::appendLog);
    connect(m_controller, &ExperimentController::progressChanged, this, [this](int done, int total) {
        m_progress->setRange(0, total); // 0 of 0: busy while the data load
        m_progress->setValue(std::min(done, total));
        m_progress->setFormat(m_controller->progressFormat());
    });
    connect(m_controller, &ExperimentController::runProgressChanged, this, [this](double f) {
        if (f < 0) {
            m_runProgress->setRange(0, 0); // busy: the run's length is unknown
        } else {
            m_runProgress->setRange(0, 1000);
            m_runProgress->setValue(int(1000 * f));
        }
    });

    // The browser's Compare fills the Comparison tab; Show on charts, Delete and Re-run act here.
    connect(m_browser, &RunBrowser::compareRequested, this, [this](const QList<qint64>& ids) {
        if (m_database->store() && m_comparison->showRuns(*m_database->store(), ids) > 0)
            m_centre->setCurrentWidget(m_comparisonPage);
    });
    connect(m_centre, &QTabWidget::currentChanged, this, [this] {
        if (m_comparisonDirty && m_centre->currentWidget() == m_comparisonPage && m_controller->isRunning()) {
            m_comparisonDirty = false;
            showLiveComparison();
        }
    });
    connect(m_browser, &RunBrowser::overlayRequested, this,
            [this](const QList<qint64>& ids) { overlayRuns(ids); });
    connect(m_browser, &RunBrowser::runsDeleted, this, &RunControl::onRunsDeleted);
    connect(m_browser, &RunBrowser::rerunRequested, this, [this](qint64 id) {
        QString error;
        if (!rerun(id, &error))
            m_messages->showProblems(tr("Cannot re-run run %1").arg(id), error);
    });
    connect(m_browser, &RunBrowser::rerunExperimentRequested, this, [this](qint64 id) {
        QString error;
        if (!rerunExperiment(id, &error))
            m_messages->showProblems(tr("Cannot re-run experiment %1").arg(id), error);
    });
    connect(m_document, &ExperimentDocument::shown, this, &RunControl::experimentShown);
    // Charts with nothing on them show the view of the experiment being set up: a learning curve
    // does not wait on the RMSE-vs-σ view, a regression on accuracy (issue 29, item 5).
    connect(m_document, &ExperimentDocument::setupChanged, this, [this](const QString& kind, bool classification) {
        if (m_controller->isRunning() || !m_shownRuns.isEmpty() || m_chartSpec)
            return;
        m_charts->setTask(classification);
        m_charts->showKind(kind);
    });
}

bool RunControl::runExperiment(QString* error)
{
    QStringList problems;
    const auto spec = m_document->currentSpec(&problems);
    if (!spec) {
        if (error)
            *error = problems.join(QLatin1Char('\n'));
        return false;
    }
    const QString path = m_document->path();
    const QString where =
        path.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(QFileInfo(path).fileName());
    return startSpec(
        *spec, tr("Live: %1%2 — %3").arg(spec->name, where, spec->kind), error);
}

bool RunControl::resumeExperiment(QString* error)
{
    QStringList problems;
    const auto spec = m_document->currentSpec(&problems);
    if (!spec) {
        if (error)
            *error = problems.join(QLatin1Char('\n'));
        return false;
    }
    RunStore* store = m_database->store();
    if (!store) {
        if (error)
            *error = tr("no database is open: a stopped experiment is resumed from the database it is stored in");
        return false;
    }
    if (spec->isSuite())
        return resumeSuite(*spec, *store, error);
    const qint64 id = ExperimentRunner::resumable(*store, *spec, error);
    if (id < 0)
        return false;
    m_messages->appendLog(tr("Resuming experiment %1, “%2”: its finished runs are kept").arg(id).arg(spec->name));
    return startSpec(*spec, tr("Live: resuming experiment %1, %2 — %3").arg(id).arg(spec->name, spec->kind), error, id);
}

bool RunControl::resumeSuite(const ExperimentSpec& spec, RunStore& store, QString* error)
{
    // Each set resumes its own newest stopped experiment (SuiteRunner), the others run afresh.
    ExperimentRunner runner(m_registry, &store);
    const QList<SuiteSetOutcome> plan = SuiteRunner(runner, m_registry, &store).plan(spec, true);
    QStringList resumed;
    for (const SuiteSetOutcome& o : plan)
        if (o.resumedFrom >= 0)
            resumed << tr("%1 (experiment %2)").arg(o.set.name).arg(o.resumedFrom);
    if (resumed.isEmpty()) {
        if (error)
            *error = tr("nothing to resume: %1 holds no set of the suite “%2” with these settings; press Run to run it")
                         .arg(store.path(), spec.name);
        return false;
    }
    m_messages->appendLog(tr("Resuming suite “%1”: %2; the other sets run afresh").arg(spec.name, resumed.join(QStringLiteral(", "))));
    return startSpec(spec, tr("Live: resuming suite %1 — %2").arg(spec.name, spec.kind), error, 0);
}

bool RunControl::startSpec(const ExperimentSpec& spec, const QString& caption, QString* error, qint64 resumeId)
{
    if (m_controller->isRunning()) {
        if (error)
            *error = tr("An experiment is already running; stop it first.");
        return false;
    }
    m_rerunOf.reset();  // rerun() sets it again once its experiment has started
    m_controller->setStore(m_database->store());
    m_charts->clear();
    const auto task = data::DataSource::task(spec.dataset);
    m_charts->setTask(!task || *task == Task::Classification);
    m_charts->showKind(spec.kind);
    m_charts->setCaption(caption);
    m_shownRuns.clear();
    m_chartSpec = spec;
    m_centre->setCurrentWidget(m_charts);
    if (m_controller->start(spec, error, resumeId))
        return true;
    showNotRun(spec.name, error ? *error : QString());
    return false;
}

void RunControl::showNotRun(const QString& name, const QString& error)
{
    // Nothing runs: no busy bar, no "Live: …" caption above empty charts (issue 29, item 4).
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("not run"));
    m_runProgress->setRange(0, 1);
    m_runProgress->setValue(0);
    m_runProgress->hide();
    m_charts->setCaption(tr("“%1” could not run: %2").arg(name, error.section(QLatin1Char('\n'), 0, 0)));
}

bool RunControl::rerun(qint64 runId, QString* error)
{
    RunStore* store = m_database->store();
    if (!store) {
        if (error)
            *error = tr("no database is open");
        return false;
    }
    // The rule lives in the engine, shared with `trainbench-cli rerun`.
    const auto r = StoredRuns::rerunOfRun(*store, m_registry, runId, error);
    if (!r)
        return false;
    for (const QString& note : r->notes)
        m_messages->appendLog(note);
    m_messages->appendLog(tr("Re-running %1 with its stored settings").arg(r->description));
    const std::optional<RunRecord> stored = store->run(runId);
    if (!startSpec(r->spec, tr("Re-run of %1").arg(r->description), error))
        return false;
    m_rerunOf = stored;  // onFinished() compares the result with it
    return true;
}

bool RunControl::rerunExperiment(qint64 experimentId, QString* error)
{
    RunStore* store = m_database->store();
    if (!store) {
        if (error)
            *error = tr("no database is open");
        return false;
    }
    const auto r = StoredRuns::rerunOfExperiment(*store, experimentId, error);
    if (!r)
        return false;
    m_messages->appendLog(tr("Re-running %1 with its stored settings").arg(r->description));
    return startSpec(r->spec, tr("Re-run of %1").arg(r->description), error);
}

int RunControl::overlayRuns(const QList<qint64>& runIds)
{
    RunStore* store = m_database->store();
    if (!store || runIds.isEmpty())
        return 0;
    // Grouping into curves is the engine's (the CLI's export draws the same).
    const StoredRuns::Selection sel = StoredRuns::group(*store, runIds);
    if (!sel.readError.isEmpty()) {
        // A damaged database: draw what could be read, but never as if it were everything.
        m_messages->appendLog(
            tr("Reading the runs failed; the charts may lack runs or checkpoints: %1").arg(sel.readError));
        QMessageBox::warning(
            m_window, tr("Damaged database"),
            tr("Some runs could not be read, so the charts may be incomplete.\n\n%1").arg(sel.readError));
    }
    if (sel.runIds.isEmpty())
        return 0; // none of the ids is in this store (deleted meanwhile)
    const QList<charts::CurveSeriesData> curves = charts::LearningCurveChart::seriesOf(sel.result.curves);
    m_charts->clear();
    m_charts->setTask(sel.classification || curves.isEmpty());
    m_charts->setCurves(curves);
    m_charts->setSummary(sel.result.summary, sel.result.kind);
    m_charts->showKind(sel.result.kind);
    const int n = int(sel.runIds.size());
    m_charts->setCaption((n == 1 ? tr("Stored: 1 run from %1") : tr("Stored: %1 runs from %2").arg(n))
                             .arg(sel.experimentIds.size() > 1
                                      ? tr("%1 experiments").arg(sel.experimentIds.size())
                                      : tr("experiment %1").arg(sel.experimentIds.value(0))));
    m_shownRuns = sel.runIds;
    m_chartSpec.reset();
    m_centre->setCurrentWidget(m_charts);
    return n;
}

void RunControl::stop()
{
    m_controller->stop();
}

void RunControl::experimentShown(const QString& name)
{
    // The charts show runs of what was open before: say so, or clear them, never leave "Live: …"
    // of another experiment above them.
    if (m_controller->isRunning())
        return;
    m_charts->clear();
    m_shownRuns.clear();
    m_chartSpec.reset();
    m_charts->setCaption(
        tr("“%1”: not run yet — press Run (Ctrl+R), or pick stored runs in the Runs panel").arg(name));
}

QStringList RunControl::chartSettings() const
{
    QStringList lines;
    if (m_chartSpec) {
        const ExperimentSpec& e = *m_chartSpec;
        lines << tr("Data: %1").arg(data::DataSource::describe(e.dataset));
        if (e.suitePlace.isSet())
            lines << tr("Set %1 of %2 (%3) of the suite “%4”")
                         .arg(e.suitePlace.index + 1)
                         .arg(e.suitePlace.sets)
                         .arg(e.suitePlace.set, e.suitePlace.suite);
        if (const ExperimentKind* kind = ExperimentKinds::find(e.kind)) {
            QString what = kind->describe(e);
            if (!what.isEmpty())
                what[0] = what[0].toUpper();
            lines << what;
        }
        QStringList algs;
        for (const AlgorithmRun& a : e.algorithms) {
            // The name the legend shows (its label, or the algorithm's name as the curves take it).
            const AlgorithmEntry* entry = m_registry.algorithm(a.id);
            const QString shown = !a.label.isEmpty() ? a.label : entry ? entry->info.name : QString();
            algs << (shown.isEmpty() || shown == a.id ? a.id : QStringLiteral("%1 (%2)").arg(shown, a.id));
        }
        lines << tr("Algorithms: %1").arg(algs.join(QStringLiteral(", ")));
    } else {
        lines << m_charts->caption();
    }
    lines << tr("Trainbench %1 (%2)").arg(QStringLiteral(TB_APP_VERSION), gitHash());
    return lines;
}

void RunControl::updateActions()
{
    const bool running = m_controller->isRunning();
    m_runAction->setEnabled(!running);
    m_stopAction->setEnabled(running);
    m_resumeAction->setEnabled(!running && m_stoppedWithResults);
    // A run's own progress shows when runs train one at a time (each with every thread).
    const ExperimentKind* kind = ExperimentKinds::find(m_controller->spec().kind);
    m_runProgress->setVisible(running && kind && kind->unitsAreRuns() && kind->runsOneAtATime(m_controller->spec()));
    Q_EMIT runningChanged(running);
}

void RunControl::onStarted()
{
    if (const ExperimentKind* kind = ExperimentKinds::find(m_controller->spec().kind);
        kind && kind->comparesConfigurations())
        m_centre->setCurrentWidget(m_comparisonPage);
    m_comparison->clear();
    m_messages->setStatus(tr("Running…"));
    m_runProgress->setRange(0, 0);
    m_progress->setValue(0);
    m_progress->setFormat(QStringLiteral("%p%"));
    updateActions();
}

void RunControl::onSuiteSetStarted(int index)
{
    // The charts follow the set that trains — only its curves, under their plain labels: learning
    // curves of different data sets share no scale (one set's 95 % is another's 60 %), so a chart of
    // every set's would bury the comparison a user makes, of the algorithms on one set; each
    // algorithm keeps its colour from set to set, and the Comparison tab compares across the sets.
    const LiveSuiteSet& set = m_controller->suiteSets().at(index);
    const auto task = data::DataSource::task(set.spec.dataset);
    m_charts->clear();
    m_charts->setTask(!task || *task == Task::Classification);
    m_charts->showKind(set.spec.kind);
    m_charts->setCaption(tr("Live: %1 — set %2 of %3: %4 (%5)")
                             .arg(m_controller->spec().name)
                             .arg(index + 1)
                             .arg(m_controller->suiteSets().size())
                             .arg(set.name, set.spec.kind));
    m_chartSpec = set.spec;
}

void RunControl::showLiveComparison()
{
    if (m_controller->spec().isSuite())
        m_comparison->showLiveSuite(m_controller->spec(), m_controller->suiteSets());
    else
        m_comparison->showLive(m_controller->spec(), m_controller->curves(), m_controller->selection());
}

void RunControl::onUpdated()
{
    if (m_controller->keepsSummary())
        m_charts->setSummary(m_controller->summary(), m_controller->spec().kind);
    else
        m_charts->setCurves(m_controller->curves());
    // The comparison is rebuilt only while in view (its tables cost more than a chart update).
    if (!m_controller->keepsSummary() && m_controller->isRunning()) {
        if (m_centre->currentWidget() == m_comparisonPage)
            showLiveComparison();
        else
            m_comparisonDirty = true;
    }
}

void RunControl::onFinished(const QString& summary)
{
    onUpdated();
    m_comparisonDirty = false;
    m_comparison->showResult(
        m_controller->result(),
        tr("%1 — %2").arg(m_controller->spec().name, m_controller->spec().kind));
    m_messages->setStatus(summary);
    updateActions();
    const qint64 id = m_controller->experimentId();
    const bool suite = m_controller->spec().isSuite();
    const QList<qint64>& ids = m_controller->experimentIds();
    if (m_controller->result().error.isEmpty()) {
        if (suite) // the charts show the last set's curves; the Comparison tab has every set's
            m_charts->setCaption(tr("Suite “%1”, last set shown: %2 — %3")
                                     .arg(m_controller->spec().name,
                                          m_controller->currentSet() >= 0
                                              ? m_controller->suiteSets().at(m_controller->currentSet()).name
                                              : QString(),
                                          summary));
        else
            m_charts->setCaption((id >= 0 ? tr("Experiment %1: “%2” — %3").arg(id) : tr("“%1” — %2"))
                                     .arg(m_controller->spec().name, summary));
    }
    m_shownRuns.clear();
    RunStore* store = m_database->store();
    if (store && !suite && id >= 0)
        for (const RunRecord& r : store->runs(id))
            m_shownRuns << r.id;
    if (store && suite && m_controller->currentSet() >= 0 && !ids.isEmpty())
        for (const RunRecord& r : store->runs(ids.last())) // the runs on the charts: the last set's
            m_shownRuns << r.id;
    if (store) {
        m_browser->refresh();
        if (!ids.isEmpty())
            m_browser->setSelection(ids, {});
    }
    const ExperimentResult& result = m_controller->result();
    // Stopped part-way into a database: offer to train the rest (the engine keeps what is done).
    // A suite plans every set's runs, its result counts those of the sets that ran.
    const int planned = suite ? m_controller->unitsTotal() : result.runsPlanned;
    m_stoppedWithResults = result.cancelled && result.error.isEmpty() && store && id >= 0 &&
                           result.runsFinished > 0 && result.runsFinished < planned;
    updateActions();
    if (m_stoppedWithResults) {
        const QLocale loc;
        const QString done = tr("%1 of %2 %3 done")
                                 .arg(loc.toString(result.runsFinished), loc.toString(planned),
                                      kindUnit(result.kind, planned));
        m_charts->setCaption(tr("Experiment %1: “%2” stopped, partial results: %3 — Run → Resume stopped experiment "
                                "trains the rest")
                                 .arg(id)
                                 .arg(m_controller->spec().name, done));
        m_messages->setStatus(tr("Stopped: %1 (partial results; Run → Resume stopped experiment continues)").arg(done));
    }
    m_database->experimentFinished(result);
    // A suite's result is its comparison across the sets: the Comparison tab shows it.
    if (suite && result.error.isEmpty() && result.runsFinished > 0)
        m_centre->setCurrentWidget(m_comparisonPage);
    if (m_rerunOf && result.error.isEmpty() && result.curves.size() == 1 && result.curves.first().infos.size() == 1 &&
        result.curves.first().statuses.value(0) == RunStatus::Finished)
        m_messages->appendLog(tr("Re-run compared with the stored run: %1")
                                  .arg(StoredRuns::agreement(*m_rerunOf, result.curves.first().infos.first()).text));
    m_rerunOf.reset();
    for (const QString& w : result.warnings)
        m_messages->appendLog(tr("Warning: %1").arg(w));
    if (!result.storeError.isEmpty() && result.error.isEmpty())
        m_messages->showProblems(
            tr("The database failed: the experiment was stopped"),
            tr("%1\n\nThe results on the charts are not all in the database. Keep them with File → "
               "Save results to another database…")
                .arg(result.storeError));
    else if (!result.error.isEmpty()) {
        showNotRun(m_controller->spec().name, result.error);
        m_messages->showProblems(tr("The experiment could not run"), result.error);
    }
}

void RunControl::onRunsDeleted(const QList<qint64>& runIds)
{
    QList<qint64> remaining;
    for (qint64 id : m_shownRuns)
        if (!runIds.contains(id))
            remaining << id;
    if (remaining.size() == m_shownRuns.size())
        return; // none of the runs on the charts was deleted
    const int deleted = int(m_shownRuns.size() - remaining.size());
    if (overlayRuns(remaining) == 0) {
        m_charts->clear();
        m_shownRuns.clear();
        m_charts->setCaption(tr("The runs shown here were deleted from the database"));
    } else {
        m_charts->setCaption(m_charts->caption() + (deleted == 1
                                                        ? tr(" (1 deleted run removed)")
                                                        : tr(" (%1 deleted runs removed)").arg(deleted)));
    }
}

} // namespace tb::gui
