#pragma once
/// @file FactPath.h
/// A path into a run's facts (RunRecord::info, what a trainer recorded with RunContext::record
/// and the host's "final" metrics): keys joined by '.', an array element by [i], as
/// "feature_spectrum.ratio_2_1000", "layer_updates[0].updates" or "final.loss". The fact
/// statistics of a claim (docs/reproductions/README.md) read one number per run through it.

#include <QJsonObject>
#include <QString>
#include <optional>

namespace tb::repro {

/// Pure functions; thread-safe.
class FactPath {
public:
    /// Whether @p path is well formed: one or more keys (a letter or '_', then letters, digits,
    /// '_' or '-'), each followed by any number of [i] (i a whole number ≥ 0), joined by '.'.
    static bool isValid(const QString& path);

    /// The number at @p path in @p facts, or nullopt with @p why saying where the path ends
    /// ("no key \"ratio_2_1000\" in feature_spectrum (keys: eigenvalues, features, …)",
    /// "layer_updates has 11 elements, not [11]", "feature_spectrum.method is \"cholesky\", not a
    /// number"). A JSON null (what a recorded infinity or NaN becomes) is not a number either.
    static std::optional<double> number(const QJsonObject& facts, const QString& path, QString* why);
};

} // namespace tb::repro
