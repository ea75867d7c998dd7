#include "ExperimentRunner.h"

#include "CostPrediction.h"
#include "MemoryCheck.h"
#include "PluginRegistry.h"
#include "RunStore.h"

#include <DataSource.h>
#include <Metrics.h>
#include <trainbench/Seeds.h>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QSet>
#include <mutex>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#ifndef TB_APP_VERSION
#define TB_APP_VERSION "0.0.0"
#endif
#ifndef TB_GIT_HASH
#define TB_GIT_HASH "unknown"
#endif

namespace tb {

ExperimentRunner::ExperimentRunner(const PluginRegistry& registry, RunStore* store, CellExecutor* executor)
    : m_registry(registry), m_store(store), m_executor(executor ? executor : &m_local)
{
}

QJsonObject ExperimentRunner::storedSpec(const ExperimentSpec& spec)
{
    QJsonObject json = spec.toJson();
    // Paths absolute, so the row re-runs the same data from any working directory.
    json.insert(QStringLiteral("dataset"), data::DataSource::withAbsolutePaths(spec.dataset, spec.baseDir));
    return json;
}

qint64 ExperimentRunner::resumable(const RunStore& store, const ExperimentSpec& spec, QString* error)
{
    QString readError;
    const QList<ExperimentRecord> all = store.experiments(&readError);
    if (!readError.isEmpty()) {
        if (error)
            *error = readError;
        return -1;
    }
    const QJsonObject wanted = storedSpec(spec);
    for (auto it = all.rbegin(); it != all.rend(); ++it)
        if (it->name == spec.name && it->spec == wanted)
            return it->id;
    if (error) {
        int sameName = 0;
        for (const ExperimentRecord& e : all)
            sameName += e.name == spec.name;
        *error = QStringLiteral("nothing to resume: %1 holds no experiment \"%2\" with this file's settings (%3 "
                                "with that name, none with the same data, algorithms, seeds and threads); run it "
                                "without --resume")
                     .arg(store.path(), spec.name)
                     .arg(sameName);
    }
    return -1;
}

QString ExperimentRunner::storeFailure() const
{
    std::lock_guard lock(m_failureMutex);
    return m_storeFailure;
}

ExperimentResult ExperimentRunner::run(const ExperimentSpec& spec, ExperimentObserver* observer)
{
    return execute(spec, observer, -1);
}

ExperimentResult ExperimentRunner::resume(const ExperimentSpec& spec, qint64 experimentId, ExperimentObserver* observer)
{
    return execute(spec, observer, experimentId);
}

ExperimentResult ExperimentRunner::execute(const ExperimentSpec& spec, ExperimentObserver* observer, qint64 resumeId)
{
    m_stop.reset();
    m_resumeRuns.clear();
    m_resuming = resumeId >= 0;
    QElapsedTimer wall;
    wall.start();
    // The first store failure of this experiment stops it: what cannot be recorded must not go on
    // training as if it were. The writer thread calls this directly; requestStop() is an atomic.
    {
        std::lock_guard lock(m_failureMutex);
        m_storeFailure.clear();
    }
    QMetaObject::Connection watching;
    if (m_store)
        watching = QObject::connect(m_store, &RunStore::writeFailed, [this](const QString& message) {
            {
                std::lock_guard lock(m_failureMutex);
                if (m_storeFailure.isEmpty())
                    m_storeFailure = message;
            }
            m_stop.requestStop();
        });
    qint64 experimentId = -1;
    auto refused = [&](const QString& message) {
        QObject::disconnect(watching);
        ExperimentResult r;
        r.kind = spec.kind;
        r.error = message;
        return r;
    };
    if (m_resuming) {
        if (!m_store || m_executor->isWorker())
            return refused(QStringLiteral("resuming an experiment needs its database"));
        QString readError;
        const auto exp = m_store->experiment(resumeId, &readError);
        if (!exp)
            return refused(readError.isEmpty() ? QStringLiteral("no experiment %1 in %2 to resume").arg(resumeId).arg(m_store->path())
                                               : readError);
        m_resumeRuns = m_store->runs(resumeId, &readError);
        if (!readError.isEmpty())
            return refused(readError);
        experimentId = resumeId;
    } else if (writesExperiment()) {
        ExperimentRecord rec;
        rec.name = spec.name;
        rec.kind = ExperimentSpec::kindName(spec.kind);
        rec.spec = storedSpec(spec);
        rec.created = QDateTime::currentDateTimeUtc();
        rec.appVersion = QStringLiteral(TB_APP_VERSION);
        rec.gitHash = QStringLiteral(TB_GIT_HASH);
        experimentId = m_store->createExperiment(rec);
        if (experimentId < 0) {
            QString failure = storeFailure();
            if (failure.isEmpty())
                failure = m_store->lastError();
            ExperimentResult r = refused(QStringLiteral("cannot record the experiment in %1, so it was not started: %2")
                                             .arg(m_store->path(), failure));
            r.storeError = failure;
            return r;
        }
    }
    ExperimentResult r;
    switch (spec.kind) {
    case ExperimentSpec::Kind::NoiseSweep: r = runNoiseSweep(spec, experimentId, observer); break;
    case ExperimentSpec::Kind::ParamSweep: r = runParamSweep(spec, experimentId, observer); break;
    case ExperimentSpec::Kind::LearningCurve: r = runLearningCurve(spec, experimentId, observer); break;
    }
    r.kind = spec.kind;
    if (writesExperiment() && !m_resuming && !r.error.isEmpty()) {
        // The data did not load and no run started: an empty experiment row would only confuse.
        m_store->deleteExperiment(experimentId);
        experimentId = -1;
    }
    r.experimentId = experimentId;
    if (m_store)
        m_store->flush(-1); // every write of this experiment is committed or reported (bounded by the busy timeout)
    QObject::disconnect(watching);
    r.storeError = storeFailure();
    r.cancelled = m_stop.stopRequested() && r.storeError.isEmpty();
    r.wallSeconds = wall.elapsed() / 1000.0;
    return r;
}

bool ExperimentRunner::refuseOverMemory(const QList<MemoryCheck::Demand>& demands, int threads,
                                        ExperimentResult& result) const
{
    QString refusal;
    tbb::task_arena(threads).execute([&] { refusal = MemoryCheck::refusal(m_registry, demands); });
    if (refusal.isEmpty())
        return true;
    result.error = refusal;
    return false;
}

void ExperimentRunner::blameStoreFailure(RunResult& rr) const
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

namespace {
/// A run that Stop kept from starting: still part of the experiment, cancelled without checkpoints
/// (its row, @p runId, holds its seed and parameters, so it can be re-run). The caller has
/// appended its repeat number and seed.
void appendNotStarted(AlgorithmCurves& c, qint64 runId)
{
    c.repeats << QVector<MetricPoint>();
    c.statuses << RunStatus::Cancelled;
    c.infos << QJsonObject{{"stopped_by", "stop before the run started"}};
    c.errors << QString();
    c.runIds << runId;
}
} // namespace

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

/// Puts one finished cell's run into its configuration's curves.
void appendRun(AlgorithmCurves& c, const RunResult& rr, int repeat, std::uint64_t seed)
{
    c.repeats << rr.points;
    c.statuses << rr.status;
    c.infos << rr.info;
    c.errors << rr.error;
    c.repeatNumbers << repeat;
    c.seeds << seed;
    c.runIds << rr.runId;
}

void count(ExperimentResult& result, RunStatus status)
{
    if (status == RunStatus::Finished)
        result.runsFinished++;
    else if (status == RunStatus::Cancelled || status == RunStatus::Interrupted)
        result.runsCancelled++; // interrupted: its process did not report it after Stop (MPI)
    else if (status == RunStatus::Failed || status == RunStatus::Diverged)
        result.runsFailed++;
}

/// The host fact that numbers a learning curve's run among the experiment's cells (resume()).
const QString kCellKey = QStringLiteral("experiment_cell");
} // namespace

