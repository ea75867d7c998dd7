#pragma once
/// @file ClaimMetric.h
/// The metric a claim names: a run metric (RunMetric) or an error rate (1 − an accuracy), as
/// papers often state errors where runs store accuracies.

#include <engine/RunMetric.h>

#include <QString>
#include <QStringList>
#include <optional>

namespace tb::repro {

/// A stored metric and whether the claim reads its complement (error = 1 − accuracy).
struct ClaimMetricId {
    MetricId stored = MetricId::TestAccuracy;
    bool complement = false; ///< the value used is 1 − the stored one
};

/// Pure functions; thread-safe.
class ClaimMetric {
public:
    /// RunMetric's keys and "test_error", "train_error", "validation_error"; nullopt for others.
    static std::optional<ClaimMetricId> fromKey(const QString& key);
    static QStringList keys();
    /// "test accuracy", "test error" …
    static QString label(const QString& key);
    /// Lower is better for errors, RMSE, loss, time; higher for accuracies.
    static bool higherIsBetter(const QString& key);
};

} // namespace tb::repro
