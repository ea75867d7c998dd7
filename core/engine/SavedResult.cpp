#include "SavedResult.h"

#include "PluginRegistry.h"
#include <store/RunStore.h>

#include <data/DataSource.h>
#include <trainbench/Seeds.h>

#include <QDateTime>

namespace tb {

qint64 saveResult(RunStore& store, const ExperimentSpec& spec, const ExperimentResult& result,
                  const PluginRegistry& registry, QString* error)
{
    const QString failureBefore = store.failure();
    auto fail = [&](const QString& what) -> qint64 {
        if (error)
            *error = QStringLiteral("%1: %2: %3").arg(store.path(), what, store.lastError());
        return -1;
    };
    ExperimentRecord rec;
    rec.name = spec.name;
    rec.kind = spec.kind;
    rec.spec = spec.toJson();
    rec.spec.insert(QStringLiteral("dataset"), data::DataSource::withAbsolutePaths(spec.dataset, spec.baseDir));
    rec.created = QDateTime::currentDateTimeUtc();
    const qint64 experimentId = store.createExperiment(rec);
    if (experimentId < 0)
        return fail(QStringLiteral("cannot create the experiment"));

    const QString description = data::DataSource::describe(spec.dataset);
    auto baseRecord = [&](int a, const QString& algorithmId, const QString& label) {
        RunRecord r;
        r.experimentId = experimentId;
        r.algorithmId = algorithmId;
        r.algorithmName = label;
        const QVariantMap params = a < spec.algorithms.size() ? spec.algorithms[a].params : QVariantMap();
        r.params = params;
        if (const AlgorithmEntry* entry = registry.algorithm(algorithmId)) {
            r.pluginId = entry->plugin->id;
            r.pluginVersion = entry->plugin->version;
            QString ignored;
            r.params = entry->info.schema.normalise(params, &ignored).value_or(params);
        }
        r.dataset = description;
        r.threads = spec.effectiveThreads();
        return r;
    };
    if (!result.summary.isEmpty()) { // aggregated cells (a noise sweep): one run per algorithm, its points
        QStringList ids; // one run per algorithm, in the order of the sweep points
        for (const SummaryPoint& p : result.summary)
            if (!ids.contains(p.algorithmId + QLatin1Char('\n') + p.algorithmName))
                ids << p.algorithmId + QLatin1Char('\n') + p.algorithmName;
        for (int a = 0; a < ids.size(); ++a) {
            const QString id = ids[a].section(QLatin1Char('\n'), 0, 0);
            RunRecord r = baseRecord(a, id, ids[a].section(QLatin1Char('\n'), 1));
            r.seed = spec.seed;
            const qint64 runId = store.createRun(r);
            if (runId < 0)
                return fail(QStringLiteral("cannot create the run of %1").arg(id));
            int finishedCells = 0;
            for (const SummaryPoint& p : result.summary)
                if (p.algorithmId == id && p.algorithmName == r.algorithmName)
                    finishedCells += p.count;
            const RunStatus status = result.cancelled ? RunStatus::Cancelled
                                     : finishedCells > 0 ? RunStatus::Finished
                                                         : RunStatus::Failed;
            store.finishRun(runId, status, status == RunStatus::Failed ? result.storeError : QString(),
                            {{"cells_finished", finishedCells}});
        }
        for (const SummaryPoint& p : result.summary)
            store.addSummaryPoint(experimentId, p);
    } else {
        for (int a = 0; a < result.curves.size(); ++a) {
            const AlgorithmCurves& c = result.curves[a];
            for (int i = 0; i < c.repeats.size(); ++i) {
                RunRecord r = baseRecord(a, c.algorithmId, c.label);
                r.repeat = spec.firstRepeat + i;
                r.seed = deriveSeed(spec.seed, std::uint64_t(r.repeat)); // as ExperimentRunner does
                const qint64 runId = store.createRun(r);
                if (runId < 0)
                    return fail(QStringLiteral("cannot create run %1 of %2").arg(r.repeat).arg(c.label));
                for (const MetricPoint& p : c.repeats[i])
                    store.appendMetric(runId, p);
                store.finishRun(runId, c.statuses.value(i, RunStatus::Failed), c.errors.value(i), c.infos.value(i));
            }
        }
    }
    if (!store.flush(-1) || store.failure() != failureBefore)
        return fail(QStringLiteral("the results were not all written"));
    return experimentId;
}

} // namespace tb
