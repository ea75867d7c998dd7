// The noise sweep: the BPLS paper's Fig. 4–5. A σ grid × Monte-Carlo repetitions of a generator with
// noisy training targets; every algorithm trains on every cell's data (seed deriveSeed(seed, cell)),
// and train and test RMSE are aggregated per σ. One stored run per algorithm stands for all its cells.

#include "ExperimentContext.h"
#include "ExperimentKind.h"
#include "CostPrediction.h"
#include "PluginRegistry.h"
#include "RunStore.h"

#include <DataSource.h>
#include <Metrics.h>
#include <trainbench/LockstepTrainer.h>
#include <trainbench/Seeds.h>

#include <QJsonArray>
#include <QSet>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <tbb/task_arena.h>

#ifndef TB_APP_VERSION
#define TB_APP_VERSION "0.0.0"
#endif

namespace tb {
namespace {

class NoiseSweepKind : public ExperimentKind {
public:
    QString id() const override { return kinds::NoiseSweep; }
    QString label() const override { return QStringLiteral("Noise sweep"); }
    QString description() const override
    {
        return QStringLiteral("Train and test RMSE against the noise level σ of a generator, over Monte-Carlo "
                              "repetitions (the BPLS paper's Fig. 4 and 5).");
    }
    int order() const override { return 20; }

    bool parseSweep(const QJsonValue& sw, ExperimentSpec& s, QString* key, QString* message) const override
    {
        auto fail = [&](const QString& k, const QString& m) {
            *key = k;
            *message = m;
            return false;
        };
        if (!sw.isObject())
            return fail(QStringLiteral("sweep"),
                        QStringLiteral("a noise-sweep needs {\"sigma\": [...], \"monte_carlo\": N}, got %1").arg(jsonValueText(sw)));
        const QJsonObject so = sw.toObject();
        for (auto it = so.begin(); it != so.end(); ++it)
            if (it.key() != u"sigma" && it.key() != u"monte_carlo")
                return fail(QStringLiteral("sweep.") + it.key(), QStringLiteral("unknown key (known: sigma, monte_carlo)"));
        const QJsonValue sig = so.value(QStringLiteral("sigma"));
        if (!sig.isArray() || sig.toArray().isEmpty())
            return fail(QStringLiteral("sweep.sigma"),
                        QStringLiteral("expected a non-empty array of noise levels, got %1").arg(jsonValueText(sig)));
        const QJsonArray sa = sig.toArray();
        for (int i = 0; i < sa.size(); ++i) {
            const double d = sa[i].toDouble(-1);
            if (!sa[i].isDouble() || !(d >= 0) || !std::isfinite(d))
                return fail(QStringLiteral("sweep.sigma[%1]").arg(i), QStringLiteral("expected σ ≥ 0, got %1").arg(jsonValueText(sa[i])));
            s.sigmas << d;
        }
        s.monteCarlo = 1;
        if (so.contains(QStringLiteral("monte_carlo"))) {
            const QJsonValue v = so.value(QStringLiteral("monte_carlo"));
            const double d = v.toDouble(std::nan(""));
            if (!v.isDouble() || d != std::floor(d))
                return fail(QStringLiteral("sweep.monte_carlo"), QStringLiteral("expected an integer, got %1").arg(jsonValueText(v)));
            if (d < 1 || d > 1000000)
                return fail(QStringLiteral("sweep.monte_carlo"), QStringLiteral("%1 is outside [1, 1000000]").arg(jsonValueText(v)));
            s.monteCarlo = int(d);
        }
        return true;
    }

    QStringList validate(const ExperimentSpec& spec, const PluginRegistry&) const override
    {
        if (data::DataSource::validate(spec.dataset).isEmpty() && !data::DataSource::hasNoiseLevel(spec.dataset))
            return {QStringLiteral("dataset.source: a noise-sweep needs a generator with a noise level (e.g. "
                                   "\"bpls-toy\"), got \"%1\"")
                        .arg(spec.dataset.value(QStringLiteral("source")).toString())};
        return {};
    }

    void write(const ExperimentSpec& spec, QJsonObject& json) const override
    {
        QJsonArray sa;
        for (double s : spec.sigmas)
            sa.append(s);
        json.insert("sweep", QJsonObject{{"sigma", sa}, {"monte_carlo", spec.monteCarlo}});
    }

