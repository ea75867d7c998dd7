#pragma once
/// @file PreparedConfiguration.h
/// One configuration's parameters made ready once: upgraded, budget taken out, normalised, bound.

#include <trainbench/RunBudget.h>
#include <trainbench/Trainer.h>

#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

namespace tb {

class PluginRegistry;
struct AlgorithmEntry;

/// An algorithm's parameters as every run of one configuration uses them, prepared once per
/// configuration (issue 44, item 2): former spellings upgraded (one note each), a budget among
/// them taken out (a plugin's former time limit: the host's budget), the rest normalised by the
/// schema, and read by the plugin into its typed configuration and checked — create(), whose
/// trainer is the prototype each run copies (Trainer::fresh()). The experiment's checks, the
/// memory check and every run share it: PluginRegistry::prepared() hands out one object per
/// configuration. Immutable; thread-safe.
class PreparedConfiguration {
public:
    /// Why a configuration cannot run.
    enum class Problem {
        None,
        UnknownAlgorithm,  ///< no loaded plugin offers the id
        Budget,            ///< a budget among the parameters is not one (problemKey() names it)
        Parameters,        ///< the schema refuses a value
        Plugin,            ///< create() refused the combination (error() is its message)
        NoTrainer          ///< create() returned nothing
    };

    /// Prepares @p params of @p algorithmId in @p registry. Prefer PluginRegistry::prepared(),
    /// which makes it once per configuration.
    static std::shared_ptr<const PreparedConfiguration> make(const PluginRegistry& registry, const QString& algorithmId,
                                                             const QVariantMap& params);

    bool ok() const { return m_problem == Problem::None; }
    Problem problem() const { return m_problem; }
    /// The problem for people, as the checks word it: "unknown algorithm \"x\"", "parameter
    /// \"lr\": expected …", the schema's or the plugin's message (with the upgrades it made, when it
    /// made some: a message about an upgraded value also says what the file called it).
    const QString& error() const { return m_error; }
    /// With Problem::Budget: the budget's key in the parameters, and what is wrong with its value.
    const QString& problemKey() const { return m_problemKey; }
    const QString& budgetProblem() const { return m_budgetProblem; }

    /// The algorithm's entry (its current id even for a former one), null for an unknown id.
    const AlgorithmEntry* entry() const { return m_entry; }
    /// The complete parameters (canonical types, defaults filled in); valid when ok() and with
    /// Problem::Plugin / NoTrainer (the schema took them, the plugin did not).
    const QVariantMap& params() const { return m_params; }
    bool hasParams() const { return m_hasParams; }
    /// A budget among the parameters (a plugin's former own time limit, upgraded): the host's.
    const std::optional<RunBudget>& ownBudget() const { return m_ownBudget; }
    /// The run's budget: the parameters' own, else @p given (the entry's or the experiment's).
    RunBudget budgetOr(const RunBudget& given) const { return m_ownBudget.value_or(given); }
    /// One note per former spelling upgraded ("parameter \"theta\" is deprecated: it is now \"lr\"").
    const QStringList& notes() const { return m_notes; }

    /// A trainer for one run: the prototype's fresh() copy, or create() once more for a plugin
    /// whose trainers have no fresh(). Null with @p error when the
    /// plugin fails. Thread-safe.
    std::unique_ptr<Trainer> newTrainer(QString* error) const;
    /// The prototype's cost prediction for @p shape (Trainer::predictCost()). Call it in the
    /// arena the runs will use.
    QJsonObject predictCost(const ProblemShape& shape) const;

    /// Preparations this process has made (every make()): what a test counts to see that a
    /// configuration is prepared once, whatever checks and runs it goes through.
    static std::uint64_t preparations() { return s_preparations.load(); }

private:
    PreparedConfiguration() = default;

    const AlgorithmEntry* m_entry = nullptr;
    Problem m_problem = Problem::None;
    QString m_error, m_problemKey, m_budgetProblem;
    QVariantMap m_params;
    bool m_hasParams = false;
    std::optional<RunBudget> m_ownBudget;
    QStringList m_notes;
    std::shared_ptr<const Trainer> m_prototype;
    static std::atomic<std::uint64_t> s_preparations;
};

} // namespace tb
