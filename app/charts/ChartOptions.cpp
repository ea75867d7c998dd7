#include "ChartOptions.h"

#include <engine/ExperimentKind.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb::charts {

bool ChartOptions::isClassification(const ExperimentResult& result) const
{
    return classification ? *classification : hasAccuracy(result);
}

MetricId ChartOptions::metricFor(const ExperimentResult& result) const
{
    return metric ? *metric : RunMetric::defaultFor(result.curves);
}

QString ChartOptions::titled(const QString& what) const
{
    return !title || title->isEmpty() ? what : *title + QStringLiteral(" — ") + what;
}

bool ChartOptions::hasAccuracy(const ExperimentResult& result)
{
    for (const AlgorithmCurves& c : result.curves)
        for (const QVector<MetricPoint>& repeat : c.repeats)
            for (const MetricPoint& p : repeat)
                if (std::isfinite(p.testAccuracy) || std::isfinite(p.trainAccuracy))
                    return true;
    return false;
}

bool ChartOptions::logTimeFor(const ExperimentResult& result) const
{
    return logTime.value_or(spansDecades(result, 2.0));
}

bool ChartOptions::spansDecades(const ExperimentResult& result, double decades)
{
    double smallest = std::numeric_limits<double>::infinity(), largest = 0;
    for (const AlgorithmCurves& c : result.curves)
        for (const QVector<MetricPoint>& repeat : c.repeats)
            for (const MetricPoint& p : repeat)
                if (std::isfinite(p.trainTime) && p.trainTime > 0) {
                    smallest = std::min(smallest, p.trainTime);
                    largest = std::max(largest, p.trainTime);
                }
    return largest > 0 && largest > smallest * std::pow(10.0, decades);
}

bool ChartOptions::holdsCurves(const ExperimentResult& result)
{
    if (const ExperimentKind* kind = ExperimentKinds::find(result.kind))
        return kind->summaryAxis().isEmpty();
    return !result.curves.isEmpty() || result.summary.isEmpty();
}

} // namespace tb::charts
