#pragma once
/// @file TeachingPreset.h
/// The settings of a live classroom demonstration, declared once for the keys the shared
/// blocks spell (NetworkParams, StoppingParams, OptimizerParams): a few hundred points in 2-D,
/// trained over seconds while a class watches (the workbench's teaching view and "Use suggested
/// settings"). A plugin calls addTeachingPreset() on each algorithm's schema, and may set more
/// of its own keys with ParamSchema::setTeaching(); the workbench reads only
/// ParamSchema::teachingPreset() and never names a plugin's key.

#include <trainbench/ParamSchema.h>

#include <QStringList>
#include <QVariantList>
#include <algorithm>

namespace tb::toolkit {

/// The learning rate of a demonstration at least: smaller steps leave the regions unchanged for
/// the first seconds, which is all a class sees.
inline constexpr double kTeachingMinLearningRate = 0.01;

/// Gives the keys of the shared blocks that @p schema has their demonstration values; keys it
/// does not have are skipped.
inline void addTeachingPreset(ParamSchema& schema)
{
    // Many short epochs: the regions form over seconds, not in 0.04 s.
    schema.setTeaching(QStringLiteral("epochs"), 300);
    schema.setTeaching(QStringLiteral("iterations"), 300);
    // The same network on both sides (2-16-2, tanh, Glorot): a comparison of training methods,
    // not of networks.
    schema.setTeaching(QStringLiteral("hidden"), QVariantList{16});
    schema.setTeaching(QStringLiteral("activation"), QStringLiteral("tanh"));
    schema.setTeaching(QStringLiteral("init"), QStringLiteral("glorot"));
    schema.setTeaching(QStringLiteral("batch_size"), 16);
    if (const ParamSpec* lr = schema.find(QStringLiteral("lr")))
        schema.setTeaching(QStringLiteral("lr"), std::max(kTeachingMinLearningRate, lr->defaultValue.toDouble()));
}

} // namespace tb::toolkit
