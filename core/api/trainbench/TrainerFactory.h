#pragma once
/// @file TrainerFactory.h
/// The root interface of a trainer plugin.

#include "ApiVersion.h"
#include "ParamSchema.h"
#include "Trainer.h"

#include <QList>
#include <QString>
#include <QtPlugin>
#include <cmath>
#include <functional>
#include <memory>

namespace tb {

/// How far a run has come: Checkpoint::epoch grows from 0 to the planned total, which a
/// progress bar divides by. The host never guesses it from parameter names.
struct ProgressRule {
    /// The parameter holding the budget (e.g. "epochs", "iterations"); empty = see compute.
    QString parameter;
    /// Added to the parameter's value (e.g. BPLS: 1 first sweep + tau_max refinements).
    double offset = 0;
    /// Instead of parameter + offset, when set: the planned total from the normalised
    /// parameters (e.g. stages × inner iterations).
    std::function<double(const QVariantMap& params)> compute;

    /// The planned final Checkpoint::epoch for @p params (normalised by the schema); 0 when
    /// the rule declares nothing (the host then shows an indeterminate progress bar).
    double plannedEpochs(const QVariantMap& params) const
    {
        double total = 0;
        if (compute)
            total = compute(params);
        else if (!parameter.isEmpty() && params.contains(parameter))
            total = params.value(parameter).toDouble() + offset;
        return std::isfinite(total) && total > 0 ? total : 0.0;
    }
    /// True when the rule declares something.
    bool isDeclared() const { return compute || !parameter.isEmpty(); }
};

/// One algorithm a plugin offers.
struct AlgorithmInfo {
    QString id;           ///< unique across plugins, e.g. "bpls.classify", "linear.ridge"
    QString name;         ///< shown in forms and legends
    QString description;  ///< one line
    QString citation;     ///< the paper, short form
    ParamSchema schema;
    ProgressRule progress;       ///< how checkpoints count towards the end of a run
    bool regression = true;      ///< handles Task::Regression
    bool classification = true;  ///< handles Task::Classification
};

/// Implemented by a plugin's root QObject; see docs/plugin-guide.md.
///
/// Thread-safety: algorithms() and create() may be called from any thread concurrently.
class TrainerFactory {
public:
    virtual ~TrainerFactory() = default;

    /// The algorithms this plugin offers. Must not be empty.
    virtual QList<AlgorithmInfo> algorithms() const = 0;

    /// A new trainer for @p algorithmId with @p params already normalised by the schema
    /// (complete and of canonical types). Throws std::invalid_argument for combinations the
    /// schema cannot express (the message names the parameters).
    virtual std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const = 0;
};

} // namespace tb

Q_DECLARE_INTERFACE(tb::TrainerFactory, TrainerFactory_iid)
