#pragma once
/// @file TrainerFactory.h
/// The root interface of a trainer plugin.

#include "ParamSchema.h"
#include "Trainer.h"

#include <QList>
#include <QString>
#include <QtPlugin>
#include <memory>

namespace tb {

/// Major version of this interface. It is part of the IID: a plugin built against another
/// major version is refused by the registry with a message, never loaded.
inline constexpr int ApiVersion = 1;

/// One algorithm a plugin offers.
struct AlgorithmInfo {
    QString id;           ///< unique across plugins, e.g. "bpls.classify", "linear.ridge"
    QString name;         ///< shown in forms and legends
    QString description;  ///< one line
    QString citation;     ///< the paper, short form
    ParamSchema schema;
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

#define TrainerFactory_iid "org.trainbench.TrainerFactory/1"
Q_DECLARE_INTERFACE(tb::TrainerFactory, TrainerFactory_iid)
