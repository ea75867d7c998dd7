#include "RunMetric.h"

#include "CostPrediction.h"
#include "ExperimentRunner.h"

#include <cmath>

namespace tb {

QString RunMetric::key(MetricId m)
{
    switch (m) {
    case MetricId::TestAccuracy: return QStringLiteral("test_accuracy");
    case MetricId::TrainAccuracy: return QStringLiteral("train_accuracy");
    case MetricId::TestRmse: return QStringLiteral("test_rmse");
    case MetricId::TrainRmse: return QStringLiteral("train_rmse");
    case MetricId::Loss: return QStringLiteral("loss");
    case MetricId::TrainSeconds: return QStringLiteral("train_seconds");
    case MetricId::PeakMemory: return QStringLiteral("peak_memory");
    case MetricId::ValidationAccuracy: return QStringLiteral("validation_accuracy");
    case MetricId::ValidationRmse: return QStringLiteral("validation_rmse");
    }
    return {};
}

QString RunMetric::label(MetricId m)
{
    switch (m) {
    case MetricId::TestAccuracy: return QStringLiteral("test accuracy");
    case MetricId::TrainAccuracy: return QStringLiteral("train accuracy");
    case MetricId::TestRmse: return QStringLiteral("test RMSE");
    case MetricId::TrainRmse: return QStringLiteral("train RMSE");
    case MetricId::Loss: return QStringLiteral("loss");
    case MetricId::TrainSeconds: return QStringLiteral("training time");
    case MetricId::PeakMemory: return QStringLiteral("peak memory");
    case MetricId::ValidationAccuracy: return QStringLiteral("validation accuracy");
    case MetricId::ValidationRmse: return QStringLiteral("validation RMSE");
    }
    return {};
}

QStringList RunMetric::keys()
{
    QStringList out;
    for (MetricId m : {MetricId::TestAccuracy, MetricId::TrainAccuracy, MetricId::TestRmse, MetricId::TrainRmse,
                       MetricId::Loss, MetricId::TrainSeconds, MetricId::PeakMemory, MetricId::ValidationAccuracy,
                       MetricId::ValidationRmse})
        out << key(m);
    return out;
}

std::optional<MetricId> RunMetric::fromKey(const QString& k)
{
    for (MetricId m : {MetricId::TestAccuracy, MetricId::TrainAccuracy, MetricId::TestRmse, MetricId::TrainRmse,
                       MetricId::Loss, MetricId::TrainSeconds, MetricId::PeakMemory, MetricId::ValidationAccuracy,
                       MetricId::ValidationRmse})
        if (key(m) == k)
            return m;
    return std::nullopt;
}

stats::Better RunMetric::better(MetricId m)
{
    return m == MetricId::TestAccuracy || m == MetricId::TrainAccuracy || m == MetricId::ValidationAccuracy
               ? stats::Better::Higher
               : stats::Better::Lower;
}

std::optional<MetricId> RunMetric::validationOf(MetricId m)
{
    if (m == MetricId::TestAccuracy)
        return MetricId::ValidationAccuracy;
    if (m == MetricId::TestRmse)
        return MetricId::ValidationRmse;
    return std::nullopt;
}

bool RunMetric::anyMeasured(MetricId m, const QList<AlgorithmCurves>& curves)
{
    for (const AlgorithmCurves& c : curves)
        for (const auto& rep : c.repeats)
            for (const MetricPoint& p : rep)
                if (std::isfinite(atPoint(m, p)))
                    return true;
    return false;
}

bool RunMetric::hasCurve(MetricId m)
{
    return m != MetricId::TrainSeconds && m != MetricId::PeakMemory;
}

double RunMetric::atPoint(MetricId m, const MetricPoint& p)
{
    switch (m) {
    case MetricId::TestAccuracy: return p.testAccuracy;
    case MetricId::TrainAccuracy: return p.trainAccuracy;
    case MetricId::TestRmse: return p.testRmse;
    case MetricId::TrainRmse: return p.trainRmse;
    case MetricId::Loss: return p.loss;
    case MetricId::TrainSeconds: return p.trainTime;
    case MetricId::ValidationAccuracy: return p.validationAccuracy;
    case MetricId::ValidationRmse: return p.validationRmse;
    case MetricId::PeakMemory: break;
    }
    return NaN;
}

double RunMetric::finalValue(MetricId m, const QVector<MetricPoint>& curve, const QJsonObject& info)
{
    if (m == MetricId::PeakMemory)
        return CostPrediction::measuredMemoryBytes(info);
    return curve.isEmpty() ? NaN : atPoint(m, curve.last());
}

MetricId RunMetric::defaultFor(const QList<AlgorithmCurves>& curves)
{
    for (MetricId m : {MetricId::TestAccuracy, MetricId::TestRmse, MetricId::TrainRmse, MetricId::Loss})
        for (const AlgorithmCurves& c : curves)
            for (const auto& run : c.repeats)
                if (!run.isEmpty() && std::isfinite(atPoint(m, run.last())))
                    return m;
    return MetricId::TestAccuracy;
}

QString RunMetric::format(MetricId m, double v)
{
    if (std::isnan(v))
        return QStringLiteral("-");
    switch (m) {
    case MetricId::TestAccuracy:
    case MetricId::TrainAccuracy:
    case MetricId::ValidationAccuracy: return QString::number(100 * v, 'f', 2) + QStringLiteral(" %");
    case MetricId::TrainSeconds: return CostPrediction::formatSeconds(v);
    case MetricId::PeakMemory: return CostPrediction::formatBytes(v);
    default: break;
    }
    return QString::number(v, 'g', 4);
}

QString RunMetric::formatMeanStd(MetricId m, double mean, double std)
{
    if (std::isnan(mean))
        return QStringLiteral("-");
    switch (m) {
    case MetricId::TestAccuracy:
    case MetricId::TrainAccuracy:
    case MetricId::ValidationAccuracy:
        return QStringLiteral("%1 ± %2 %").arg(QString::number(100 * mean, 'f', 2), QString::number(100 * std, 'f', 2));
    case MetricId::TrainSeconds:
    case MetricId::PeakMemory: return QStringLiteral("%1 ± %2").arg(format(m, mean), format(m, std));
    default: break;
    }
    return QStringLiteral("%1 ± %2").arg(QString::number(mean, 'g', 4), QString::number(std, 'g', 2));
}

} // namespace tb
