#include "NoiseSweepRun.h"

#include <engine/CostPrediction.h>
#include <engine/PluginRegistry.h>
#include <engine/PreparedConfiguration.h>
#include <store/RunStore.h>

#include <data/DataSource.h>
#include <numerics/LaneExp.h>
#include <numerics/Metrics.h>
#include <trainbench/LockstepTrainer.h>
#include <trainbench/Seeds.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <tbb/task_arena.h>

#ifndef TB_APP_VERSION
#define TB_APP_VERSION "0.0.0"
#endif

namespace tb {

NoiseSweepRun::NoiseSweepRun(ExperimentContext& ctx, const ExperimentSpec& spec, const NoiseSweepSection& section,
                             qint64 experimentId, ExperimentObserver* observer)
    : m_ctx(ctx), m_spec(spec), m_section(section), m_experimentId(experimentId), m_obs(observer),
      m_threads(spec.effectiveThreads()), m_nAlg(int(spec.algorithms.size())), m_nSigma(int(section.sigmas.size())),
      m_mc(section.monteCarlo), m_cells(qint64(m_nSigma) * m_mc),
      m_total(int(std::min<qint64>(m_cells * m_nAlg, std::numeric_limits<int>::max()))),
      m_description(data::DataSource::describe(spec.dataset))
{
}

ExperimentResult NoiseSweepRun::run()
{
    if (m_cells > std::numeric_limits<int>::max()) {
        m_result.error = QStringLiteral("noise sweep: %1 cells (sigmas × monte_carlo), at most %2")
                             .arg(m_cells)
                             .arg(std::numeric_limits<int>::max());
        return m_result;
    }
    if (!loadProbe() || !checkMemory())
        return m_result;
    m_trainRmse.assign(size_t(m_nAlg), std::vector<double>(size_t(m_cells), NaN));
    m_testRmse.assign(size_t(m_nAlg), std::vector<double>(size_t(m_cells), NaN));
    m_status.assign(size_t(m_nAlg), std::vector<char>(size_t(m_cells), 0));
    m_cellDone.assign(size_t(m_cells), 0);
    m_kept.assign(size_t(m_nAlg), std::vector<char>(size_t(m_cells), 0));
    m_runIds = QVector<qint64>(m_nAlg, -1);
    // One run row per algorithm stands for all its cells: it carries the plugin version and
    // complete parameters; each cell's seed is deriveSeed(seed, cell) (docs/experiments.md), and
    // each finished cell is one of its metric rows (seq = cell), so that a resumed sweep keeps it.
    if (m_ctx.resuming()) {
        if (!restoreStoredCells())
            return m_result;
    } else if (m_ctx.writesExperiment()) {
        createRows();
    }
    if (m_obs)
        m_obs->experimentStarted(m_experimentId, m_spec, m_total);

    tbb::task_arena arena(m_threads);
    predictCosts(arena);
    m_probe.reset();
    m_runner = std::make_unique<Runner>(m_ctx.registry(), nullptr);
    chooseLockstep();
    countPending();
    CellPlan p = plan(arena);
    m_ctx.executor().run(p);
    finishRows();
    m_result.runErrors = QStringList(m_errors.values());
    m_result.runErrors.sort();
    return m_result;
}

bool NoiseSweepRun::loadProbe()
{
    // Check the data source once up front so a bad spec fails fast, not once per cell; every
    // cell has the shape of this one.
    m_probe = ExperimentContext::loadData(
        m_spec.dataset, m_spec.baseDir, data::DataOverrides{m_section.sigmas.value(0), m_spec.seed},
        QStringLiteral("out of memory while generating the data set (%1)").arg(m_description), &m_result.error);
    if (!m_probe)
        return false;
    m_result.warnings = m_probe->warnings;
    m_cellShape = CostPrediction::shapeOf(m_probe->train);
    m_labels = m_ctx.labels(m_spec);
    for (const AlgorithmRun& a : m_spec.algorithms)
        m_prepared.push_back(m_ctx.registry().prepared(a.id, a.params));
    return true;
}

bool NoiseSweepRun::checkMemory()
{
    // Cells train side by side, one algorithm after the other in each: every algorithm's memory
    // times the cells at once must fit.
    QList<MemoryCheck::Demand> demands;
    for (int a = 0; a < m_nAlg; ++a)
        demands << MemoryCheck::Demand{m_labels[a], m_spec.algorithms[a].id, m_spec.algorithms[a].params,
                                       CostPrediction::shapeOf(m_probe->train),
                                       int(std::min<qint64>(m_threads, std::max<qint64>(m_cells, 1)))};
    return m_ctx.refuseOverMemory(demands, m_threads, m_result);
}

bool NoiseSweepRun::restoreStoredCells()
{
    for (const RunRecord& r : std::as_const(m_ctx.resumeRuns())) {
        const int a = r.info.value(QStringLiteral("algorithm_index")).toInt(-1);
        if (a < 0 || a >= m_nAlg || r.algorithmId != m_spec.algorithms[a].id || m_runIds[a] >= 0)
            continue;
        m_runIds[a] = r.id;
        for (const MetricPoint& p : m_ctx.store()->metrics(r.id, &m_result.error)) {
            if (p.seq < 0 || p.seq >= m_cells)
                continue;
            m_trainRmse[size_t(a)][size_t(p.seq)] = p.trainRmse;
            m_testRmse[size_t(a)][size_t(p.seq)] = p.testRmse;
            m_status[size_t(a)][size_t(p.seq)] = 1;
            m_kept[size_t(a)][size_t(p.seq)] = 1;
        }
        if (!m_result.error.isEmpty())
            return false;
    }
    for (int a = 0; a < m_nAlg; ++a)
        if (m_runIds[a] < 0) {
            m_result.error = QStringLiteral("cannot resume experiment %1: it has no run of %2 (algorithm %3)")
                                 .arg(m_experimentId)
                                 .arg(m_labels[a])
                                 .arg(a);
            return false;
        }
    // A cell counts as done when every algorithm finished it; in the others, the algorithms that
    // had not finished it run again.
    for (qint64 cell = 0; cell < m_cells; ++cell) {
        bool all = true;
        for (int a = 0; a < m_nAlg; ++a)
            all = all && m_status[size_t(a)][size_t(cell)] == 1;
        m_cellDone[size_t(cell)] = all;
    }
    if (!m_ctx.store()->deleteSummaryPoints(m_experimentId)) {
        m_result.error = QStringLiteral("cannot resume: %1").arg(m_ctx.store()->lastError());
        return false;
    }
    return true;
}

void NoiseSweepRun::createRows()
{
    for (int a = 0; a < m_nAlg; ++a) {
        const AlgorithmRun& alg = m_spec.algorithms[a];
        const AlgorithmEntry* entry = m_ctx.registry().algorithm(alg.id);
        if (!entry)
            continue;
        RunRecord rec;
        rec.experimentId = m_experimentId;
        rec.algorithmId = alg.id;
        rec.algorithmName = m_labels[a];
        rec.pluginId = entry->plugin->id;
        rec.pluginVersion = entry->plugin->version;
        const PreparedConfiguration& prepared = *m_prepared[size_t(a)];
        rec.params = prepared.hasParams() ? prepared.params() : alg.params;
        rec.dataset = m_description;
        rec.seed = m_spec.seed;
        rec.threads = m_threads;
        rec.started = QDateTime::currentDateTimeUtc();
        rec.appVersion = QStringLiteral(TB_APP_VERSION);
        rec.info = QJsonObject{{"algorithm_index", a}};
        const QJsonObject replaced = Runner::replacementFact(entry);
        for (auto it = replaced.begin(); it != replaced.end(); ++it)
            rec.info.insert(it.key(), it.value());
        m_runIds[a] = m_ctx.store()->createRun(rec);
    }
}

RunJob NoiseSweepRun::cellJob(int a) const
{
    // Algorithm a's run on one cell's data (a template of its cells until seed, σ and data are set).
    RunJob job;
    job.algorithmId = m_spec.algorithms[a].id;
    job.label = m_labels[a];
    job.params = m_spec.algorithms[a].params;
    job.prepared = m_prepared[size_t(a)];
    job.datasetDescription = m_description;
    job.budget = m_spec.budgetOf(a);
    job.experimentId = m_experimentId;
    job.evaluateCheckpoints = false;
    job.logToStore = false;
    job.measureMemory = false; // cells train in parallel: one process-wide mark cannot tell them apart
    job.threads = m_threads;
    return job;
}

void NoiseSweepRun::predictCosts(tbb::task_arena& arena)
{
    // Each algorithm's predicted cost of one cell, stored with its run row and shown before the
    // cells start (in the arena the cells use: some trainers calibrate a rate).
    m_cellCosts = QVector<QJsonObject>(m_nAlg);
    if (m_ctx.executor().isWorker())
        return;
    arena.execute([&] {
        for (int a = 0; a < m_nAlg; ++a) {
            const AlgorithmRun& alg = m_spec.algorithms[a];
            m_cellCosts[a] = CostPrediction::forAlgorithm(m_ctx.registry(), alg.id, alg.params, m_cellShape).json();
            if (m_obs && !m_cellCosts[a].isEmpty()) {
                RunJob cell = cellJob(a);
                cell.data = m_probe;
                m_obs->costPredicted(cell, m_runIds[a], m_cellCosts[a]);
            }
        }
    });
}

void NoiseSweepRun::chooseLockstep()
{
    // Lock step (LockstepTrainer.h): an algorithm whose trainer fits several replicas at once gets
    // a cell's consecutive Monte-Carlo neighbours of the same σ with it. The executor then hands
    // out packs of `m_pack` cells (one work item each, σ by σ; the last pack of a σ may be
    // smaller); every other algorithm trains the pack's cells one by one, as before. Each cell's
    // runs, results and statuses are those of the cell alone. Without such an algorithm a pack is
    // one cell, exactly as before. (The shape is the probe's, read before it was released.)
    m_lockstepWidth.assign(size_t(m_nAlg), 0);
    m_pack = 1;
    for (int a = 0; a < m_nAlg; ++a) {
        QString err;
        RunBudget budget;
        const std::unique_ptr<Trainer> t = m_runner->createTrainer(cellJob(a), &err, &budget);
        const auto* l = dynamic_cast<const LockstepTrainer*>(t.get());
        // A budget is each run's own clock: such runs train one by one.
        if (!l || budget.isSet() || m_spec.budgetOf(a).isSet())
            continue;
        const int w = std::min(l->lockstepWidth(m_cellShape), 64);
        if (w >= 2) {
            m_lockstepWidth[size_t(a)] = w;
            m_pack = std::max(m_pack, w);
        }
    }
    m_packsPerSigma = (m_mc + m_pack - 1) / m_pack;
    m_packs = qint64(m_nSigma) * m_packsPerSigma;
}

NoiseSweepRun::Cells NoiseSweepRun::cellsOf(int unit) const
{
    const int s = int(unit / m_packsPerSigma);
    const int j = int(unit % m_packsPerSigma);
    return Cells{s * m_mc + j * m_pack, std::min(m_pack, m_mc - j * m_pack)};
}

std::uint64_t NoiseSweepRun::seedOf(int cell) const
{
    return deriveSeed(m_spec.seed, std::uint64_t(cell));
}

SummaryPoint NoiseSweepRun::pointAt(int a, int s) const
{
    // The point of algorithm a at σ index s from the cells done so far.
    std::vector<double> tr, te;
    for (int m = 0; m < m_mc; ++m) {
        const size_t cell = size_t(s) * size_t(m_mc) + size_t(m);
        if (m_status[size_t(a)][cell] == 1) {
            tr.push_back(m_trainRmse[size_t(a)][cell]);
            te.push_back(m_testRmse[size_t(a)][cell]);
        }
    }
    SummaryPoint p;
    p.algorithmId = m_spec.algorithms[a].id;
    p.algorithmName = m_labels[a];
    p.x = m_section.sigmas[s];
    p.count = int(tr.size());
    if (!tr.empty()) {
        const auto trs = num::meanStd(tr), tes = num::meanStd(te);
        p.trainRmseMean = trs.mean;
        p.trainRmseStd = trs.std;
        p.testRmseMean = tes.mean;
        p.testRmseStd = tes.std;
    }
    return p;
}

void NoiseSweepRun::countPending()
{
    m_pendingPerSigma = std::vector<std::atomic<int>>(size_t(std::max(m_nSigma, 0)));
    for (int s = 0; s < m_nSigma; ++s) {
        int pending = 0;
        for (int m = 0; m < m_mc; ++m) {
            const size_t cell = size_t(s) * size_t(m_mc) + size_t(m);
            pending += !m_cellDone[cell];
            for (int a = 0; a < m_nAlg; ++a)
                m_done += m_kept[size_t(a)][cell];  // runs stored before a resume count as done
        }
        m_pendingPerSigma[size_t(s)] = pending;
    }
    m_reported.assign(size_t(std::max(m_nSigma, 0)), 0);
}

CellPlan NoiseSweepRun::plan(tbb::task_arena& arena)
{
    CellPlan plan;
    plan.count = int(m_packs);
    plan.arena = &arena;
    plan.stop = &m_ctx.stop();
    plan.log = nullptr; // cells have no rows of their own
    plan.observer = nullptr;
    // A pack is skipped when all its cells are done; a pack with some done trains the others (on
    // an MPI worker, which does not know, all of them: rank 0 keeps the stored ones).
    plan.skip.assign(size_t(m_packs), 0);
    for (int u = 0; u < int(m_packs); ++u) {
        const Cells c = cellsOf(u);
        bool all = true;
        for (int i = 0; i < c.count; ++i)
            all = all && m_cellDone[size_t(c.first + i)];
        plan.skip[size_t(u)] = all;
    }
    // Cells are claimed in order (σ-major): σ values complete roughly in order for the live chart.
    plan.atOnce = m_threads;
    plan.work = [this](int unit, RunLog*, RunObserver*) { return trainPack(unit); };
    plan.failed = [this](int unit, RunStatus status, const QString& why, const QList<qint64>&) {
        CellOutput out;
        for (int i = 0; i < cellsOf(unit).count * m_nAlg; ++i) {
            RunResult rr;
            rr.status = status;
            rr.error = why;
            out.runs << rr;
        }
        return out;
    };
    plan.done = [this](int unit, CellOutput&& out) {
        const Cells c = cellsOf(unit);
        for (int i = 0; i < c.count; ++i)
            finishCell(c.first + i, out, i);
    };
    return plan;
}

CellOutput NoiseSweepRun::trainPack(int unit)
{
    // A pack's output: nAlg runs per cell, cell by cell; a run never started (Stop came first, or
    // its cell was done before a resume) has status Running and is not counted.
    const Cells c = cellsOf(unit);
    const int s = c.first / m_mc;
    CellOutput out;
    for (int i = 0; i < c.count * m_nAlg; ++i) {
        RunResult r;
        r.status = RunStatus::Running;
        out.runs << r;
    }
    std::vector<std::shared_ptr<const data::DatasetPair>> d(size_t(c.count));
    std::vector<QString> loadError(size_t(c.count));
    auto wanted = [&](int i) { return !m_cellDone[size_t(c.first + i)]; };
    for (int i = 0; i < c.count; ++i) {
        if (!wanted(i))
            continue;
        try {
            d[size_t(i)] = std::make_shared<const data::DatasetPair>(data::DataSource::load(
                m_spec.dataset, m_spec.baseDir, data::DataOverrides{m_section.sigmas[s], seedOf(c.first + i)}));
        } catch (const std::bad_alloc&) {
            loadError[size_t(i)] = QStringLiteral("out of memory while generating the data of σ = %1 (%2)")
                                       .arg(m_section.sigmas[s])
                                       .arg(m_description);
        } catch (const std::exception& e) {
            loadError[size_t(i)] = QString::fromUtf8(e.what());
        }
    }
    for (int a = 0; a < m_nAlg && !m_ctx.stop().stopRequested(); ++a) {
        std::vector<char> trained(size_t(c.count), 0);
        trainInLockstep(a, c, d, trained, out);
        for (int i = 0; i < c.count && !m_ctx.stop().stopRequested(); ++i) {
            if (trained[size_t(i)] || !wanted(i) || m_kept[size_t(a)][size_t(c.first + i)])
                continue;
            if (!d[size_t(i)]) {
                RunResult failed;
                failed.error = loadError[size_t(i)];
                out.runs[i * m_nAlg + a] = failed;
                continue;
            }
            RunJob job = cellJob(a);
            job.seed = seedOf(c.first + i); // every algorithm of a cell sees the same data and seed
            job.sigma = m_section.sigmas[s];
            job.data = d[size_t(i)];
            RunResult rr = m_runner->execute(job, m_ctx.stop(), nullptr);
            // The last point, status, error and training time are all a sweep keeps
            // (finishCell()): the rest would only be copied — and on MPI encoded, sent and decoded
            // by rank 0 (the trainer's facts and parameters as JSON, a kilobyte a cell).
            rr.points.clear();
            rr.info = {};
            rr.params = {};
            out.runs[i * m_nAlg + a] = std::move(rr);
        }
    }
    return out;
}

void NoiseSweepRun::trainInLockstep(int a, const Cells& c, const std::vector<std::shared_ptr<const data::DatasetPair>>& d,
                                    std::vector<char>& trained, CellOutput& out)
{
    // The pack's cells with data, lockstepWidth at a time, fitted together; then each cell is an
    // ordinary run of its replica. A trainer that refuses (an exception) leaves its cells to the
    // one-by-one loop of trainPack().
    const int s = c.first / m_mc;
    const int width = m_lockstepWidth[size_t(a)];
    for (int i0 = 0; width >= 2 && i0 < c.count && !m_ctx.stop().stopRequested();) {
        std::vector<int> group;
        for (; i0 < c.count && int(group.size()) < width; ++i0)
            if (!m_cellDone[size_t(c.first + i0)] && !m_kept[size_t(a)][size_t(c.first + i0)] && d[size_t(i0)])
                group.push_back(i0);
        if (group.empty())
            break;
        QString err;
        std::unique_ptr<Trainer> t = m_runner->createTrainer(cellJob(a), &err);
        auto* l = dynamic_cast<LockstepTrainer*>(t.get());
        if (!l)
            continue;
        std::vector<DatasetView> views;
        std::vector<std::uint64_t> seeds;
        for (int i : group) {
            views.push_back(d[size_t(i)]->train.view());
            seeds.push_back(seedOf(c.first + i));
        }
        double seconds = 0;
        try {
            const auto t0 = std::chrono::steady_clock::now();
            l->fitReplicas(views, seeds, m_ctx.stop().token());
            seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        } catch (const std::exception&) {
            continue;  // trained one by one
        }
        for (int r = 0; r < int(group.size()); ++r) {
            const int i = group[size_t(r)];
            std::unique_ptr<Trainer> replica;
            try {
                replica = l->replica(r);
            } catch (const std::exception&) {
                continue;
            }
            RunJob job = cellJob(a);
            job.seed = seedOf(c.first + i);
            job.sigma = m_section.sigmas[s];
            job.data = d[size_t(i)];
            RunResult rr = m_runner->execute(job, m_ctx.stop(), nullptr, std::move(replica));
            // The replica's run replays its checkpoints; its share of the fit is its time.
            rr.trainSeconds += seconds / double(group.size());
            rr.points.clear();
            rr.info = {};
            rr.params = {};
            out.runs[i * m_nAlg + a] = std::move(rr);
            trained[size_t(i)] = 1;
        }
    }
}

void NoiseSweepRun::finishCell(int cell, const CellOutput& out, int i)
{
    // One cell's share of a pack's output (runs i·nAlg … i·nAlg + nAlg − 1).
    if (m_cellDone[size_t(cell)])
        return;  // kept from before a resume
    const int s = cell / m_mc;
    for (int a = 0; a < m_nAlg && i * m_nAlg + a < int(out.runs.size()); ++a) {
        const RunResult& rr = out.runs[i * m_nAlg + a];
        if (rr.status == RunStatus::Running || m_kept[size_t(a)][size_t(cell)])
            continue;  // never started, or stored before a resume (an MPI worker trains it anyway)
        if (rr.status == RunStatus::Finished) {
            m_trainRmse[size_t(a)][size_t(cell)] = rr.last.trainRmse;
            m_testRmse[size_t(a)][size_t(cell)] = rr.last.testRmse;
            m_status[size_t(a)][size_t(cell)] = 1;
            if (m_ctx.store() && m_runIds[a] >= 0) {
                MetricPoint p = rr.last;
                p.seq = cell;
                p.trainTime = rr.trainSeconds;
                m_ctx.store()->appendMetric(m_runIds[a], p);
            }
        } else if (rr.status == RunStatus::Failed || rr.status == RunStatus::Diverged) {
            m_status[size_t(a)][size_t(cell)] = rr.status == RunStatus::Failed ? 2 : 3;
            std::lock_guard lock(m_errorMutex);
            if (m_errors.size() < 20)
                m_errors.insert(QStringLiteral("%1 (σ=%2): %3").arg(m_labels[a]).arg(m_section.sigmas[s]).arg(rr.error));
        }
        const int now = ++m_done;
        // Report about every 0.5 % so observers are not flooded by 10⁵ tiny runs.
        if (m_obs && (now == m_total || now - m_lastReported.load() >= std::max(1, m_total / 200))) {
            m_lastReported = now;
            m_obs->progress(now, m_total);
        }
    }
    // The decrement publishes this cell's results (release) to the thread that sees zero.
    if (m_pendingPerSigma[size_t(s)].fetch_sub(1, std::memory_order_acq_rel) == 1 && !m_ctx.stop().stopRequested() &&
        m_obs) {
        m_reported[size_t(s)] = 1;
        for (int a = 0; a < m_nAlg; ++a)
            m_obs->summaryPointReady(pointAt(a, s));
    }
}

void NoiseSweepRun::finishRows()
{
    m_result.runsPlanned = m_total;
    for (int a = 0; a < m_nAlg; ++a) {
        int ok = 0, failed = 0, diverged = 0;
        for (size_t cell = 0; cell < size_t(m_cells); ++cell) {
            ok += m_status[size_t(a)][cell] == 1;
            failed += m_status[size_t(a)][cell] == 2;
            diverged += m_status[size_t(a)][cell] == 3;
        }
        for (int s = 0; s < m_nSigma; ++s) {
            const SummaryPoint p = pointAt(a, s);
            m_result.summary << p;
            if (m_ctx.writesExperiment() && m_experimentId >= 0)
                m_ctx.store()->addSummaryPoint(m_experimentId, p);
            // σ values cut short by Stop: their partial statistics, once, at the end.
            if (m_obs && !m_reported[size_t(s)])
                m_obs->summaryPointReady(p);
        }
        m_result.runsFinished += ok;
        m_result.runsFailed += failed + diverged;
        m_result.runsCancelled += int(m_cells) - ok - failed - diverged; // cut short or never run by Stop
        RunStatus st = RunStatus::Finished;
        QString err;
        if (const QString failure = m_ctx.storeFailure(); !failure.isEmpty()) {
            st = RunStatus::Failed; // stopped by the store, not by the user
            err = QStringLiteral("stopped because the run store failed: %1").arg(failure);
        } else if (m_ctx.stop().stopRequested())
            st = RunStatus::Cancelled;
        else if (ok == 0) {
            st = diverged > 0 && failed == 0 ? RunStatus::Diverged : RunStatus::Failed;
            err = QStringLiteral("no cell finished");
        }
        if (m_ctx.writesExperiment() && m_runIds[a] >= 0) {
            QJsonObject info{{"cells", double(m_cells)}, {"cells_finished", ok}, {"cells_failed", failed},
                             {"cells_diverged", diverged}, {"cell_seed_rule", "deriveSeed(seed, sigma_index*monte_carlo + mc_index)"},
                             {"algorithm_index", a}};
            if (!m_cellCosts[a].isEmpty())
                info.insert("predicted_cost_per_cell", m_cellCosts[a]);
            // Which path the cells took: fitted in packs of this many replicas (0: one by one).
            info.insert("lock_step_width", m_lockstepWidth[size_t(a)]);
            if (m_lockstepWidth[size_t(a)] > 0) {
                info.insert("lock_step_lanes", QString::fromLatin1(num::kLanesInstructionSet));
                info.insert("lock_step_exp", QString::fromLatin1(num::laneExpPath()));
            }
            // The row stands for every cell: the build and CPU that trained them (rank 0's under MPI).
            const QJsonObject machine = Runner::machineFacts();
            for (auto it = machine.begin(); it != machine.end(); ++it)
                info.insert(it.key(), it.value());
            m_ctx.store()->finishRun(m_runIds[a], st, err, info);
        }
        m_result.summaryRuns << SummaryRun{m_spec.algorithms[a].id, m_labels[a], m_runIds[a], m_spec.seed, st};
    }
}

} // namespace tb
