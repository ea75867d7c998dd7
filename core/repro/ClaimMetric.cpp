#include "ClaimMetric.h"

namespace tb::repro {

std::optional<ClaimMetricId> ClaimMetric::fromKey(const QString& key)
{
    if (key == QLatin1String("test_error"))
        return ClaimMetricId{MetricId::TestAccuracy, true};
    if (key == QLatin1String("train_error"))
        return ClaimMetricId{MetricId::TrainAccuracy, true};
    if (key == QLatin1String("validation_error"))
        return ClaimMetricId{MetricId::ValidationAccuracy, true};
    if (const auto m = RunMetric::fromKey(key))
        return ClaimMetricId{*m, false};
    return std::nullopt;
}

QStringList ClaimMetric::keys()
{
    return RunMetric::keys() + QStringList{"test_error", "train_error", "validation_error"};
}

QString ClaimMetric::label(const QString& key)
{
    const auto m = fromKey(key);
    if (!m)
        return key;
    if (m->complement)
        return QString(key).replace(QLatin1Char('_'), QLatin1Char(' '));
    return RunMetric::label(m->stored);
}

bool ClaimMetric::higherIsBetter(const QString& key)
{
    const auto m = fromKey(key);
    return m && !m->complement && RunMetric::better(m->stored) == stats::Better::Higher;
}

} // namespace tb::repro
