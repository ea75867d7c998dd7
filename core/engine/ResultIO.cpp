#include "ResultIO.h"

#include "RunStore.h"

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
    const auto exp = store.experiment(experimentId);
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
        r.sweep = store.sweepPoints(experimentId);
        return r;
    }
    for (const RunRecord& run : store.runs(experimentId)) {
        const QString label = run.algorithmName.isEmpty() ? run.algorithmId : run.algorithmName;
        AlgorithmCurves* c = nullptr;
        for (auto& existing : r.curves)
            if (existing.algorithmId == run.algorithmId && existing.label == label)
                c = &existing;
        if (!c) {
            r.curves.append(AlgorithmCurves{run.algorithmId, label, {}, {}, {}});
            c = &r.curves.last();
        }
        c->repeats << store.metrics(run.id);
        c->statuses << run.status;
        c->infos << run.info;
        if (run.status == RunStatus::Finished)
            r.runsFinished++;
        else if (run.status == RunStatus::Failed || run.status == RunStatus::Diverged)
            r.runsFailed++;
    }
    return r;
}

} // namespace tb