    int plannedRuns(const ExperimentSpec& spec) const override
    {
        const qint64 n = qint64(spec.sigmas.size()) * spec.monteCarlo * spec.algorithms.size();
        return int(std::min<qint64>(n, std::numeric_limits<int>::max()));
    }
    bool runsOneAtATime(const ExperimentSpec&) const override { return false; }
    QString sideBySide(const ExperimentSpec& spec) const override
    {
        // Its cells train on every thread of the arena at once; on one thread, one after another.
        if (spec.effectiveThreads() == 1)
            return {};
        return QStringLiteral("its cells train %1 at once: set \"threads\": 1").arg(spec.effectiveThreads());
    }
    QStringList charts() const override { return {QStringLiteral("noise-sweep")}; }

    ExperimentResult run(ExperimentContext& ctx, const ExperimentSpec& spec, qint64 experimentId,
                         ExperimentObserver* obs) const override
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
        std::shared_ptr<const data::DatasetPair> probe = ExperimentContext::loadData(
            spec.dataset, spec.baseDir, data::DataOverrides{spec.sigmas.value(0), spec.seed},
            QStringLiteral("out of memory while generating the data set (%1)").arg(description), &result.error);
        if (!probe)
            return result;
        result.warnings = probe->warnings;

        const QStringList labels = ctx.labels(spec);
        // Cells train side by side, one algorithm after the other in each: every algorithm's memory
        // times the cells at once must fit.
        {
            QList<MemoryCheck::Demand> demands;
            for (int a = 0; a < nAlg; ++a)
                demands << MemoryCheck::Demand{labels[a], spec.algorithms[a].id, spec.algorithms[a].params,
                                               CostPrediction::shapeOf(probe->train),
                                               int(std::min<qint64>(threads, std::max<qint64>(cells, 1)))};
            if (!ctx.refuseOverMemory(demands, threads, result))
                return result;
        }
        // Results by [algorithm][cell]; NaN where a cell failed, diverged or was skipped.
        std::vector<std::vector<double>> trainRmse(nAlg, std::vector<double>(size_t(cells), NaN));
        std::vector<std::vector<double>> testRmse(nAlg, std::vector<double>(size_t(cells), NaN));
        std::vector<std::vector<char>> status(nAlg, std::vector<char>(size_t(cells), 0)); // 0 skipped 1 ok 2 failed 3 diverged
        std::vector<char> cellDone(size_t(cells), 0);
        // [algorithm][cell]: stored before a resume. Such a run is neither trained nor stored again
        // (its metric row exists: a second one would break the row's key), even when the cell's
        // other algorithms run again — a sweep stopped in the middle of a cell leaves some stored.
        std::vector<std::vector<char>> kept(nAlg, std::vector<char>(size_t(cells), 0));

