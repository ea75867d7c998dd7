#include "ExperimentController.h"

#include "RunTreeModel.h"

#include <engine/CostPrediction.h>
#include <engine/ExperimentKind.h>
#include <engine/HostBudget.h>
#include <engine/PluginRegistry.h>
#include <engine/SuiteRunner.h>
#include <store/RunStore.h>

#include <QCoreApplication>
#include <QEventLoop>

#include <algorithm>
#include <cmath>
#include <vector>

namespace tb::gui {

namespace {
/// The clock a configuration's checkpoints will be timed on: its budget's — the one its
/// parameters give, as the Runner takes it, else @p budget (the entry's or the experiment's).
ClockKind timesClockOf(const RunBudget& budget, QVariantMap params)
{
    HostBudget::Error ignored; // a bad budget fails the run, which says so
    if (const auto own = HostBudget::takeFromParams(params, &ignored))
        return HostBudget::timesClock(own);
    return HostBudget::timesClock(std::optional<RunBudget>(budget));
}
} // namespace

/// One thing that happened on a worker thread, waiting for the GUI thread.
struct ExperimentController::Event {
    enum class Type { ExperimentStarted, SetStarted, RunStarted, CostPredicted, Checkpoint, RunFinished, Progress, Summary, Status };
    Type type = Type::Progress;
    QString label;
    QString algorithmId;
    int repeat = 0;
    qint64 id = -1;          ///< experiment id (ExperimentStarted) or run id
    MetricPoint point;       ///< Checkpoint; RunFinished: the final point
    RunStatus status = RunStatus::Finished;
    QString error;
    int done = 0;            ///< Progress; SetStarted: the set's index
    int total = 0;
    SummaryPoint summary;
    QStringList lines;       ///< Status: the kind's lines
    QJsonObject info;        ///< CostPredicted: the cost; RunFinished: the run's facts
};

/// Queues the runner's callbacks (worker threads) for drain() (GUI thread). Each call only
/// copies a small record under a mutex, so training is never held up by the GUI.
class ExperimentController::Observer final : public ExperimentObserver {
public:
    void experimentStarted(qint64 experimentId, const ExperimentSpec&, int totalUnits) override
    {
        Event e;
        e.type = Event::Type::ExperimentStarted;
        e.id = experimentId;
        e.total = totalUnits;
        push(std::move(e));
    }
    void suiteSetStarted(int index, int sets, const ExperimentSpec&) override
    {
        Event e;
        e.type = Event::Type::SetStarted;
        e.done = index;
        e.total = sets;
        push(std::move(e));
    }
    void progress(int done, int total) override
    {
        Event e;
        e.type = Event::Type::Progress;
        e.done = done;
        e.total = total;
        push(std::move(e));
    }
    void statusChanged(const QStringList& lines) override
    {
        Event e;
        e.type = Event::Type::Status;
        e.lines = lines;
        push(std::move(e));
    }
    void summaryPointReady(const SummaryPoint& p) override
    {
        Event e;
        e.type = Event::Type::Summary;
        e.summary = p;
        push(std::move(e));
    }
    void runStarted(const RunJob& job, qint64 runId) override
    {
        Event e = jobEvent(Event::Type::RunStarted, job);
        e.id = runId;
        push(std::move(e));
    }
    void costPredicted(const RunJob& job, qint64 runId, const QJsonObject& cost) override
    {
        Event e = jobEvent(Event::Type::CostPredicted, job);
        e.id = runId;
        e.info = cost;
        push(std::move(e));
    }
    void checkpointLogged(const RunJob& job, qint64 runId, const MetricPoint& p) override
    {
        Event e = jobEvent(Event::Type::Checkpoint, job);
        e.id = runId;
        e.point = p;
        push(std::move(e));
    }
    void runFinished(const RunJob& job, const RunResult& r) override
    {
        Event e = jobEvent(Event::Type::RunFinished, job);
        e.id = r.runId;
        e.status = r.status;
        e.error = r.error;
        e.point = r.last;
        e.info = r.info;
        push(std::move(e));
    }

