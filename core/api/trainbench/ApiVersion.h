#pragma once
/// @file ApiVersion.h
/// The plugin API's major version, written once: the interface id (IID) that every plugin
/// declares with Q_PLUGIN_METADATA is built from it, and the registry reads a plugin's version
/// from that id. Raise it when a change breaks binary compatibility of the interfaces
/// (a virtual function added, removed or changed); old plugins are then listed as "built for
/// plugin API N" instead of being loaded.

// 3: RunContext::budgetSpent() (the host's time budget on a chosen clock); ParamSpec's layout (one
//    schema type for algorithm, data-set and experiment keys); DataSourcePlugin.
// 4: Trainer::fresh() (a configuration's parameters read once, each run a copy of its prototype);
//    ParamSpec::search (how a tuned comparison draws a parameter).
// 5: ParamSpec::teachingValue (a plugin's settings for a classroom demonstration,
//    ParamSchema::teachingPreset()).
// 6: ParamSchema's layout (FormatChange: a key whose meaning changed with the parameter format).
#define TB_API_VERSION 6

// The data-source interface's own version, since DataTable's layout changed under it while the
// trainer interfaces did not:
// 4: DataTable::xSparse (sparse inputs). A data-source plugin built for 3 is listed as "built
//    for data-source API 3" and not loaded; trainer plugins built for API 3 load unchanged and
//    see dense inputs only (SparseTrainer.h).
// 5: ParamSpec's layout (teachingValue), in which a source declares its keys;
//    DataSourceInfo::formerIds.
// 6: ParamSchema's layout (its format changes).
#define TB_DATA_SOURCE_API_VERSION 6

#define TB_API_STRINGIFY_(x) #x
#define TB_API_STRINGIFY(x) TB_API_STRINGIFY_(x)

/// The prefix of every Trainbench trainer IID; the API version follows it.
#define TrainerFactory_iid_prefix "org.trainbench.TrainerFactory/"
/// "org.trainbench.TrainerFactory/<TB_API_VERSION>": use it in Q_PLUGIN_METADATA(IID ...).
#define TrainerFactory_iid TrainerFactory_iid_prefix TB_API_STRINGIFY(TB_API_VERSION)

namespace tb {

/// The plugin API's major version (TB_API_VERSION).
inline constexpr int ApiVersion = TB_API_VERSION;
/// The data-source plugin interface's version (TB_DATA_SOURCE_API_VERSION).
inline constexpr int DataSourceApiVersion = TB_DATA_SOURCE_API_VERSION;

} // namespace tb
