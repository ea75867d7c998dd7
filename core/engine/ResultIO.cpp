#include "ResultIO.h"

#include "PluginRegistry.h"
#include "RunStore.h"

#include <DataSource.h>
#include <trainbench/Seeds.h>

#include <QFile>
#include <QSaveFile>
#include <QTextStream>

namespace tb {
namespace {
QString num(double v)
{
    return std::isfinite(v) ? QString::number(v, 'g', 10) : QString();
}
QString csvField(QString s)
{
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')))
        return QLatin1Char('"') + s.replace(QLatin1String("\""), QLatin1String("\"\"")) + QLatin1Char('"');
    return s;
}
} // namespace

bool writeResultCsv(const ExperimentResult& result, const QString& path, QString* error)
{
    // QSaveFile: a crash or a full disk never leaves a half-written CSV behind.
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = QStringLiteral("%1: cannot write: %2").arg(path, f.errorString());
        return false;
    }
    QTextStream out(&f);
    if (result.kind == ExperimentSpec::Kind::NoiseSweep) {
        out << "algorithm_id,algorithm,sigma,monte_carlo,train_rmse_mean,train_rmse_std,test_rmse_mean,test_rmse_std\n";
        for (const auto& p : result.sweep)
            out << csvField(p.algorithmId) << ',' << csvField(p.algorithmName) << ',' << num(p.sigma) << ','
                << p.monteCarlo << ',' << num(p.trainRmseMean) << ',' << num(p.trainRmseStd) << ','
                << num(p.testRmseMean) << ',' << num(p.testRmseStd) << '\n';
    } else {
        out << "algorithm_id,algorithm,repeat,status,seq,epoch,train_time_s,loss,train_accuracy,test_accuracy,"
               "train_rmse,test_rmse\n";
        for (const auto& c : result.curves)
            for (int r = 0; r < c.repeats.size(); ++r) {
                const QString status = r < c.statuses.size() ? runStatusName(c.statuses[r]) : QString();
                for (const auto& p : c.repeats[r])
                    out << csvField(c.algorithmId) << ',' << csvField(c.label) << ',' << r << ',' << status << ','
                        << p.seq << ',' << num(p.epoch) << ',' << num(p.trainTime) << ',' << num(p.loss) << ','
                        << num(p.trainAccuracy) << ',' << num(p.testAccuracy) << ',' << num(p.trainRmse) << ','
                        << num(p.testRmse) << '\n';
            }
    }
    out.flush();
    if (!f.commit()) {
        if (error)
            *error = QStringLiteral("%1: cannot write: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

std::optional<ExperimentResult> loadResult(RunStore& store, qint64 experimentId, QString* error)
{
    QString readError;
    auto failed = [&]() -> std::optional<ExperimentResult> {
        if (error)
            *error = readError;
        return std::nullopt;
    };
    const auto exp = store.experiment(experimentId, &readError);
    if (!readError.isEmpty())
        return failed();
    if (!exp) {
        if (error)
            *error = QStringLiteral("no experiment with id %1 in %2").arg(experimentId).arg(store.path());
        return std::nullopt;
    }
    ExperimentResult r;
    r.experimentId = experimentId;
    r.kind = exp->kind == QLatin1String("noise-sweep") ? ExperimentSpec::Kind::NoiseSweep
                                                       : ExperimentSpec::Kind::LearningCurve;
    if (r.kind == ExperimentSpec::Kind::NoiseSweep) {
        r.sweep = store.sweepPoints(experimentId, &readError);
        if (!readError.isEmpty())
            return failed();
        return r;
    }
    const QList<RunRecord> runs = store.runs(experimentId, &readError);
    if (!readError.isEmpty())
        return failed();
    for (const RunRecord& run : runs) {
        const QString label = run.algorithmName.isEmpty() ? run.algorithmId : run.algorithmName;
        AlgorithmCurves* c = nullptr;
        for (auto& existing : r.curves)
            if (existing.algorithmId == run.algorithmId && existing.label == label)
                c = &existing;
        if (!c) {
            r.curves.append(AlgorithmCurves{run.algorithmId, label, {}, {}, {}, {}});
            c = &r.curves.last();
        }
        c->repeats << store.metrics(run.id, &readError);
        if (!readError.isEmpty())
            return failed();
        c->statuses << run.status;
        c->infos << run.info;
        c->errors << run.error;
        if (run.status == RunStatus::Finished)
            r.runsFinished++;
        else if (run.status == RunStatus::Failed || run.status == RunStatus::Diverged)
            r.runsFailed++;
    }
    return r;
}

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
    rec.kind = ExperimentSpec::kindName(spec.kind);
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
    if (result.kind == ExperimentSpec::Kind::NoiseSweep) {
        QStringList ids; // one run per algorithm, in the order of the sweep points
        for (const SweepPoint& p : result.sweep)
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
            for (const SweepPoint& p : result.sweep)
                if (p.algorithmId == id && p.algorithmName == r.algorithmName)
                    finishedCells += p.monteCarlo;
            const RunStatus status = result.cancelled ? RunStatus::Cancelled
                                     : finishedCells > 0 ? RunStatus::Finished
                                                         : RunStatus::Failed;
            store.finishRun(runId, status, status == RunStatus::Failed ? result.storeError : QString(),
                            {{"cells_finished", finishedCells}});
        }
        for (const SweepPoint& p : result.sweep)
            store.addSweepPoint(experimentId, p);
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
