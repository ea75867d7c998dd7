#include "ExperimentContext.h"

#include <tbb/task_arena.h>

#include "HostBudget.h"
#include "PluginRegistry.h"
#include <store/RunStore.h>

#include <data/DataSource.h>

namespace tb {

ExperimentContext::ExperimentContext(const PluginRegistry& registry, RunStore* store, CellExecutor& executor,
                                     StopSource& stop)
    : m_registry(registry), m_store(store), m_executor(executor), m_stop(stop)
{
}

void ExperimentContext::begin(bool resuming, QList<RunRecord> resumeRuns)
{
    std::lock_guard lock(m_failureMutex);
    m_storeFailure.clear();
    m_resuming = resuming;
    m_resumeRuns = std::move(resumeRuns);
}

void ExperimentContext::storeFailed(const QString& message)
{
    std::lock_guard lock(m_failureMutex);
    if (m_storeFailure.isEmpty())
        m_storeFailure = message;
}

QString ExperimentContext::storeFailure() const
{
    std::lock_guard lock(m_failureMutex);
    return m_storeFailure;
}

bool ExperimentContext::refuseOverMemory(const QList<MemoryCheck::Demand>& demands, int threads,
                                         ExperimentResult& result) const
{
    QString refusal;
    tbb::task_arena(threads).execute([&] { refusal = MemoryCheck::refusal(m_registry, demands); });
    if (refusal.isEmpty())
        return true;
    result.error = refusal;
    return false;
}

void ExperimentContext::blameStoreFailure(RunResult& rr) const
{
    if (rr.status != RunStatus::Cancelled)
        return;
    // Stopped by a store failure, not by the user: the run failed, for that reason (in memory, and
    // in its row if the store takes writes again).
    if (const QString failure = storeFailure(); !failure.isEmpty()) {
        rr.status = RunStatus::Failed;
        rr.error = QStringLiteral("stopped because the run store failed: %1").arg(failure);
        if (m_store && rr.runId >= 0)
            m_store->finishRun(rr.runId, rr.status, rr.error, rr.info);
    }
}

std::shared_ptr<const data::DatasetPair> ExperimentContext::loadData(const QJsonObject& dataset, const QString& baseDir,
                                                                     const data::DataOverrides& overrides,
                                                                     const QString& outOfMemory, QString* error)
{
    try {
        return std::make_shared<const data::DatasetPair>(data::DataSource::load(dataset, baseDir, overrides));
    } catch (const std::bad_alloc&) {
        *error = outOfMemory;
    } catch (const std::exception& e) {
        *error = QString::fromUtf8(e.what());
    }
    return nullptr;
}

QStringList ExperimentContext::labels(const ExperimentSpec& spec) const
{
    QStringList out;
    for (const AlgorithmRun& alg : spec.algorithms) {
        const AlgorithmEntry* entry = m_registry.algorithm(alg.id);
        out << (!alg.label.isEmpty() ? alg.label : (entry ? entry->info.name : alg.id));
    }
    return out;
}

CellPlan ExperimentContext::runPerCell(int count, int atOnce, tbb::task_arena& arena, ExperimentObserver* obs,
                                       const std::vector<char>& skip, const std::function<RunJob(int)>& jobOf)
{
    CellPlan plan;
    plan.count = count;
    plan.atOnce = atOnce;
    plan.arena = &arena;
    plan.stop = &m_stop;
    plan.log = m_store;
    plan.observer = obs;
    plan.skip = skip;
    plan.jobOf = jobOf;
    plan.work = [this, jobOf](int i, RunLog* log, RunObserver* o) {
        return CellOutput{{Runner(m_registry, log).execute(jobOf(i), m_stop, o)}};
    };
    plan.failed = [this, jobOf](int i, RunStatus status, const QString& why, const QList<qint64>& runIds) {
        return CellOutput{{failedRun(jobOf(i), status, why, runIds.value(0, -1))}};
    };
    return plan;
}

namespace {
/// A stored run as the RunResult it was (a resumed experiment's finished cells).
RunResult storedResult(const RunStore& store, const RunRecord& r, QString* error)
{
    RunResult rr;
    rr.runId = r.id;
    rr.status = r.status;
    rr.error = r.error;
    rr.info = r.info;
    rr.params = r.params;
    rr.points = store.metrics(r.id, error);
    if (!rr.points.isEmpty())
        rr.last = rr.points.last();
    rr.trainSeconds = r.info.value(QStringLiteral("final")).toObject().value(QStringLiteral("train_seconds")).toDouble();
    return rr;
}
} // namespace

bool ExperimentContext::takeFinishedRuns(int cells, const std::function<int(const RunRecord&)>& cellOf,
                                         std::vector<RunResult>& results, std::vector<char>& ran, QString* error)
{
    for (const RunRecord& r : std::as_const(m_resumeRuns)) {
        const int cell = cellOf(r);
        if (cell < 0 || cell >= cells)
            continue;
        if (r.status == RunStatus::Finished && !ran[size_t(cell)]) {
            results[size_t(cell)] = storedResult(*m_store, r, error);
            if (error && !error->isEmpty())
                return false;
            ran[size_t(cell)] = 1;
        } else if (!m_store->deleteRun(r.id)) {
            // Not deleted: the cell's new run would sit beside it, and the experiment would count it twice.
            if (error)
                *error = QStringLiteral("cannot resume: %1").arg(m_store->lastError());
            return false;
        }
    }
    return true;
}

RunResult ExperimentContext::failedRun(const RunJob& job, RunStatus status, const QString& why, qint64 runId) const
{
    RunResult rr;
    rr.status = status;
    rr.error = why;
    rr.runId = runId;
    if (!writesExperiment())
        return rr;
    if (runId >= 0) {
        m_store->finishRun(runId, rr.status, why, {});
    } else if (job.logToStore) {
        // The run never reached the store: its row says what happened, with its seed and parameters.
        RunRecord rec = Runner(m_registry, nullptr).record(job);
        rec.status = rr.status;
        rec.error = why;
        rec.ended = rec.started;
        rr.runId = m_store->createRun(rec);
    }
    return rr;
}

void ExperimentContext::appendRun(AlgorithmCurves& c, const RunResult& rr, int repeat, std::uint64_t seed)
{
    c.repeats << rr.points;
    c.statuses << rr.status;
    c.infos << rr.info;
    if (rr.info.contains(QStringLiteral("time_budget")))
        c.clock = HostBudget::timesClock(rr.info);
    c.errors << rr.error;
    c.repeatNumbers << repeat;
    c.seeds << seed;
    c.runIds << rr.runId;
}

void ExperimentContext::appendNotStarted(AlgorithmCurves& c, qint64 runId)
{
    c.repeats << QVector<MetricPoint>();
    c.statuses << RunStatus::Cancelled;
    c.infos << QJsonObject{{"stopped_by", "stop before the run started"}};
    c.errors << QString();
    c.runIds << runId;
}

void ExperimentContext::count(ExperimentResult& result, RunStatus status)
{
    if (status == RunStatus::Finished)
        result.runsFinished++;
    else if (status == RunStatus::Cancelled || status == RunStatus::Interrupted)
        result.runsCancelled++; // interrupted: its process did not report it after Stop (MPI)
    else if (status == RunStatus::Failed || status == RunStatus::Diverged)
        result.runsFailed++;
}

} // namespace tb
