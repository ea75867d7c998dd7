#pragma once
/// @file ExperimentSpec.h
/// An experiment file (JSON): what to run, on which data, how often.

#include "ParamSweepSpec.h"

#include <trainbench/ParamSchema.h>

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QVariantMap>
#include <QVector>
#include <cstdint>
#include <optional>

namespace tb {

class PluginRegistry;

/// One algorithm entry of an experiment.
struct AlgorithmRun {
    QString id;           ///< algorithm id, e.g. "linear.ridge"
    QString label;        ///< legend label; defaults to the algorithm's name
    QVariantMap params;   ///< as written in the file (normalised by the registry at run time)
};

/// The ids of the experiment kinds built into Trainbench (core/engine/kinds/), for the places that
/// offer something to one kind only (a noise sweep's RMSE-vs-σ view, a param sweep's grid editor).
namespace kinds {
inline const QString LearningCurve = QStringLiteral("learning-curve");
inline const QString NoiseSweep = QStringLiteral("noise-sweep");
inline const QString ParamSweep = QStringLiteral("param-sweep");
} // namespace kinds

/// A parsed experiment file. Keys (see docs/experiments.md): name, description, kind (an
/// ExperimentKind's id: "learning-curve", "noise-sweep", "param-sweep" …), dataset {...},
/// algorithms [{id, label, params}], seed (default 1), threads (default: all cores),
/// time_budget_s (per run, default none) — schema() declares them — and the keys of the kind
/// (ExperimentKind::keys(): repeats and first_repeat for learning curves and param sweeps) and its
/// "sweep": {sigma: [..], monte_carlo: N} for a noise-sweep, {grid | list, datasets,
/// cells_at_once} for a param-sweep (ParamSweepSpec).
struct ExperimentSpec {
    QString name;
    QString description;             ///< free text for people; kept through toJson()
    QString kind = kinds::LearningCurve; ///< an ExperimentKind's id
    QJsonObject dataset;
    QList<AlgorithmRun> algorithms;
    int repeats = 1;
    /// Learning-curve: index of the first repeat, so repeats r = first_repeat … first_repeat +
    /// repeats − 1 run with seeds deriveSeed(seed, r). Lets one stored run be re-run exactly.
    int firstRepeat = 0;
    std::uint64_t seed = 1;
    int threads = 0;                 ///< 0 = all cores
    double timeBudgetSeconds = 0;    ///< 0 = no budget
    QVector<double> sigmas;          ///< noise-sweep
    int monteCarlo = 1;              ///< noise-sweep
    /// The kind's own keys (ExperimentKind::keys()), normalised: canonical types, defaults in.
    QVariantMap settings;
    /// "sweep" as the file wrote it (Undefined when absent), for kinds that read it themselves.
    QJsonValue sweep;
    /// Problems that do not stop the run but should be seen, e.g. a key written twice in the
    /// file (JsonDuplicateKeys: the parser keeps the last value without a word).
    QStringList warnings;
    ParamSweepSpec paramSweep;       ///< param-sweep
    QString sourcePath;              ///< file it was read from, if any
    QString baseDir;                 ///< folder relative dataset paths resolve against

    /// The keys every experiment file has, whatever its kind (name, description, kind, seed,
    /// threads, time_budget_s; "dataset", "algorithms" and "sweep" are objects of their own).
    static ParamSchema schema();

    /// Parses and checks the structure (not the algorithm ids or parameters: see validate()).
    /// On error returns nullopt and sets @p error to "FILE:LINE:COL: message" for JSON syntax
    /// errors or "FILE: key.path: message" for wrong values.
    static std::optional<ExperimentSpec> fromJson(const QByteArray& json, const QString& sourceName, QString* error);
    static std::optional<ExperimentSpec> fromFile(const QString& path, QString* error);
    static std::optional<ExperimentSpec> fromObject(const QJsonObject& o, const QString& sourceName, QString* error);

    /// Checks algorithm ids, their parameters, their task, the dataset spec and what the kind
    /// checks (ExperimentKind::validate()) against @p registry. Returns every problem found,
    /// each naming its key path (e.g. "algorithms[1].params: parameter \"lr\": expected a number
    /// 1e-06 to 1, got 5").
    QStringList validate(const PluginRegistry& registry) const;

    /// Rewrites every algorithm's parameters written with former spellings (renamed keys or
    /// choices, see ParamSchema::upgrade()) to the current ones, and returns one deprecation
    /// note per change, naming the file and the algorithm entry ("f.json: algorithms[0]:
    /// parameter \"hidden_activation\" is deprecated: it is now \"activation\""). Unknown
    /// algorithms are left alone (validate() reports them).
    QStringList upgradeParams(const PluginRegistry& registry);

    /// The spec as JSON, as it would be saved (threads and seed resolved).
    QJsonObject toJson() const;
    /// Threads actually used: threads, or the machine's cores when 0.
    int effectiveThreads() const;
    /// "All cores": the workers TBB may use in this process (its affinity mask and cgroup CPU
    /// quota respected), ≥ 1. The one place the workbench, the CLI and the engine ask.
    static int allCores();
};

} // namespace tb