        // One run row per algorithm stands for all its cells: it carries the plugin version and
        // complete parameters; each cell's seed is deriveSeed(seed, cell) (docs/experiments.md), and
        // each finished cell is one of its metric rows (seq = cell), so that a resumed sweep keeps it.
        QVector<qint64> runIds(nAlg, -1);
        if (ctx.resuming()) {
            for (const RunRecord& r : std::as_const(ctx.resumeRuns())) {
                const int a = r.info.value(QStringLiteral("algorithm_index")).toInt(-1);
                if (a < 0 || a >= nAlg || r.algorithmId != spec.algorithms[a].id || runIds[a] >= 0)
                    continue;
                runIds[a] = r.id;
                for (const MetricPoint& p : ctx.store()->metrics(r.id, &result.error)) {
                    if (p.seq < 0 || p.seq >= cells)
                        continue;
                    trainRmse[a][size_t(p.seq)] = p.trainRmse;
                    testRmse[a][size_t(p.seq)] = p.testRmse;
                    status[a][size_t(p.seq)] = 1;
                    kept[a][size_t(p.seq)] = 1;
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
            // A cell counts as done when every algorithm finished it; in the others, the algorithms
            // that had not finished it run again.
            for (qint64 cell = 0; cell < cells; ++cell) {
                bool all = true;
                for (int a = 0; a < nAlg; ++a)
                    all = all && status[a][size_t(cell)] == 1;
                cellDone[size_t(cell)] = all;
            }
            if (!ctx.store()->deleteSweepPoints(experimentId)) {
                result.error = QStringLiteral("cannot resume: %1").arg(ctx.store()->lastError());
                return result;
            }
        } else if (ctx.writesExperiment()) {
            for (int a = 0; a < nAlg; ++a) {
                const AlgorithmRun& alg = spec.algorithms[a];
                const AlgorithmEntry* entry = ctx.registry().algorithm(alg.id);
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
                runIds[a] = ctx.store()->createRun(rec);
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
            job.budget = spec.budgetOf(a);
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
        if (!ctx.executor().isWorker())
            arena.execute([&] {
                for (int a = 0; a < nAlg; ++a) {
                    const AlgorithmRun& alg = spec.algorithms[a];
                    cellCosts[a] = CostPrediction::forAlgorithm(ctx.registry(), alg.id, alg.params, cellShape).json();
                    if (obs && !cellCosts[a].isEmpty()) {
                        RunJob cell = cellJob(a);
                        cell.data = probe;
                        obs->costPredicted(cell, runIds[a], cellCosts[a]);
                    }
                }
            });
        probe.reset();

        // Lock step (LockstepTrainer.h): an algorithm whose trainer fits several replicas at once
        // gets a cell's consecutive Monte-Carlo neighbours of the same σ with it. The executor
        // then hands out packs of `pack` cells (one work item each, σ by σ; the last pack of a σ
        // may be smaller); every other algorithm trains the pack's cells one by one, as before.
        // Each cell's runs, results and statuses are those of the cell alone. Without such an
        // algorithm a pack is one cell, exactly as before.
        const Runner runner(ctx.registry(), nullptr);
        std::vector<int> lockstepWidth(size_t(nAlg), 0);
        int pack = 1;
        for (int a = 0; a < nAlg; ++a) {
            QString err;
            RunBudget budget;
            const std::unique_ptr<Trainer> t = runner.createTrainer(cellJob(a), &err, &budget);
            const auto* l = dynamic_cast<const LockstepTrainer*>(t.get());
            // A budget is each run's own clock: such runs train one by one.
            if (!l || budget.isSet() || spec.budgetOf(a).isSet())
                continue;
            const int w = std::min(l->lockstepWidth(cellShape), 64);
            if (w >= 2) {
                lockstepWidth[size_t(a)] = w;
                pack = std::max(pack, w);
            }
        }
        const qint64 packsPerSigma = (mc + pack - 1) / pack;
        const qint64 packs = qint64(nSigma) * packsPerSigma;
        struct Cells {
            int first, count;
        };
        auto cellsOf = [&](int unit) {
            const int s = int(unit / packsPerSigma);
            const int j = int(unit % packsPerSigma);
            return Cells{s * mc + j * pack, std::min(pack, mc - j * pack)};
        };

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
            for (int m = 0; m < mc; ++m) {
                const size_t cell = size_t(s) * size_t(mc) + size_t(m);
                pending += !cellDone[cell];
                for (int a = 0; a < nAlg; ++a)
                    done += kept[size_t(a)][cell];  // runs stored before a resume count as done
            }
            pendingPerSigma[size_t(s)] = pending;
        }
        std::vector<char> reported(size_t(std::max(nSigma, 0)), 0);

        CellPlan plan;
        plan.count = int(packs);
        plan.arena = &arena;
        plan.stop = &ctx.stop();
        plan.log = nullptr; // cells have no rows of their own
        plan.observer = nullptr;
        // A pack is skipped when all its cells are done; a pack with some done trains the others
        // (on an MPI worker, which does not know, all of them: rank 0 keeps the stored ones).
        plan.skip.assign(size_t(packs), 0);
        for (int u = 0; u < int(packs); ++u) {
            const Cells c = cellsOf(u);
            bool all = true;
            for (int i = 0; i < c.count; ++i)
                all = all && cellDone[size_t(c.first + i)];
            plan.skip[size_t(u)] = all;
        }
        // A pack's output: nAlg runs per cell, cell by cell; a run never started (Stop came
        // first, or its cell was done before a resume) has status Running and is not counted.
        auto notRun = [] {
            RunResult r;
            r.status = RunStatus::Running;
            return r;
        };
        // Cells are claimed in order (σ-major): σ values complete roughly in order for the live chart.
        plan.atOnce = threads;
        plan.work = [&](int unit, RunLog*, RunObserver*) {
            const Cells c = cellsOf(unit);
            const int s = c.first / mc;
            CellOutput out;
            for (int i = 0; i < c.count * nAlg; ++i)
                out.runs << notRun();
            std::vector<std::shared_ptr<const data::DatasetPair>> d(size_t(c.count));
            std::vector<QString> loadError(size_t(c.count));
            auto seedOf = [&](int i) { return deriveSeed(spec.seed, std::uint64_t(c.first + i)); };
            auto wanted = [&](int i) { return !cellDone[size_t(c.first + i)]; };
            auto wantedBy = [&](int a, int i) { return !kept[size_t(a)][size_t(c.first + i)]; };
            for (int i = 0; i < c.count; ++i) {
                if (!wanted(i))
                    continue;
                try {
                    d[size_t(i)] = std::make_shared<const data::DatasetPair>(data::DataSource::load(
                        spec.dataset, spec.baseDir, data::DataOverrides{spec.sigmas[s], seedOf(i)}));
                } catch (const std::bad_alloc&) {
                    loadError[size_t(i)] = QStringLiteral("out of memory while generating the data of σ = %1 (%2)")
                                               .arg(spec.sigmas[s])
                                               .arg(description);
                } catch (const std::exception& e) {
                    loadError[size_t(i)] = QString::fromUtf8(e.what());
                }
            }
            auto jobOf = [&](int a, int i) {
                RunJob job = cellJob(a);
                job.seed = seedOf(i); // every algorithm of a cell sees the same data and seed
                job.sigma = spec.sigmas[s];
                job.data = d[size_t(i)];
                return job;
            };
            // The last point, status, error and training time are all a sweep keeps (done()
            // below): the rest would only be copied — and on MPI encoded, sent and decoded by
            // rank 0 (the trainer's facts and parameters as JSON, a kilobyte a cell).
            auto keep = [&](int a, int i, RunResult&& rr) {
                rr.points.clear();
                rr.info = {};
                rr.params = {};
                out.runs[i * nAlg + a] = std::move(rr);
            };
            for (int a = 0; a < nAlg && !ctx.stop().stopRequested(); ++a) {
                std::vector<char> trained(size_t(c.count), 0);
                // Lock step: the pack's cells with data, lockstepWidth at a time, fitted together;
                // then each cell is an ordinary run of its replica. A trainer that refuses (an
                // exception) leaves its cells to the loop below.
                for (int i0 = 0; lockstepWidth[size_t(a)] >= 2 && i0 < c.count && !ctx.stop().stopRequested();) {
                    std::vector<int> group;
                    for (; i0 < c.count && int(group.size()) < lockstepWidth[size_t(a)]; ++i0)
                        if (wantedBy(a, i0) && d[size_t(i0)])
                            group.push_back(i0);
                    if (group.empty())
                        break;
                    QString err;
                    std::unique_ptr<Trainer> t = runner.createTrainer(cellJob(a), &err);
                    auto* l = dynamic_cast<LockstepTrainer*>(t.get());
                    if (!l)
                        continue;
                    std::vector<DatasetView> views;
                    std::vector<std::uint64_t> seeds;
                    for (int i : group) {
                        views.push_back(d[size_t(i)]->train.view());
                        seeds.push_back(seedOf(i));
                    }
                    double seconds = 0;
                    try {
                        const auto t0 = std::chrono::steady_clock::now();
                        l->fitReplicas(views, seeds, ctx.stop().token());
                        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                    } catch (const std::exception&) {
                        continue;  // trained one by one below
                    }
                    for (int r = 0; r < int(group.size()); ++r) {
                        const int i = group[size_t(r)];
                        std::unique_ptr<Trainer> replica;
                        try {
                            replica = l->replica(r);
                        } catch (const std::exception&) {
                            continue;
                        }
                        RunResult rr = runner.execute(jobOf(a, i), ctx.stop(), nullptr, std::move(replica));
                        // The replica's run replays its checkpoints; its share of the fit is its time.
                        rr.trainSeconds += seconds / double(group.size());
                        keep(a, i, std::move(rr));
                        trained[size_t(i)] = 1;
                    }
                }
                for (int i = 0; i < c.count && !ctx.stop().stopRequested(); ++i) {
                    if (trained[size_t(i)] || !wanted(i) || !wantedBy(a, i))
                        continue;
                    if (!d[size_t(i)]) {
                        RunResult failed;
                        failed.error = loadError[size_t(i)];
                        out.runs[i * nAlg + a] = failed;
                        continue;
                    }
                    keep(a, i, runner.execute(jobOf(a, i), ctx.stop(), nullptr));
                }
            }
            return out;
        };
        plan.failed = [&](int unit, RunStatus status, const QString& why, const QList<qint64>&) {
            CellOutput out;
            for (int i = 0; i < cellsOf(unit).count * nAlg; ++i) {
                RunResult rr;
                rr.status = status;
                rr.error = why;
                out.runs << rr;
            }
            return out;
        };
        // One cell's share of a pack's output (runs i·nAlg … i·nAlg + nAlg − 1).
        auto finishCell = [&](int cell, const CellOutput& out, int i) {
            if (cellDone[size_t(cell)])
                return;  // kept from before a resume
            const int s = cell / mc;
            for (int a = 0; a < nAlg && i * nAlg + a < int(out.runs.size()); ++a) {
                const RunResult& rr = out.runs[i * nAlg + a];
                if (rr.status == RunStatus::Running || kept[size_t(a)][size_t(cell)])
                    continue;  // never started, or stored before a resume (an MPI worker trains it anyway)
                if (rr.status == RunStatus::Finished) {
                    trainRmse[a][size_t(cell)] = rr.last.trainRmse;
                    testRmse[a][size_t(cell)] = rr.last.testRmse;
                    status[a][size_t(cell)] = 1;
                    if (ctx.store() && runIds[a] >= 0) {
                        MetricPoint p = rr.last;
                        p.seq = cell;
                        p.trainTime = rr.trainSeconds;
                        ctx.store()->appendMetric(runIds[a], p);
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
            if (pendingPerSigma[size_t(s)].fetch_sub(1, std::memory_order_acq_rel) == 1 && !ctx.stop().stopRequested() && obs) {
                reported[size_t(s)] = 1;
                for (int a = 0; a < nAlg; ++a)
                    obs->sweepPointReady(pointAt(a, s));
            }
        };
        plan.done = [&](int unit, CellOutput&& out) {
            const Cells c = cellsOf(unit);
            for (int i = 0; i < c.count; ++i)
                finishCell(c.first + i, out, i);
        };
        ctx.executor().run(plan);

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
                if (ctx.writesExperiment() && experimentId >= 0)
                    ctx.store()->addSweepPoint(experimentId, p);
                // σ values cut short by Stop: their partial statistics, once, at the end.
                if (obs && !reported[size_t(s)])
                    obs->sweepPointReady(p);
            }
            result.runsFinished += ok;
            result.runsFailed += failed + diverged;
            result.runsCancelled += int(cells) - ok - failed - diverged; // cut short or never run by Stop
            RunStatus st = RunStatus::Finished;
            QString err;
            if (const QString failure = ctx.storeFailure(); !failure.isEmpty()) {
                st = RunStatus::Failed; // stopped by the store, not by the user
                err = QStringLiteral("stopped because the run store failed: %1").arg(failure);
            } else if (ctx.stop().stopRequested())
                st = RunStatus::Cancelled;
            else if (ok == 0) {
                st = diverged > 0 && failed == 0 ? RunStatus::Diverged : RunStatus::Failed;
                err = QStringLiteral("no cell finished");
            }
            if (ctx.writesExperiment() && runIds[a] >= 0) {
                QJsonObject info{{"cells", double(cells)}, {"cells_finished", ok}, {"cells_failed", failed},
                                 {"cells_diverged", diverged}, {"cell_seed_rule", "deriveSeed(seed, sigma_index*monte_carlo + mc_index)"},
                                 {"algorithm_index", a}};
                if (!cellCosts[a].isEmpty())
                    info.insert("predicted_cost_per_cell", cellCosts[a]);
                // The row stands for every cell: the build and CPU that trained them (rank 0's under MPI).
                const QJsonObject machine = Runner::machineFacts();
                for (auto it = machine.begin(); it != machine.end(); ++it)
                    info.insert(it.key(), it.value());
                ctx.store()->finishRun(runIds[a], st, err, info);
            }
            const SweepRun sr{spec.algorithms[a].id, labels[a], runIds[a], spec.seed, st};
            result.sweepRuns << sr;
        }
        result.runErrors = QStringList(errors.values());
        result.runErrors.sort();
        return result;
    }
};

} // namespace
} // namespace tb

TB_REGISTER_EXPERIMENT_KIND(tb::NoiseSweepKind)
