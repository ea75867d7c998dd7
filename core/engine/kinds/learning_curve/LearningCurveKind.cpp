// The learning curve: every algorithm's accuracy, RMSE and loss against training time and epoch,
// repeated with seeds deriveSeed(seed, r); one stored run per (algorithm, repeat), trained one at
// a time with every thread so that timings compare.

#include <engine/ExperimentContext.h>
#include <engine/CostPrediction.h>
#include <engine/ExperimentKind.h>
#include <engine/PluginRegistry.h>
#include <engine/PreparedConfiguration.h>
#include <engine/kinds/RepeatKeys.h>
#include <store/RunStore.h>

#include <data/DataSource.h>
#include <trainbench/Seeds.h>

#include <QSet>
#include <tbb/task_arena.h>

namespace tb {
namespace {

/// The host fact that numbers a learning curve's run among the experiment's cells (resume()).
const QString kCellKey = QStringLiteral("experiment_cell");

class LearningCurveKind : public ExperimentKind {
public:
    QString id() const override { return QStringLiteral("learning-curve"); }
    QString label() const override { return QStringLiteral("Learning curve"); }
    QString description() const override
    {
        return QStringLiteral("Accuracy, RMSE and loss against training time and epoch, every algorithm on one "
                              "chart, mean and spread over repeats.");
    }
    int order() const override { return 10; }
    ParamSchema keys() const override { return kindkeys::repeats(); }

    QString describe(const ExperimentSpec& spec) const override
    {
        return QStringLiteral("learning curve: %1 repeat(s) from %2, seed %3, %4 threads%5")
            .arg(spec.repeats)
            .arg(spec.firstRepeat)
            .arg(spec.seed)
            .arg(spec.effectiveThreads())
            .arg(spec.timeBudgetSeconds > 0 ? QStringLiteral(", time budget %1 s per run").arg(spec.timeBudgetSeconds)
                                            : QString());
    }

    QList<AlgorithmCurves> configurations(const ExperimentSpec& spec, const PluginRegistry* registry) const override
    {
        QList<AlgorithmCurves> out;
        for (int i = 0; i < spec.algorithms.size(); ++i) {
            const AlgorithmRun& a = spec.algorithms[i];
            AlgorithmCurves c;
            c.algorithmId = a.id;
            c.algorithmIndex = i;
            const AlgorithmEntry* e = registry ? registry->algorithm(a.id) : nullptr;
            c.label = c.configuration = !a.label.isEmpty() ? a.label : (e ? e->info.name : a.id);
            c.dataset = data::DataSource::describe(spec.dataset);
            out << c;
        }
        return out;
    }

    void write(const ExperimentSpec& spec, QJsonObject& json) const override
    {
        json.insert("repeats", spec.repeats);
        if (spec.firstRepeat > 0)
            json.insert("first_repeat", spec.firstRepeat);
    }

    void narrowToRun(ExperimentSpec& spec, const RunRecord& run) const override
    {
        spec.repeats = 1;
        spec.firstRepeat = run.repeat; // the seed rule deriveSeed(seed, repeat) gives its seed again
    }

    int plannedRuns(const ExperimentSpec& spec) const override { return int(spec.algorithms.size()) * spec.repeats; }
    bool runsOneAtATime(const ExperimentSpec&) const override { return true; }
    QStringList charts() const override
    {
        return {QStringLiteral("learning-curve-time"), QStringLiteral("learning-curve-epoch"), QStringLiteral("loss-time"),
                QStringLiteral("frontier"), QStringLiteral("feature-frontier"), QStringLiteral("peak-memory")};
    }

