#include "ResultIO.h"

#include "RunStore.h"

#include <QFile>
#include <QSaveFile>
#include <QSet>
#include <QTextStream>
#include <algorithm>
#include <tuple>

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
// A swept value as one CSV field: numbers in full, int lists as "50 20".
QString settingText(const QVariant& v)
{
    if (v.typeId() == QMetaType::QVariantList) {
        QStringList parts;
        for (const auto& e : v.toList())
            parts << settingText(e);
        return parts.join(QLatin1Char(' '));
    }
    if (v.typeId() == QMetaType::Double)
        return QString::number(v.toDouble(), 'g', 15);
    return v.toString();
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
        // A param sweep adds its data set and swept parameters as the last columns.
        const bool sweep = result.kind == ExperimentSpec::Kind::ParamSweep;
        out << "algorithm_id,algorithm,repeat,status,seq,epoch,train_time_s,loss,train_accuracy,test_accuracy,"
               "train_rmse,test_rmse";
        if (sweep) {
            out << ",dataset";
            for (const QString& k : result.sweptKeys)
                out << ',' << csvField(k);
        }
        out << '\n';
        for (const auto& c : result.curves)
            for (int r = 0; r < c.repeats.size(); ++r) {
                const QString status = r < c.statuses.size() ? runStatusName(c.statuses[r]) : QString();
                QString extra;
                if (sweep) {
                    extra = QLatin1Char(',') + csvField(c.dataset);
                    for (const QString& k : result.sweptKeys)
                        extra += QLatin1Char(',') + csvField(c.setting.contains(k) ? settingText(c.setting.value(k)) : QString());
                }
                const int repeat = r < c.repeatIndex.size() ? c.repeatIndex[r] : r;
                for (const auto& p : c.repeats[r])
                    out << csvField(c.algorithmId) << ',' << csvField(c.label) << ',' << repeat << ',' << status << ','
                        << p.seq << ',' << num(p.epoch) << ',' << num(p.trainTime) << ',' << num(p.loss) << ','
                        << num(p.trainAccuracy) << ',' << num(p.testAccuracy) << ',' << num(p.trainRmse) << ','
                        << num(p.testRmse) << extra << '\n';
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
    r.kind = exp->kind == QLatin1String("noise-sweep")   ? ExperimentSpec::Kind::NoiseSweep
             : exp->kind == QLatin1String("param-sweep") ? ExperimentSpec::Kind::ParamSweep
                                                         : ExperimentSpec::Kind::LearningCurve;
    if (r.kind == ExperimentSpec::Kind::NoiseSweep) {
        r.sweep = store.sweepPoints(experimentId);
        return r;
    }
    QList<RunRecord> runs = store.runs(experimentId);
    // A param sweep's configurations in the runner's order, whatever order the cells ended in.
    auto cellKey = [](const RunRecord& run) {
        const QJsonObject cell = run.info.value(QStringLiteral("sweep_cell")).toObject();
        return std::make_tuple(cell.value("dataset").toInt(), cell.value("algorithm").toInt(), cell.value("point").toInt(),
                               cell.value("index").toInt());
    };
    if (r.kind == ExperimentSpec::Kind::ParamSweep)
        std::stable_sort(runs.begin(), runs.end(),
                         [&](const RunRecord& a, const RunRecord& b) { return cellKey(a) < cellKey(b); });
    QSet<QString> swept;
    for (const RunRecord& run : runs) {
        const QString label = run.algorithmName.isEmpty() ? run.algorithmId : run.algorithmName;
        AlgorithmCurves* c = nullptr;
        for (auto& existing : r.curves)
            if (existing.algorithmId == run.algorithmId && existing.label == label && existing.dataset == run.dataset)
                c = &existing;
        if (!c) {
            AlgorithmCurves fresh;
            fresh.algorithmId = run.algorithmId;
            fresh.label = label;
            fresh.configuration = label;
            fresh.dataset = run.dataset;
            const QJsonObject cell = run.info.value(QStringLiteral("sweep_cell")).toObject();
            if (!cell.isEmpty()) {
                fresh.setting = cell.value("setting").toObject().toVariantMap();
                fresh.configuration = cell.value("configuration").toString(label);
                fresh.datasetIndex = cell.value("dataset").toInt();
                for (auto it = fresh.setting.begin(); it != fresh.setting.end(); ++it)
                    swept.insert(it.key());
            }
            r.curves.append(fresh);
            c = &r.curves.last();
        }
        c->repeats << store.metrics(run.id);
        c->statuses << run.status;
        c->infos << run.info;
        c->repeatIndex << run.repeat;
        c->runIds << run.id;
        c->seeds << run.seed;
        if (run.status == RunStatus::Finished)
            r.runsFinished++;
        else if (run.status == RunStatus::Failed || run.status == RunStatus::Diverged)
            r.runsFailed++;
    }
    r.sweptKeys = QStringList(swept.values());
    r.sweptKeys.sort();
    return r;
}

} // namespace tb