    /// Moves every queued event into @p out; returns whether the worker has ended.
    bool take(std::vector<Event>& out)
    {
        std::lock_guard lock(m_mutex);
        out.swap(m_events);
        m_events.clear();
        return m_finished;
    }
    void markFinished()
    {
        std::lock_guard lock(m_mutex);
        m_finished = true;
    }

private:
    static Event jobEvent(Event::Type t, const RunJob& job)
    {
        Event e;
        e.type = t;
        e.label = job.label;
        e.algorithmId = job.algorithmId;
        e.repeat = job.repeat;
        return e;
    }
    void push(Event&& e)
    {
        std::lock_guard lock(m_mutex);
        m_events.push_back(std::move(e));
    }

    std::mutex m_mutex;
    std::vector<Event> m_events;
    bool m_finished = false;
};

ExperimentController::ExperimentController(const PluginRegistry& registry, QObject* parent)
    : QObject(parent), m_registry(registry)
{
    m_timer.setInterval(50);
    connect(&m_timer, &QTimer::timeout, this, &ExperimentController::drain);
}

ExperimentController::~ExperimentController()
{
    if (m_suiteRunner)
        m_suiteRunner->requestStop();
    else if (m_runner)
        m_runner->requestStop();
    if (m_worker.joinable())
        m_worker.join();
}

void ExperimentController::setStore(RunStore* store)
{
    if (!isRunning())
        m_store = store;
}

bool ExperimentController::start(const ExperimentSpec& spec, QString* error, qint64 resumeId)
{
    if (isRunning()) {
        if (error)
            *error = tr("An experiment is already running; stop it first.");
        return false;
    }
    const QStringList problems = spec.validate(m_registry);
    if (!problems.isEmpty()) {
        if (error)
            *error = problems.join(QLatin1Char('\n'));
        return false;
    }
    if (resumeId >= 0 && !m_store) {
        if (error)
            *error = tr("Resuming needs the database the experiment is stored in; none is open.");
        return false;
    }

    m_spec = spec;
    m_experimentId = -1;
    m_experimentIds.clear();
    m_curves.clear();
    m_sets.clear();
    m_currentSet = -1;
    m_selection.clear();
    m_repeatIndex.clear();
    m_plannedEpochs.clear();
    m_summary.clear();
    m_kindStatus.clear();
    m_result = ExperimentResult{};
    m_done = 0;
    m_runsStarted = 0;
    m_currentRun.clear();
    m_currentCurve = -1;
    m_currentRepeat = 0;
    m_lastPoint = MetricPoint{};
    m_total = 0; // the runner says how many units once the data are loaded (experimentStarted)
    const ExperimentKind* kind = ExperimentKinds::find(spec.kind);
    m_keepsSummary = kind && !kind->summaryAxis().isEmpty();
    m_routeByLabel = kind && !kind->runsOneAtATime(spec);

    m_runner = std::make_unique<ExperimentRunner>(m_registry, m_store);
    m_observer = std::make_unique<Observer>();
    QList<SuiteSetOutcome> plan;
    if (spec.isSuite()) {
        m_suiteRunner = std::make_unique<SuiteRunner>(*m_runner, m_registry, m_store);
        plan = planSets(spec, resumeId >= 0); // each set's curves come forward as it starts (beginSet())
    } else {
        m_curves = configurationCurves(spec, &m_plannedEpochs);
        m_repeatIndex = QList<QList<int>>(m_curves.size());
    }
    m_clock.start();
    m_lastElapsed = 0;
    Observer* observer = m_observer.get();
    ExperimentRunner* runner = m_runner.get();
    SuiteRunner* suite = m_suiteRunner.get();
    const ExperimentSpec copy = m_spec;
    m_worker = std::thread([this, observer, runner, suite, copy, resumeId, plan] {
        ExperimentResult r;
        QList<qint64> ids;
        QStringList setErrors;
        if (suite) {
            SuiteResult sr = suite->run(copy, observer, resumeId >= 0, plan);
            r = std::move(sr.merged);
            ids = sr.experimentIds;
            setErrors = sr.setErrors;
        } else {
            r = resumeId >= 0 ? runner->resume(copy, resumeId, observer) : runner->run(copy, observer);
        }
        {
            std::lock_guard lock(m_resultMutex);
            m_workerResult = std::move(r);
            m_workerExperimentIds = ids;
            m_workerSetErrors = setErrors;
        }
        observer->markFinished();
    });
    m_timer.start();
    Q_EMIT started();
    Q_EMIT progressChanged(0, m_total);
    Q_EMIT statusText(tr("Starting “%1”…").arg(spec.name));
    if (spec.isSuite()) {
        Q_EMIT logMessage(tr("Started suite “%1” (%2 data sets × %3 algorithms, %4, %5 threads)")
                              .arg(spec.name)
                              .arg(spec.suite.size())
                              .arg(spec.algorithms.size())
                              .arg(spec.kind)
                              .arg(spec.effectiveThreads()));
        for (const LiveSuiteSet& set : std::as_const(m_sets))
            if (!set.absent.isEmpty())
                Q_EMIT logMessage(tr("Skipped set “%1”: it is not downloaded — fetch it with `%2`, then resume the suite")
                                      .arg(set.name, set.absent));
    } else {
        Q_EMIT logMessage(tr("Started “%1” (%2, %3 threads)").arg(spec.name, spec.kind).arg(spec.effectiveThreads()));
    }
    return true;
}

QList<charts::CurveSeriesData> ExperimentController::configurationCurves(const ExperimentSpec& spec,
                                                                        QList<double>* plannedEpochs) const
{
    // One curve per configuration of the kind (ExperimentKind::configurations(): the runner's own
    // list, labelled as it labels its jobs); a kind that keeps summary points has none.
    QList<charts::CurveSeriesData> out;
    const ExperimentKind* kind = ExperimentKinds::find(spec.kind);
    for (const AlgorithmCurves& c : kind ? kind->configurations(spec, &m_registry) : QList<AlgorithmCurves>{}) {
        charts::CurveSeriesData d;
        d.algorithmId = c.algorithmId;
        d.label = c.label;
        QVariantMap params;
        RunBudget budget = spec.budget();
        if (c.algorithmIndex >= 0 && c.algorithmIndex < spec.algorithms.size()) {
            const AlgorithmRun& a = spec.algorithms[c.algorithmIndex];
            params = a.params;
            budget = a.budget.value_or(spec.budget());
        }
        for (auto it = c.setting.begin(); it != c.setting.end(); ++it)
            params.insert(it.key(), it.value());
        d.clock = timesClockOf(budget, params);
        out << d;
        if (plannedEpochs)
            *plannedEpochs << m_registry.plannedEpochs(c.algorithmId, params);
    }
    return out;
}

QList<SuiteSetOutcome> ExperimentController::planSets(const ExperimentSpec& spec, bool resume)
{
    const QList<SuiteSetOutcome> plan = m_suiteRunner->plan(spec, resume);
    for (const SuiteSetOutcome& o : plan) {
        LiveSuiteSet set;
        set.name = o.set.name;
        set.spec = o.spec;
        set.gaps = o.gaps;
        set.absent = o.absent;
        set.resumedFrom = o.resumedFrom;
        set.curves = configurationCurves(o.spec, nullptr);
        m_sets << set;
    }
    return plan;
}

void ExperimentController::beginSet(int index)
{
    if (index < 0 || index >= m_sets.size())
        return;
    if (m_currentSet >= 0)
        m_sets[m_currentSet].curves = m_curves;
    m_currentSet = index;
    LiveSuiteSet& set = m_sets[index];
    set.started = true;
    // The charts follow the set that trains: its configurations, as any experiment's.
    m_plannedEpochs.clear();
    m_curves = configurationCurves(set.spec, &m_plannedEpochs);
    m_repeatIndex = QList<QList<int>>(m_curves.size());
    m_currentCurve = -1;
    m_currentRun.clear(); // "loading data" until its first run starts
    m_lastPoint = MetricPoint{};
    QStringList labels;
    for (const AlgorithmRun& a : std::as_const(set.spec.algorithms))
        labels << a.label;
    QString line = tr("Set %1 of %2: %3 — %4 × %5 %6")
                       .arg(index + 1)
                       .arg(m_sets.size())
                       .arg(set.name, labels.join(QStringLiteral(", ")))
                       .arg(set.spec.repeats)
                       .arg(set.spec.repeats == 1 ? tr("seed") : tr("seeds"));
    if (set.resumedFrom >= 0)
        line += tr(" (resuming experiment %1)").arg(set.resumedFrom);
    Q_EMIT logMessage(line);
    for (const QString& gap : std::as_const(set.gaps))
        Q_EMIT logMessage(tr("  gap: %1").arg(gap));
    Q_EMIT suiteSetStarted(index);
}

void ExperimentController::stop()
{
    if (m_runner && isRunning()) {
        // A suite's runner stops the set that trains and starts no other.
        if (m_suiteRunner)
            m_suiteRunner->requestStop();
        else
            m_runner->requestStop();
        Q_EMIT statusText(tr("Stopping…"));
    }
}

bool ExperimentController::waitForFinished(int ms)
{
    if (!isRunning())
        return true;
    // A local loop: the drain timer keeps its pace, so waiting changes nothing of what the
    // GUI would see.
    QEventLoop loop;
    connect(this, &ExperimentController::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
    return !isRunning();
}

double ExperimentController::elapsedSeconds() const
{
    return isRunning() ? m_clock.elapsed() / 1000.0 : m_lastElapsed;
}

int ExperimentController::curveIndex(const QString& label, const QString& algorithmId)
{
    // Learning curves run algorithm by algorithm in spec order: the first entry at or after
    // the current one that matches is the right one, even when two entries look alike.
    const int from = std::max(0, m_currentCurve);
    for (int pass = 0; pass < 2; ++pass)
        for (int i = pass == 0 ? from : 0; i < m_curves.size(); ++i)
            if (m_curves[i].label == label && m_curves[i].algorithmId == algorithmId)
                return i;
    return -1;
}

void ExperimentController::drain()
{
    std::vector<Event> events;
    const bool workerEnded = m_observer ? m_observer->take(events) : true;
    bool dataChanged = false;
    bool progress = false;
    for (Event& e : events) {
        switch (e.type) {
        case Event::Type::ExperimentStarted:
            m_experimentId = e.id;
            m_total = e.total;
            progress = true;
            break;
        case Event::Type::SetStarted:
            beginSet(e.done);
            dataChanged = true;
            break;
        case Event::Type::Progress:
            m_done = e.done;
            m_total = e.total;
            progress = true;
            break;
        case Event::Type::Summary:
            m_summary << e.summary;
            dataChanged = true;
            break;
        case Event::Type::Status:
            m_kindStatus = e.lines;
            break;
        case Event::Type::RunStarted: {
            const int i = curveIndex(e.label, e.algorithmId);
            ++m_runsStarted;
            m_currentRun = e.label;
            m_currentRepeat = e.repeat;
            if (i >= 0) {
                m_currentCurve = i;
                m_curves[i].repeats << QVector<MetricPoint>();
                m_repeatIndex[i] << e.repeat;
                dataChanged = true;
            }
            m_lastPoint = MetricPoint{};
            break;
        }
        case Event::Type::CostPredicted: {
            const QString text = CostPrediction(e.info).describe();
            if (!text.isEmpty() && e.repeat == m_spec.firstRepeat) // once per algorithm
                Q_EMIT logMessage(tr("%1: predicted %2").arg(e.label, text));
            break;
        }
        case Event::Type::Checkpoint: {
            // Parallel sweep cells interleave their checkpoints: route each by its run's label and
            // repeat; one run at a time, the current curve's last repeat is the run.
            int i = m_currentCurve, slot = -1;
            if (m_routeByLabel) {
                i = curveIndex(e.label, e.algorithmId);
                if (i >= 0)
                    slot = int(m_repeatIndex[i].lastIndexOf(e.repeat));
            } else if (i >= 0 && i < m_curves.size()) {
                slot = int(m_curves[i].repeats.size()) - 1;
            }
            if (i >= 0 && i < m_curves.size() && slot >= 0 && slot < m_curves[i].repeats.size()) {
                m_curves[i].repeats[slot] << e.point;
                dataChanged = true;
            }
            m_lastPoint = e.point;
            break;
        }
        case Event::Type::RunFinished: {
            if (addToSelection(e))
                dataChanged = true;
            QString line = tr("%1, repeat %2: %3").arg(e.label).arg(e.repeat).arg(runStatusName(e.status));
            if (!e.error.isEmpty())
                line += QStringLiteral(" — ") + e.error;
            else if (std::isfinite(e.point.testAccuracy))
                line += tr(" — test accuracy %1 %, %2 s").arg(100 * e.point.testAccuracy, 0, 'f', 2).arg(e.point.trainTime, 0, 'g', 3);
            else if (std::isfinite(e.point.testRmse))
                line += tr(" — test RMSE %1, %2 s").arg(e.point.testRmse, 0, 'g', 4).arg(e.point.trainTime, 0, 'g', 3);
            if (const QString cost = CostPrediction::fromRunInfo(e.info).compare(e.info); !cost.isEmpty())
                line += QStringLiteral(" (") + cost + QLatin1Char(')');
            Q_EMIT logMessage(line);
            break;
        }
        }
    }
    if (dataChanged) {
        if (m_currentSet >= 0)
            m_sets[m_currentSet].curves = m_curves; // suiteSets() stays current, cheaply (shared data)
        Q_EMIT updated();
        if (!m_keepsSummary)
            Q_EMIT runProgressChanged(runFraction());
    }
    if (progress)
        Q_EMIT progressChanged(m_done, m_total);
    if (!events.empty() && !workerEnded)
        Q_EMIT statusText(currentStatus());
    if (workerEnded && m_worker.joinable())
        workerDone();
}

bool ExperimentController::addToSelection(const Event& e)
{
    // The kind says which runs choose (its placeOf(), as for stored runs): a tuned comparison's trials.
    const ExperimentKind* kind = ExperimentKinds::find(m_spec.kind);
    if (!kind)
        return false;
    RunRecord record;
    record.algorithmId = e.algorithmId;
    record.info = e.info;
    const StoredPlace place = kind->placeOf(record);
    if (!place.selection)
        return false;
    auto it = std::find_if(m_selection.begin(), m_selection.end(), [&](const AlgorithmCurves& c) {
        return c.algorithmId == e.algorithmId && c.configuration == place.configuration;
    });
    if (it == m_selection.end()) {
        AlgorithmCurves c;
        c.algorithmId = e.algorithmId;
        c.label = c.configuration = place.configuration;
        m_selection << c;
        it = m_selection.end() - 1;
    }
    it->repeats << QVector<MetricPoint>{e.point};
    it->statuses << e.status;
    it->infos << e.info;
    it->errors << e.error;
    it->repeatNumbers << e.repeat;
    it->seeds << 0;
    it->runIds << e.id;
    return true;
}

QString ExperimentController::progressFormat() const
{
    if (!isRunning() && m_result.cancelled)
        return tr("stopped: %v of %m finished");
    return tr("%v of %m runs done");
}

double ExperimentController::runFraction() const
{
    // One run at a time (a learning curve, a param sweep's cells by default): its own progress shows.
    const ExperimentKind* kind = ExperimentKinds::find(m_spec.kind);
    const bool oneAtATime = kind && kind->runsOneAtATime(m_spec);
    if (!oneAtATime || m_currentCurve < 0 || m_currentCurve >= m_plannedEpochs.size())
        return -1;
    double f = -1;
    if (m_plannedEpochs[m_currentCurve] > 0)
        f = m_lastPoint.epoch / m_plannedEpochs[m_currentCurve];
    if (m_spec.timeBudgetSeconds > 0)
        f = std::max(f, m_lastPoint.trainTime / m_spec.timeBudgetSeconds);
    return f < 0 ? -1 : std::clamp(f, 0.0, 1.0);
}

QString ExperimentController::currentStatus() const
{
    const double t = elapsedSeconds();
    if (m_keepsSummary) {
        const ExperimentKind* kind = ExperimentKinds::find(m_spec.kind);
        return tr("%1: %2 of %3 %4 done, %5 summary points — %6 s")
            .arg(kind ? kind->label() : m_spec.kind)
            .arg(m_done)
            .arg(m_total)
            .arg(kind ? kind->unit(m_total) : tr("runs"))
            .arg(m_summary.size())
            .arg(t, 0, 'f', 1);
    }
    // A suite names the set that trains first: "Set 2 of 5 (circles) — run 7 of 30: …".
    const QString set = m_currentSet >= 0 ? tr("Set %1 of %2 (%3) — ")
                                                .arg(m_currentSet + 1)
                                                .arg(m_sets.size())
                                                .arg(m_sets[m_currentSet].name)
                                          : QString();
    if (m_runsStarted == 0 || m_currentRun.isEmpty())
        return set + tr("Loading data… %1 s").arg(t, 0, 'f', 1);
    QString s = set + (set.isEmpty() ? tr("Run %1 of %2: %3, repeat %4") : tr("run %1 of %2: %3, repeat %4"))
                          .arg(m_runsStarted)
                          .arg(m_total)
                          .arg(m_currentRun)
                          .arg(m_currentRepeat);
    if (m_lastPoint.seq > 0 || m_lastPoint.epoch > 0)
        s += tr(" — epoch %1, %2 s training").arg(m_lastPoint.epoch, 0, 'g', 4).arg(m_lastPoint.trainTime, 0, 'f', 2);
    // The kind's line of the part under way ("Adam: 12 of 30 trials, …; best …" for "Adam trial 12").
    for (const QString& line : m_kindStatus) {
        const QString part = line.section(QStringLiteral(": "), 0, 0);
        if (!part.isEmpty() && m_currentRun.startsWith(part + QLatin1Char(' ')))
            s += QStringLiteral(" | ") + line;
    }
    return s;
}

void ExperimentController::workerDone()
{
    m_worker.join();
    m_timer.stop();
    m_lastElapsed = m_clock.elapsed() / 1000.0;
    QStringList setErrors;
    {
        std::lock_guard lock(m_resultMutex);
        m_result = std::move(m_workerResult);
        m_workerResult = ExperimentResult{};
        m_experimentIds = m_workerExperimentIds;
        setErrors = m_workerSetErrors;
        m_workerExperimentIds.clear();
        m_workerSetErrors.clear();
    }
    const bool suite = m_suiteRunner != nullptr;
    m_suiteRunner.reset(); // before the runner it runs on
    m_runner.reset();
    m_observer.reset();
    if (m_currentSet >= 0)
        m_sets[m_currentSet].curves = m_curves;
    if (m_result.experimentId >= 0)
        m_experimentId = m_result.experimentId;
    if (!suite && m_experimentId >= 0)
        m_experimentIds = {m_experimentId};
    // The result is authoritative (e.g. a noise sweep's points for σ values cut short by Stop).
    if (m_keepsSummary && m_result.error.isEmpty())
        m_summary = m_result.summary;

    // A suite plans every set's runs (m_total); its merged result counts only the sets that ran.
    if (!suite && m_result.runsPlanned > 0)
        m_total = m_result.runsPlanned;
    const QString summary = finishedSummary();
    for (const QString& e : std::as_const(setErrors))
        Q_EMIT logMessage(tr("Problem: %1").arg(e));
    for (const QString& e : m_result.runErrors)
        Q_EMIT logMessage(tr("Problem: %1").arg(e));
    for (const QString& line : std::as_const(m_kindStatus))
        Q_EMIT logMessage(line);
    Q_EMIT logMessage(summary);
    Q_EMIT updated();
    Q_EMIT progressChanged(m_result.cancelled ? m_result.runsFinished : m_total, m_total);
    Q_EMIT finished(summary);
}

QString ExperimentController::finishedSummary() const
{
    if (!m_result.error.isEmpty())
        return tr("Could not run “%1”: %2").arg(m_spec.name, m_result.error);
    // The same counts as the progress bar's (progressFormat()), so the two never disagree.
    const int planned = m_spec.isSuite() ? m_total : m_result.runsPlanned;
    QString finished = tr("%1 of %2 runs finished").arg(m_result.runsFinished).arg(planned);
    if (m_spec.isSuite()) {
        const auto ran = std::count_if(m_sets.begin(), m_sets.end(), [](const LiveSuiteSet& s) { return s.started; });
        finished = tr("%1 of %2 data sets, ").arg(ran).arg(m_sets.size()) + finished;
    }
    // Durations as the run browser writes them ("3 min 18 s"), so the two read alike.
    const QString took = RunTreeModel::formatDuration(m_lastElapsed);
    QString summary = m_result.cancelled ? tr("Stopped after %1: %2").arg(took, finished)
                                         : tr("Finished in %1: %2").arg(took, finished);
    if (m_result.runsFailed > 0)
        summary += tr(", %1 failed or diverged").arg(m_result.runsFailed);
    if (m_result.runsCancelled > 0) {
        summary += tr(", %1 cancelled").arg(m_result.runsCancelled);
        if (m_result.runsNotStarted > 0)
            summary += tr(" (%1 of them never started)").arg(m_result.runsNotStarted);
    }
    if (m_store && m_experimentIds.size() > 1) {
        QStringList ids;
        for (qint64 id : m_experimentIds)
            ids << QString::number(id);
        summary += tr(" (experiments %1)").arg(ids.join(QStringLiteral(", ")));
    } else if (m_store && m_experimentId >= 0) {
        summary += tr(" (experiment %1)").arg(m_experimentId);
    }
    return summary;
}

} // namespace tb::gui