bool ExperimentRunner::takeFinishedRuns(int cells, const std::function<int(const RunRecord&)>& cellOf,
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

CellPlan ExperimentRunner::runPerCell(int count, int atOnce, tbb::task_arena& arena, ExperimentObserver* obs,
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

ExperimentResult ExperimentRunner::runLearningCurve(const ExperimentSpec& spec, qint64 experimentId,
                                                    ExperimentObserver* obs)
{
    ExperimentResult result;
    const int threads = spec.effectiveThreads();
    std::shared_ptr<const data::DatasetPair> data;
    try {
        data = std::make_shared<const data::DatasetPair>(
            data::DataSource::load(spec.dataset, spec.baseDir, data::DataOverrides{std::nullopt, spec.seed}));
    } catch (const std::bad_alloc&) {
        result.error = QStringLiteral("out of memory while loading the data set (%1)")
                           .arg(data::DataSource::describe(spec.dataset));
        return result;
    } catch (const std::exception& e) {
        result.error = QString::fromUtf8(e.what());
        return result;
    }
    result.warnings = data->warnings;
    const QString description = data::DataSource::describe(spec.dataset);
    const int nAlg = int(spec.algorithms.size());
    const int total = nAlg * spec.repeats;
    QStringList labels;
    for (const AlgorithmRun& alg : spec.algorithms) {
        const AlgorithmEntry* entry = m_registry.algorithm(alg.id);
        labels << (!alg.label.isEmpty() ? alg.label : (entry ? entry->info.name : alg.id));
    }
    // One run at a time: each algorithm's own working memory must fit.
    QList<MemoryCheck::Demand> demands;
    for (int a = 0; a < nAlg; ++a)
        demands << MemoryCheck::Demand{labels[a], spec.algorithms[a].id, spec.algorithms[a].params,
                                       CostPrediction::shapeOf(data->train), 1};
    if (!refuseOverMemory(demands, threads, result))
        return result;

    // Cell i is repeat firstRepeat + i % repeats of algorithm i / repeats.
    auto jobOf = [&](int i) {
        const int a = i / spec.repeats, rep = spec.firstRepeat + i % spec.repeats;
        RunJob job;
        job.algorithmId = spec.algorithms[a].id;
        job.label = labels[a];
        job.params = spec.algorithms[a].params;
        // Repeat r of every algorithm uses the same seed: paired comparisons.
        job.seed = deriveSeed(spec.seed, std::uint64_t(rep));
        job.repeat = rep;
        job.data = data;
        job.datasetDescription = description;
        job.timeBudgetSeconds = spec.timeBudgetSeconds;
        job.experimentId = experimentId;
        job.threads = threads;
        job.hostFacts.insert(kCellKey, i);
        return job;
    };

    std::vector<RunResult> results(static_cast<size_t>(total));
    std::vector<char> ran(static_cast<size_t>(total), 0);
    if (m_resuming) {
        auto cellOf = [&](const RunRecord& r) {
            const int i = r.info.value(kCellKey).toInt(-1);
            return i >= 0 && i < total && spec.algorithms[i / spec.repeats].id == r.algorithmId ? i : -1;
        };
        if (!takeFinishedRuns(total, cellOf, results, ran, &result.error))
            return result;
    }
    if (obs)
        obs->experimentStarted(experimentId, spec, total);

    tbb::task_arena arena(threads);
    std::atomic<int> done{int(std::count(ran.begin(), ran.end(), 1))};
    // One run at a time with every thread: timings compare across algorithms.
    CellPlan plan = runPerCell(total, 1, arena, obs, ran, jobOf);
    plan.done = [&](int i, CellOutput&& out) {
        RunResult rr = out.runs.value(0);
        blameStoreFailure(rr);
        results[size_t(i)] = std::move(rr);
        ran[size_t(i)] = 1;
        if (obs)
            obs->progress(++done, total);
    };
    m_executor->run(plan);

    result.runsPlanned = total;
    QSet<QString> errors;
    const Runner runner(m_registry, writesExperiment() ? m_store : nullptr);
    for (int a = 0; a < nAlg; ++a) {
        AlgorithmCurves curves;
        curves.algorithmId = spec.algorithms[a].id;
        curves.label = labels[a];
        curves.configuration = curves.label;
        curves.dataset = description;
        for (int k = 0; k < spec.repeats; ++k) {
            const int i = a * spec.repeats + k;
            const RunJob job = jobOf(i);
            if (!ran[size_t(i)]) {
                // Stopped before this run began: it is still part of the experiment, stored as
                // cancelled with its seed and parameters (so it can be re-run), never dropped.
                curves.repeatNumbers << job.repeat;
                curves.seeds << job.seed;
                appendNotStarted(curves, runner.recordNotStarted(job));
                result.runsCancelled++;
                result.runsNotStarted++;
                continue;
            }
            const RunResult& rr = results[size_t(i)];
            appendRun(curves, rr, job.repeat, job.seed);
            count(result, rr.status);
            if (rr.status == RunStatus::Failed || rr.status == RunStatus::Diverged)
                errors.insert(QStringLiteral("%1: %2").arg(curves.label, rr.error));
        }
        result.curves << curves;
    }
    result.runErrors = QStringList(errors.values());
    result.runErrors.sort();
    return result;
}

RunResult ExperimentRunner::failedRun(const RunJob& job, RunStatus status, const QString& why, qint64 runId) const
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

ExperimentResult ExperimentRunner::runNoiseSweep(const ExperimentSpec& spec, qint64 experimentId,
                                                 ExperimentObserver* obs)
{
    ExperimentResult result;
    const int threads = spec.effectiveThreads();
    const int nAlg = int(spec.algorithms.size());
    const int nSigma = int(spec.sigmas.size());
    const int mc = spec.monteCarlo;
    const qint64 cells = qint64(nSigma) * mc;
    const int total = int(std::min<qint64>(cells * nAlg, std::numeric_limits<int>::max()));
    const QString description = data::DataSource::describe(spec.dataset);
    if (cells > std::numeric_limits<int>::max()) {
        result.error = QStringLiteral("noise sweep: %1 cells (sigmas × monte_carlo), at most %2")
                           .arg(cells)
                           .arg(std::numeric_limits<int>::max());
        return result;
    }

    // Check the data source once up front so a bad spec fails fast, not once per cell; every
    // cell has the shape of this one.
    std::shared_ptr<const data::DatasetPair> probe;
    try {
        probe = std::make_shared<const data::DatasetPair>(data::DataSource::load(
            spec.dataset, spec.baseDir, data::DataOverrides{spec.sigmas.value(0), spec.seed}));
    } catch (const std::bad_alloc&) {
        result.error = QStringLiteral("out of memory while generating the data set (%1)").arg(description);
        return result;
    } catch (const std::exception& e) {
        result.error = QString::fromUtf8(e.what());
        return result;
    }
    result.warnings = probe->warnings;

    QStringList labels;
    for (int a = 0; a < nAlg; ++a) {
        const AlgorithmRun& alg = spec.algorithms[a];
        const AlgorithmEntry* entry = m_registry.algorithm(alg.id);
        labels << (!alg.label.isEmpty() ? alg.label : (entry ? entry->info.name : alg.id));
    }
    // Cells train side by side, one algorithm after the other in each: every algorithm's memory
    // times the cells at once must fit.
    {
        QList<MemoryCheck::Demand> demands;
        for (int a = 0; a < nAlg; ++a)
            demands << MemoryCheck::Demand{labels[a], spec.algorithms[a].id, spec.algorithms[a].params,
                                           CostPrediction::shapeOf(probe->train),
                                           int(std::min<qint64>(threads, std::max<qint64>(cells, 1)))};
        if (!refuseOverMemory(demands, threads, result))
            return result;
    }
    // Results by [algorithm][cell]; NaN where a cell failed, diverged or was skipped.
    std::vector<std::vector<double>> trainRmse(nAlg, std::vector<double>(size_t(cells), NaN));
    std::vector<std::vector<double>> testRmse(nAlg, std::vector<double>(size_t(cells), NaN));
    std::vector<std::vector<char>> status(nAlg, std::vector<char>(size_t(cells), 0)); // 0 skipped 1 ok 2 failed 3 diverged
    std::vector<char> cellDone(size_t(cells), 0);

    // One run row per algorithm stands for all its cells: it carries the plugin version and
    // complete parameters; each cell's seed is deriveSeed(seed, cell) (docs/experiments.md), and
    // each finished cell is one of its metric rows (seq = cell), so that a resumed sweep keeps it.
    QVector<qint64> runIds(nAlg, -1);
    if (m_resuming) {
        for (const RunRecord& r : std::as_const(m_resumeRuns)) {
            const int a = r.info.value(QStringLiteral("algorithm_index")).toInt(-1);
            if (a < 0 || a >= nAlg || r.algorithmId != spec.algorithms[a].id || runIds[a] >= 0)
                continue;
            runIds[a] = r.id;
            for (const MetricPoint& p : m_store->metrics(r.id, &result.error)) {
                if (p.seq < 0 || p.seq >= cells)
                    continue;
                trainRmse[a][size_t(p.seq)] = p.trainRmse;
                testRmse[a][size_t(p.seq)] = p.testRmse;
                status[a][size_t(p.seq)] = 1;
            }
            if (!result.error.isEmpty())
                return result;
        }
        for (int a = 0; a < nAlg; ++a)
            if (runIds[a] < 0) {
                result.error = QStringLiteral("cannot resume experiment %1: it has no run of %2 (algorithm %3)")
                                   .arg(experimentId)
                                   .arg(labels[a])
                                   .arg(a);
                return result;
            }
        // A cell counts as done when every algorithm finished it; the others run again, whole.
        for (qint64 cell = 0; cell < cells; ++cell) {
            bool all = true;
            for (int a = 0; a < nAlg; ++a)
                all = all && status[a][size_t(cell)] == 1;
            cellDone[size_t(cell)] = all;
        }
        if (!m_store->deleteSweepPoints(experimentId)) {
            result.error = QStringLiteral("cannot resume: %1").arg(m_store->lastError());
            return result;
        }
    } else if (writesExperiment()) {
        for (int a = 0; a < nAlg; ++a) {
            const AlgorithmRun& alg = spec.algorithms[a];
            const AlgorithmEntry* entry = m_registry.algorithm(alg.id);
            if (!entry)
                continue;
            RunRecord rec;
            rec.experimentId = experimentId;
            rec.algorithmId = alg.id;
            rec.algorithmName = labels[a];
            rec.pluginId = entry->plugin->id;
            rec.pluginVersion = entry->plugin->version;
            QString err;
            rec.params = entry->info.schema.normalise(alg.params, &err).value_or(alg.params);
            rec.dataset = description;
            rec.seed = spec.seed;
            rec.threads = threads;
            rec.started = QDateTime::currentDateTimeUtc();
            rec.appVersion = QStringLiteral(TB_APP_VERSION);
            rec.info = QJsonObject{{"algorithm_index", a}};
            const QJsonObject replaced = Runner::replacementFact(entry);
            for (auto it = replaced.begin(); it != replaced.end(); ++it)
                rec.info.insert(it.key(), it.value());
            runIds[a] = m_store->createRun(rec);
        }
    }
    if (obs)
        obs->experimentStarted(experimentId, spec, total);

    // Algorithm a's run on one cell's data (a template of its cells until seed, σ and data are set).
    auto cellJob = [&](int a) {
        RunJob job;
        job.algorithmId = spec.algorithms[a].id;
        job.label = labels[a];
        job.params = spec.algorithms[a].params;
        job.datasetDescription = description;
        job.timeBudgetSeconds = spec.timeBudgetSeconds;
        job.experimentId = experimentId;
        job.evaluateCheckpoints = false;
        job.logToStore = false;
        job.measureMemory = false; // cells train in parallel: one process-wide mark cannot tell them apart
        job.threads = threads;
        return job;
    };

    tbb::task_arena arena(threads);

    // Each algorithm's predicted cost of one cell, stored with its run row and shown before
    // the cells start (in the arena the cells use: some trainers calibrate a rate).
    QVector<QJsonObject> cellCosts(nAlg);
    const ProblemShape cellShape = CostPrediction::shapeOf(probe->train);
    if (!m_executor->isWorker())
        arena.execute([&] {
            for (int a = 0; a < nAlg; ++a) {
                const AlgorithmRun& alg = spec.algorithms[a];
                cellCosts[a] = CostPrediction::forAlgorithm(m_registry, alg.id, alg.params, cellShape).json();
                if (obs && !cellCosts[a].isEmpty()) {
                    RunJob cell = cellJob(a);
                    cell.data = probe;
                    obs->costPredicted(cell, runIds[a], cellCosts[a]);
                }
            }
        });
    probe.reset();

    std::atomic<int> done{0};
    std::atomic<int> lastReported{-1};
    std::mutex errorMutex;
    QSet<QString> errors;

    // The point of algorithm a at σ index s from the cells done so far.
    auto pointAt = [&](int a, int s) {
        std::vector<double> tr, te;
        for (int m = 0; m < mc; ++m) {
            const size_t cell = size_t(s) * size_t(mc) + size_t(m);
            if (status[a][cell] == 1) {
                tr.push_back(trainRmse[a][cell]);
                te.push_back(testRmse[a][cell]);
            }
        }
        SweepPoint p;
        p.algorithmId = spec.algorithms[a].id;
        p.algorithmName = labels[a];
        p.sigma = spec.sigmas[s];
        p.monteCarlo = int(tr.size());
        if (!tr.empty()) {
            const auto trs = num::meanStd(tr), tes = num::meanStd(te);
            p.trainRmseMean = trs.mean;
            p.trainRmseStd = trs.std;
            p.testRmseMean = tes.mean;
            p.testRmseStd = tes.std;
        }
        return p;
    };
    // Cells still running per σ: when one reaches zero its points are final and are shown at
    // once, so a live chart grows σ by σ instead of appearing at the end.
    std::vector<std::atomic<int>> pendingPerSigma(size_t(std::max(nSigma, 0)));
    for (int s = 0; s < nSigma; ++s) {
        int pending = 0;
        for (int m = 0; m < mc; ++m)
            pending += !cellDone[size_t(s) * size_t(mc) + size_t(m)];
        pendingPerSigma[size_t(s)] = pending;
        done += (mc - pending) * nAlg;
    }
    std::vector<char> reported(size_t(std::max(nSigma, 0)), 0);

    CellPlan plan;
    plan.count = int(cells);
    plan.arena = &arena;
    plan.stop = &m_stop;
    plan.log = nullptr; // cells have no rows of their own
    plan.observer = nullptr;
    plan.skip = cellDone;
    // Cells are claimed in order (σ-major): σ values complete roughly in order for the live chart.
    plan.atOnce = threads;
    plan.work = [&](int cell, RunLog*, RunObserver*) {
        const int s = cell / mc;
        const std::uint64_t cellSeed = deriveSeed(spec.seed, std::uint64_t(cell));
        CellOutput out;
        std::shared_ptr<const data::DatasetPair> d;
        QString loadError;
        try {
            d = std::make_shared<const data::DatasetPair>(data::DataSource::load(
                spec.dataset, spec.baseDir, data::DataOverrides{spec.sigmas[s], cellSeed}));
        } catch (const std::bad_alloc&) {
            loadError = QStringLiteral("out of memory while generating the data of σ = %1 (%2)")
                            .arg(spec.sigmas[s])
                            .arg(description);
        } catch (const std::exception& e) {
            loadError = QString::fromUtf8(e.what());
        }
        for (int a = 0; a < nAlg && !m_stop.stopRequested(); ++a) {
            if (!d) {
                RunResult failed;
                failed.error = loadError;
                out.runs << failed;
                continue;
            }
            RunJob job = cellJob(a);
            job.seed = cellSeed; // every algorithm of a cell sees the same data and seed
            job.sigma = spec.sigmas[s];
            job.data = d;
            RunResult rr = Runner(m_registry, nullptr).execute(job, m_stop, nullptr);
            rr.points.clear(); // the last point is all a sweep keeps
            out.runs << rr;
        }
        return out;
    };
    plan.failed = [&](int, RunStatus status, const QString& why, const QList<qint64>&) {
        CellOutput out;
        for (int a = 0; a < nAlg; ++a) {
            RunResult rr;
            rr.status = status;
            rr.error = why;
            out.runs << rr;
        }
        return out;
    };
    plan.done = [&](int cell, CellOutput&& out) {
        const int s = cell / mc;
        for (int a = 0; a < int(out.runs.size()) && a < nAlg; ++a) {
            const RunResult& rr = out.runs[a];
            if (rr.status == RunStatus::Finished) {
                trainRmse[a][size_t(cell)] = rr.last.trainRmse;
                testRmse[a][size_t(cell)] = rr.last.testRmse;
                status[a][size_t(cell)] = 1;
                if (m_store && runIds[a] >= 0) {
                    MetricPoint p = rr.last;
                    p.seq = cell;
                    p.trainTime = rr.trainSeconds;
                    m_store->appendMetric(runIds[a], p);
                }
            } else if (rr.status == RunStatus::Failed || rr.status == RunStatus::Diverged) {
                status[a][size_t(cell)] = rr.status == RunStatus::Failed ? 2 : 3;
                std::lock_guard lock(errorMutex);
                if (errors.size() < 20)
                    errors.insert(QStringLiteral("%1 (σ=%2): %3").arg(labels[a]).arg(spec.sigmas[s]).arg(rr.error));
            }
            const int now = ++done;
            // Report about every 0.5 % so observers are not flooded by 10⁵ tiny runs.
            if (obs && (now == total || now - lastReported.load() >= std::max(1, total / 200))) {
                lastReported = now;
                obs->progress(now, total);
            }
        }
        // The decrement publishes this cell's results (release) to the thread that sees zero.
        if (pendingPerSigma[size_t(s)].fetch_sub(1, std::memory_order_acq_rel) == 1 && !m_stop.stopRequested() && obs) {
            reported[size_t(s)] = 1;
            for (int a = 0; a < nAlg; ++a)
                obs->sweepPointReady(pointAt(a, s));
        }
    };
    m_executor->run(plan);

    result.runsPlanned = total;
    for (int a = 0; a < nAlg; ++a) {
        int ok = 0, failed = 0, diverged = 0;
        for (size_t cell = 0; cell < size_t(cells); ++cell) {
            ok += status[a][cell] == 1;
            failed += status[a][cell] == 2;
            diverged += status[a][cell] == 3;
        }
        for (int s = 0; s < nSigma; ++s) {
            const SweepPoint p = pointAt(a, s);
            result.sweep << p;
            if (writesExperiment() && experimentId >= 0)
                m_store->addSweepPoint(experimentId, p);
            // σ values cut short by Stop: their partial statistics, once, at the end.
            if (obs && !reported[size_t(s)])
                obs->sweepPointReady(p);
        }
        result.runsFinished += ok;
        result.runsFailed += failed + diverged;
        result.runsCancelled += int(cells) - ok - failed - diverged; // cut short or never run by Stop
        RunStatus st = RunStatus::Finished;
        QString err;
        if (const QString failure = storeFailure(); !failure.isEmpty()) {
            st = RunStatus::Failed; // stopped by the store, not by the user
            err = QStringLiteral("stopped because the run store failed: %1").arg(failure);
        } else if (m_stop.stopRequested())
            st = RunStatus::Cancelled;
        else if (ok == 0) {
            st = diverged > 0 && failed == 0 ? RunStatus::Diverged : RunStatus::Failed;
            err = QStringLiteral("no cell finished");
        }
        if (writesExperiment() && runIds[a] >= 0) {
            QJsonObject info{{"cells", double(cells)}, {"cells_finished", ok}, {"cells_failed", failed},
                             {"cells_diverged", diverged}, {"cell_seed_rule", "deriveSeed(seed, sigma_index*monte_carlo + mc_index)"},
                             {"algorithm_index", a}};
            if (!cellCosts[a].isEmpty())
                info.insert("predicted_cost_per_cell", cellCosts[a]);
            m_store->finishRun(runIds[a], st, err, info);
        }
        const SweepRun sr{spec.algorithms[a].id, labels[a], runIds[a], spec.seed, st};
        result.sweepRuns << sr;
    }
    result.runErrors = QStringList(errors.values());
    result.runErrors.sort();
    return result;
}

ExperimentResult ExperimentRunner::runParamSweep(const ExperimentSpec& spec, qint64 experimentId,
                                                 ExperimentObserver* obs)
{
    ExperimentResult result;
    const int threads = spec.effectiveThreads();
    if (ParamSweep::cellCount(spec) > ParamSweep::maxCells) {
        result.error = QStringLiteral("sweep: %1 cells, at most %2").arg(ParamSweep::cellCount(spec)).arg(ParamSweep::maxCells);
        return result;
    }
    const QList<QJsonObject> sets = ParamSweep::datasets(spec);
    const QList<QVariantMap> points = ParamSweep::points(spec.paramSweep);
    const QList<SweepCell> cells = ParamSweep::cells(spec);
    const int nAlg = int(spec.algorithms.size());
    const int nPts = int(points.size());

    // Every data-set option is loaded once, up front: a bad one fails before any run starts.
    std::vector<std::shared_ptr<const data::DatasetPair>> data;
    QStringList descriptions;
    for (int d = 0; d < sets.size(); ++d) {
        try {
            data.push_back(std::make_shared<const data::DatasetPair>(
                data::DataSource::load(sets[d], spec.baseDir, data::DataOverrides{std::nullopt, spec.seed})));
        } catch (const std::exception& e) {
            result.error = spec.paramSweep.datasets.isEmpty()
                               ? QString::fromUtf8(e.what())
                               : QStringLiteral("sweep.datasets[%1]: %2").arg(d).arg(QString::fromUtf8(e.what()));
            return result;
        }
        descriptions << data::DataSource::describe(sets[d]);
    }

    // One configuration per (data-set option, algorithm, point).
    QSet<QString> keys;
    for (const QVariantMap& p : points)
        for (auto it = p.begin(); it != p.end(); ++it)
            keys.insert(it.key());
    result.sweptKeys = QStringList(keys.values());
    result.sweptKeys.sort();
    result.curves = ParamSweep::configurations(spec, &m_registry);
    for (int d = 0; d < sets.size(); ++d)
        for (int c = 0; c < nAlg * nPts; ++c)
            result.curves[d * nAlg * nPts + c].dataset = descriptions[d];
    auto configurationOf = [&](const SweepCell& cell) { return ParamSweep::configurationIndex(spec, cell); };

    const int total = int(cells.size());
    const int atOnce = std::clamp(spec.paramSweep.cellsAtOnce, 1, threads);
    // Every configuration (data-set option, algorithm, point), sweep.cells_at_once of them at once.
    {
        QList<MemoryCheck::Demand> demands;
        QSet<int> seen;
        for (const SweepCell& cell : cells) {
            const int conf = configurationOf(cell);
            if (seen.contains(conf))
                continue;
            seen.insert(conf);
            demands << MemoryCheck::Demand{result.curves[conf].label, spec.algorithms[cell.algorithmIndex].id,
                                           cell.params, CostPrediction::shapeOf(data[size_t(cell.datasetIndex)]->train),
                                           atOnce};
        }
        if (!refuseOverMemory(demands, threads, result))
            return result;
    }
    std::vector<RunResult> results(size_t(cells.size()));
    std::vector<char> ran(size_t(cells.size()), 0);
    std::mutex errorMutex;
    QSet<QString> errors;

    auto jobOf = [&](int i) {
        const SweepCell& cell = cells[i];
        const int conf = configurationOf(cell);
        RunJob job;
        job.algorithmId = spec.algorithms[cell.algorithmIndex].id;
        job.label = result.curves[conf].label;
        job.params = cell.params;
        job.seed = cell.seed;
        job.repeat = cell.repeat;
        job.data = data[size_t(cell.datasetIndex)];
        job.datasetDescription = descriptions[cell.datasetIndex];
        job.timeBudgetSeconds = spec.timeBudgetSeconds;
        job.experimentId = experimentId;
        job.threads = threads;
        job.measureMemory = atOnce == 1;
        if (atOnce > 1)
            job.memoryNote = QStringLiteral("%1 sweep cells trained at once (sweep.cells_at_once)").arg(atOnce);
        // Enough to regroup the stored runs into this result (StoredRuns::group) and to re-run the cell.
        job.hostFacts.insert(QStringLiteral("sweep_cell"),
                             QJsonObject{{"index", cell.index},
                                         {"dataset", cell.datasetIndex},
                                         {"algorithm", cell.algorithmIndex},
                                         {"point", cell.pointIndex},
                                         {"configuration", result.curves[conf].configuration},
                                         {"setting", QJsonObject::fromVariantMap(cell.setting)}});
        return job;
    };
    if (m_resuming) {
        auto cellOf = [&](const RunRecord& r) {
            const int i = r.info.value(QStringLiteral("sweep_cell")).toObject().value(QStringLiteral("index")).toInt(-1);
            return i >= 0 && i < total && spec.algorithms[cells[i].algorithmIndex].id == r.algorithmId ? i : -1;
        };
        if (!takeFinishedRuns(total, cellOf, results, ran, &result.error))
            return result;
    }
    if (obs)
        obs->experimentStarted(experimentId, spec, total);
    std::atomic<int> done{int(std::count(ran.begin(), ran.end(), 1))};

    // Cells are claimed in list order by atOnce loops; with the default of one, each cell has the
    // whole arena (timings compare with a learning curve's). Results depend only on each cell's seed.
    tbb::task_arena arena(threads);
    CellPlan plan = runPerCell(total, atOnce, arena, obs, ran, jobOf);
    plan.done = [&](int i, CellOutput&& out) {
        RunResult rr = out.runs.value(0);
        blameStoreFailure(rr);
        if (rr.status == RunStatus::Failed || rr.status == RunStatus::Diverged) {
            std::lock_guard lock(errorMutex);
            if (errors.size() < 20)
                errors.insert(QStringLiteral("%1: %2").arg(result.curves[configurationOf(cells[i])].label, rr.error));
        }
        if (obs)
            obs->cellFinished(cells[i], configurationOf(cells[i]), rr);
        results[size_t(i)] = std::move(rr);
        ran[size_t(i)] = 1;
        if (obs)
            obs->progress(++done, total);
    };
    m_executor->run(plan);

    result.runsPlanned = total;
    const Runner runner(m_registry, writesExperiment() ? m_store : nullptr);
    for (int i = 0; i < total; ++i) {
        AlgorithmCurves& c = result.curves[configurationOf(cells[i])];
        if (!ran[size_t(i)]) {
            // Stopped before this cell began: still part of the experiment, stored as cancelled
            // with its seed and parameters (so it can be re-run), never dropped.
            const RunJob job = jobOf(i);
            c.repeatNumbers << cells[i].repeat;
            c.seeds << cells[i].seed;
            appendNotStarted(c, runner.recordNotStarted(job));
            result.runsCancelled++;
            result.runsNotStarted++;
            continue;
        }
        const RunResult& rr = results[size_t(i)];
        appendRun(c, rr, cells[i].repeat, cells[i].seed);
        count(result, rr.status);
        if (m_resuming && (rr.status == RunStatus::Failed || rr.status == RunStatus::Diverged)) {
            std::lock_guard lock(errorMutex);
            errors.insert(QStringLiteral("%1: %2").arg(c.label, rr.error));
        }
    }
    result.runErrors = QStringList(errors.values());
    result.runErrors.sort();
    return result;
}

} // namespace tb