    ExperimentResult run(ExperimentContext& ctx, const ExperimentSpec& spec, qint64 experimentId,
                         ExperimentObserver* obs) const override
    {
        ExperimentResult result;
        const int threads = spec.effectiveThreads();
        const QString description = data::DataSource::describe(spec.dataset);
        const auto data = ExperimentContext::loadData(
            spec.dataset, spec.baseDir, data::DataOverrides{std::nullopt, spec.seed},
            QStringLiteral("out of memory while loading the data set (%1)").arg(description), &result.error);
        if (!data)
            return result;
        result.warnings = data->warnings;
        const int nAlg = int(spec.algorithms.size());
        const int total = nAlg * spec.repeats;
        const QStringList labels = ctx.labels(spec);
        // One run at a time: each algorithm's own working memory must fit.
        QList<MemoryCheck::Demand> demands;
        for (int a = 0; a < nAlg; ++a)
            demands << MemoryCheck::Demand{labels[a], spec.algorithms[a].id, spec.algorithms[a].params,
                                           CostPrediction::shapeOf(data->train), 1};
        if (!ctx.refuseOverMemory(demands, threads, result))
            return result;

        // Each algorithm's parameters, read once for all its repeats.
        std::vector<std::shared_ptr<const PreparedConfiguration>> prepared;
        for (const AlgorithmRun& a : spec.algorithms)
            prepared.push_back(ctx.registry().prepared(a.id, a.params));
        // Cell i is repeat firstRepeat + i % repeats of algorithm i / repeats.
        auto jobOf = [&](int i) {
            const int a = i / spec.repeats, rep = spec.firstRepeat + i % spec.repeats;
            RunJob job;
            job.algorithmId = spec.algorithms[a].id;
            job.label = labels[a];
            job.params = spec.algorithms[a].params;
            job.prepared = prepared[size_t(a)];
            // Repeat r of every algorithm uses the same seed: paired comparisons.
            job.seed = deriveSeed(spec.seed, std::uint64_t(rep));
            job.repeat = rep;
            job.data = data;
            job.datasetDescription = description;
            job.budget = spec.budgetOf(a);
            job.experimentId = experimentId;
            job.threads = threads;
            job.hostFacts.insert(kCellKey, i);
            return job;
        };

        std::vector<RunResult> results(static_cast<size_t>(total));
        std::vector<char> ran(static_cast<size_t>(total), 0);
        if (ctx.resuming()) {
            auto cellOf = [&](const RunRecord& r) {
                const int i = r.info.value(kCellKey).toInt(-1);
                return i >= 0 && i < total && spec.algorithms[i / spec.repeats].id == r.algorithmId ? i : -1;
            };
            if (!ctx.takeFinishedRuns(total, cellOf, results, ran, &result.error))
                return result;
        }
        if (obs)
            obs->experimentStarted(experimentId, spec, total);

        tbb::task_arena arena(threads);
        std::atomic<int> done{int(std::count(ran.begin(), ran.end(), 1))};
        // One run at a time with every thread: timings compare across algorithms.
        CellPlan plan = ctx.runPerCell(total, 1, arena, obs, ran, jobOf);
        plan.done = [&](int i, CellOutput&& out) {
            RunResult rr = out.runs.value(0);
            ctx.blameStoreFailure(rr);
            results[size_t(i)] = std::move(rr);
            ran[size_t(i)] = 1;
            if (obs)
                obs->progress(++done, total);
        };
        ctx.executor().run(plan);

        result.runsPlanned = total;
        QSet<QString> errors;
        const Runner runner(ctx.registry(), ctx.writesExperiment() ? ctx.store() : nullptr);
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
                    ExperimentContext::appendNotStarted(curves, runner.recordNotStarted(job));
                    result.runsCancelled++;
                    result.runsNotStarted++;
                    continue;
                }
                const RunResult& rr = results[size_t(i)];
                ExperimentContext::appendRun(curves, rr, job.repeat, job.seed);
                ExperimentContext::count(result, rr.status);
                if (rr.status == RunStatus::Failed || rr.status == RunStatus::Diverged)
                    errors.insert(QStringLiteral("%1: %2").arg(curves.label, rr.error));
            }
            result.curves << curves;
        }
        result.runErrors = QStringList(errors.values());
        result.runErrors.sort();
        return result;
    }
};

} // namespace
} // namespace tb

TB_REGISTER_EXPERIMENT_KIND(tb::LearningCurveKind)
