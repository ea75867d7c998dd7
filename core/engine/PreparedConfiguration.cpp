#include "PreparedConfiguration.h"

#include "HostBudget.h"
#include "PluginRegistry.h"

#include <trainbench/TrainerFactory.h>

namespace tb {

std::atomic<std::uint64_t> PreparedConfiguration::s_preparations{0};

std::shared_ptr<const PreparedConfiguration> PreparedConfiguration::make(const PluginRegistry& registry,
                                                                         const QString& algorithmId,
                                                                         const QVariantMap& params)
{
    ++s_preparations;
    auto p = std::shared_ptr<PreparedConfiguration>(new PreparedConfiguration);
    p->m_entry = registry.algorithm(algorithmId);
    if (!p->m_entry) {
        p->m_problem = Problem::UnknownAlgorithm;
        p->m_error = QStringLiteral("unknown algorithm \"%1\"").arg(algorithmId);
        return p;
    }
    QVariantMap given = p->m_entry->info.schema.upgrade(params, &p->m_notes);
    // A message about an upgraded value also says what the file called it.
    const QString context = p->m_notes.isEmpty() ? QString() : QStringLiteral(" (") + p->m_notes.join("; ") + ')';
    HostBudget::Error budgetError;
    p->m_ownBudget = HostBudget::takeFromParams(given, &budgetError);
    if (!budgetError.key.isEmpty()) {
        p->m_problem = Problem::Budget;
        p->m_problemKey = budgetError.key;
        p->m_budgetProblem = budgetError.message;
        p->m_error = QStringLiteral("parameter \"%1\": %2%3").arg(budgetError.key, budgetError.message, context);
        return p;
    }
    QString err;
    const auto normalised = p->m_entry->info.schema.normalise(given, &err);
    if (!normalised) {
        p->m_problem = Problem::Parameters;
        p->m_error = err + context;
        return p;
    }
    p->m_params = *normalised;
    p->m_hasParams = true;
    // The plugin reads them into its typed configuration and checks the combinations the schema
    // cannot express, once: its trainer is the prototype of every run.
    try {
        std::unique_ptr<Trainer> t = p->m_entry->plugin->factory->create(p->m_entry->info.id, p->m_params);
        if (!t) {
            p->m_problem = Problem::NoTrainer;
            p->m_error = QStringLiteral("plugin \"%1\" returned no trainer for \"%2\"").arg(p->m_entry->plugin->id, algorithmId);
            return p;
        }
        p->m_prototype = std::move(t);
    } catch (const std::exception& e) {
        p->m_problem = Problem::Plugin;
        const QString what = QString::fromUtf8(e.what());
        p->m_error = p->m_notes.isEmpty() ? what : QStringLiteral("%1 (%2)").arg(what, p->m_notes.join("; "));
    }
    return p;
}

std::unique_ptr<Trainer> PreparedConfiguration::newTrainer(QString* error) const
{
    if (!ok()) {
        if (error)
            *error = m_error;
        return nullptr;
    }
    try {
        if (std::unique_ptr<Trainer> t = m_prototype->fresh())
            return t;
        // A trainer without fresh(): its factory reads the parameters again.
        std::unique_ptr<Trainer> t = m_entry->plugin->factory->create(m_entry->info.id, m_params);
        if (!t && error)
            *error = QStringLiteral("plugin returned no trainer");
        return t;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return nullptr;
    }
}

QJsonObject PreparedConfiguration::predictCost(const ProblemShape& shape) const
{
    return ok() ? m_prototype->predictCost(shape) : QJsonObject();
}

} // namespace tb
