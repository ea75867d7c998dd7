#pragma once
/// @file ExperimentSpec.h
/// An experiment file (JSON): what to run, on which data, how often.

#include "KindSection.h"
#include "SuiteSet.h"

#include <trainbench/ParamSchema.h>
#include <trainbench/RunBudget.h>

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QVariantMap>
#include <QVector>
#include <cstdint>
#include <memory>
#include <optional>

namespace tb {

class PluginRegistry;

/// One algorithm entry of an experiment.
struct AlgorithmRun {
    QString id;           ///< algorithm id, e.g. "linear.ridge"
    QString label;        ///< legend label; defaults to the algorithm's name
    QVariantMap params;   ///< as written in the file (normalised by the registry at run time)
    /// This algorithm's own budget per run ("time_budget_s" / "time_budget_clock" of its entry),
    /// instead of the experiment's; nullopt = the experiment's.
    std::optional<RunBudget> budget = std::nullopt;
    /// The entry's keys that belong to the experiment's kind (ExperimentKind::algorithmKeys(), e.g.
    /// a tuned comparison's "search"), as written; the kind reads and checks them.
    QJsonObject kindKeys = {};
};

/// A parsed experiment file. Keys (see docs/experiments.md): name, description, kind (an
/// ExperimentKind's id), dataset {...}, algorithms [{id, label, params, time_budget_s,
/// time_budget_clock, and the kind's keys of an entry}], seed (default 1), threads (default: all
/// cores), time_budget_s (per run, seconds > 0, default none) on time_budget_clock ("wall", the
/// default, or "cpu"; an algorithm entry may have its own) — schema() declares them — and what the
/// kind reads: its keys (ExperimentKind::keys(), e.g. repeats) and its section objects
/// (ExperimentKind::sectionKeys(), e.g. "sweep"), parsed by the kind into `section`. The engine
/// never looks inside a kind's section.
struct ExperimentSpec {
    QString name;
    QString description;             ///< free text for people; kept through toJson()
    QString kind;                    ///< an ExperimentKind's id (ExperimentKinds::find())
    QJsonObject dataset;             ///< the data set; a suite's first set (each set runs as Suite::setSpec())
    /// A suite's data sets (the file's "datasets", or the sets of its "suite" file): each runs as an
    /// experiment of its own (Suite.h). Empty for an experiment on one data set.
    QList<SuiteSet> suite;
    QString suiteName;               ///< the suite file's "name", or the experiment's name for "datasets"
    QString suiteFile;               ///< the file's "suite" as written (resolved against baseDir); empty for "datasets"
    /// A suite's set run as an experiment of its own: its place (the stored "suite_set"); unset otherwise.
    SuitePlace suitePlace;
    QList<AlgorithmRun> algorithms;
    int repeats = 1;
    /// Learning-curve: index of the first repeat, so repeats r = first_repeat … first_repeat +
    /// repeats − 1 run with seeds deriveSeed(seed, r). Lets one stored run be re-run exactly.
    int firstRepeat = 0;
    std::uint64_t seed = 1;
    int threads = 0;                 ///< 0 = all cores
    /// The parameter format the algorithms' parameters (and the kind's values of them) are in:
    /// the file's "format" (absent = 1, a file written before formats), kParamsFormat once
    /// upgradeParams() has converted them. toJson() writes it.
    int paramsFormat = kParamsFormat;
    double timeBudgetSeconds = 0;    ///< 0 = no budget
    ClockKind timeBudgetClock = ClockKind::Wall; ///< the clock of timeBudgetSeconds
    /// The kind's own keys (ExperimentKind::keys()), normalised: canonical types, defaults in.
    QVariantMap settings;
    /// The kind's section (ExperimentKind::parseSection()), opaque here; null for a kind without one.
    std::shared_ptr<const KindSection> section;
    /// Problems that do not stop the run but should be seen, e.g. a key written twice in the
    /// file (JsonDuplicateKeys: the parser keeps the last value without a word).
    QStringList warnings;
    QString sourcePath;              ///< file it was read from, if any
    QString baseDir;                 ///< folder relative dataset paths resolve against

    /// The keys every experiment file has, whatever its kind (name, description, kind, seed,
    /// threads, time_budget_s, time_budget_clock, format; "dataset" — or "datasets" / "suite" for a
    /// suite, and "suite_set" for one of its sets — and "algorithms" are read on their own).
    static ParamSchema schema();

    /// The kind's section as its own type @p T (for the kind's code only), or null when the spec
    /// has none or another kind's.
    template <class T>
    const T* sectionAs() const
    {
        return dynamic_cast<const T*>(section.get());
    }

    /// Whether the spec is a suite (several data sets, Suite.h).
    bool isSuite() const { return !suite.isEmpty(); }

    /// The budget of every run (time_budget_s on time_budget_clock; none when 0).
    RunBudget budget() const { return RunBudget{timeBudgetSeconds, timeBudgetClock}; }
    /// The budget of algorithm @p index's runs: its own, or the experiment's.
    RunBudget budgetOf(int index) const;

    /// Parses and checks the structure (not the algorithm ids or parameters: see validate()).
    /// On error returns nullopt and sets @p error to "FILE:LINE:COL: message" for JSON syntax
    /// errors or "FILE: key.path: message" for wrong values.
    static std::optional<ExperimentSpec> fromJson(const QByteArray& json, const QString& sourceName, QString* error);
    static std::optional<ExperimentSpec> fromFile(const QString& path, QString* error);
    /// A suite's relative "suite" file is read from the folder of @p sourceName (the experiment
    /// file's path, as fromFile() passes it).
    static std::optional<ExperimentSpec> fromObject(const QJsonObject& o, const QString& sourceName, QString* error);

    /// Checks algorithm ids, their parameters, their task, the dataset spec and what the kind
    /// checks (ExperimentKind::validate()) against @p registry. Returns every problem found,
    /// each naming its key path (e.g. "algorithms[1].params: parameter \"lr\": expected a number
    /// 1e-06 to 1, got 5").
    QStringList validate(const PluginRegistry& registry) const;

    /// Rewrites former algorithm ids (a plugin's "renamed_algorithms", PluginRegistry) and every
    /// algorithm's parameters written with former spellings (renamed keys or choices, see
    /// ParamSchema::upgrade()) to the current ones — a plugin's own former time limit (bld's
    /// "time_limit") becomes the algorithm's host budget, values written in an earlier parameter
    /// format are converted (ParamSchema::FormatChange; the kind's own, ExperimentKind::
    /// upgradeFormat()) and paramsFormat becomes kParamsFormat — and returns one note per change,
    /// naming the file and the algorithm entry ("f.json: algorithms[0]: parameter
    /// \"hidden_activation\" is deprecated: it is now \"activation\""). Unknown algorithms are
    /// left alone (validate() reports them).
    QStringList upgradeParams(const PluginRegistry& registry);

    /// The spec as JSON, as it would be saved (threads and seed resolved).
    QJsonObject toJson() const;
    /// Threads actually used: threads, or the machine's cores when 0.
    int effectiveThreads() const;
    /// "All cores": the workers TBB may use in this process (its affinity mask and cgroup CPU
    /// quota respected), ≥ 1. The one place the workbench, the CLI and the engine ask.
    static int allCores();

private:
    /// The message for a budget on the cpu clock, named by @p key, where runs train side by side
    /// in the process (ExperimentKind::sideBySide(): its CPU time is then no run's own); empty
    /// where it can be measured.
    QString cpuBudgetProblem(const QString& src, const QString& key) const;
};

} // namespace tb
