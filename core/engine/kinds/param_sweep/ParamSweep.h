#pragma once
/// @file ParamSweep.h
/// A param-sweep experiment as an ordered list of independent cells.

#include <engine/ExperimentSpec.h>
#include "ParamSweepSpec.h"

#include <trainbench/ParamSpec.h>

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QVariantMap>
#include <cstdint>
#include <optional>

namespace tb {

class PluginRegistry;
struct AlgorithmCurves;

/// One run of a param sweep: (data-set option, repeat, algorithm, parameter point). Everything
/// needed to run it alone — on another thread, process or machine — is in the cell and the spec.
struct SweepCell {
    int index = 0;          ///< position in ParamSweep::cells()
    int datasetIndex = 0;   ///< into ParamSweep::datasets()
    int repeat = 0;         ///< first_repeat … first_repeat + repeats − 1
    int algorithmIndex = 0; ///< into ExperimentSpec::algorithms
    int pointIndex = 0;     ///< into ParamSweep::points()
    std::uint64_t seed = 0; ///< deriveSeed(spec.seed, repeat): the same for every configuration
    QVariantMap setting;    ///< the point: swept keys only
    QVariantMap params;     ///< the algorithm's params with the point applied
    QJsonObject dataset;    ///< the experiment's dataset with the option applied
};

/// Pure functions of an ExperimentSpec; thread-safe.
class ParamSweep {
public:
    /// Most cells one experiment may have (a typo such as "count": 1e6 fails before anything
    /// is allocated).
    static constexpr qint64 maxCells = 100000;
    /// Most values one axis may expand to.
    static constexpr int maxAxisValues = 1000;

    /// The sweep of @p spec (its kind section), or an empty sweep when it has none (another kind).
    static const ParamSweepSpec& sweepOf(const ExperimentSpec& spec);

    /// The parameter points: the grid's cartesian product (first axis slowest), or the list;
    /// one empty point when the sweep has neither (repeats over seeds only).
    static QList<QVariantMap> points(const ParamSweepSpec& sweep);
    /// The data-set objects, options merged over @p spec.dataset; [spec.dataset] without options.
    static QList<QJsonObject> datasets(const ExperimentSpec& spec);
    /// points × datasets × algorithms × repeats, without building them.
    static qint64 cellCount(const ExperimentSpec& spec);

    /// Every cell of @p spec in run order: data-set option, then repeat, then algorithm, then
    /// point — so the first repeat of the whole grid comes first and later repeats add spread.
    /// The order and each cell's seed depend only on the spec: a distributed runner may hand
    /// out any subset and get the same runs. Empty for other kinds.
    static QList<SweepCell> cells(const ExperimentSpec& spec);

    /// Expands one axis as written in JSON: an array of values, or {"from": a, "to": b,
    /// "count": n (2..1000), "scale": "linear" (default) | "log" (a, b > 0)}. Near-integers
    /// are snapped and values rounded to 12 significant digits (1e-4·10³ is 0.1, not
    /// 0.10000000000000002). On error returns nullopt and a message naming @p path.
    static std::optional<QVariantList> expand(const QJsonValue& source, const QString& path, QString* error);

    /// Parses what a user types for a parameter's values in a form: "0.0001, 0.001, 0.01";
    /// "log(1e-4, 1e-1, 4)" or "lin(0, 1, 5)" for ranges; "true, false"; choice names;
    /// "50; 100 50" (';' separates int lists). Returns the JSON form (an array or a range
    /// object) or nullopt with a message.
    static std::optional<QJsonValue> parseValues(const QString& text, const ParamSpec& spec, QString* error);
    /// The inverse of parseValues(): the JSON form as text.
    static QString formatValues(const QJsonValue& source);

    /// The configurations of @p spec, one per (data-set option, algorithm, point) in that order
    /// (index (d·algorithms + a)·points + p), without runs: algorithm id, label ("Adam lr=0.001",
    /// plus " · <option>" with several data-set options), configuration (the label without the
    /// option), setting, data-set index and description. What ExperimentRunner fills, so a view can
    /// match live runs by label. @p registry (may be null) gives algorithm names for unlabelled entries.
    static QList<AlgorithmCurves> configurations(const ExperimentSpec& spec, const PluginRegistry* registry);
    /// Index into configurations() of @p cell.
    static int configurationIndex(const ExperimentSpec& spec, const SweepCell& cell);

    /// "lr=0.001, batch=32" (keys in alphabetical order); empty for an empty point.
    static QString settingLabel(const QVariantMap& setting);
    /// A short name for data-set option @p index of @p spec: its keys ("train_limit=2000"),
    /// or the describe() text of a whole replacement; empty when the sweep has no options.
    static QString datasetLabel(const ExperimentSpec& spec, int index);
};

} // namespace tb
