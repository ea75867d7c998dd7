#pragma once
/// @file DataSourceRegistry.h
/// Every data source the process knows: those built in (core/data/sources/, one file each,
/// registered with TB_REGISTER_DATA_SOURCE) and those plugins offer (DataSourcePlugin, added by
/// the plugin registry when it loads them).

#include <trainbench/DataSourceProvider.h>

#include <QList>
#include <QString>
#include <QStringList>
#include <memory>

namespace tb::data {

/// One registered source: its provider, what it declared, and its whole schema.
struct DataSourceEntry {
    std::shared_ptr<const DataSourceProvider> provider;
    DataSourceInfo info;
    /// The source's own keys followed by the keys every source takes (DataKeys::common()).
    ParamSchema schema;
    /// "built in", or the file of the plugin that offered it.
    QString origin;
};

/// The process-wide list of data sources. Thread-safe.
class DataSourceRegistry {
public:
    /// Adds a built-in source; called at start-up by TB_REGISTER_DATA_SOURCE. Returns true (a
    /// value for the registration's static variable). A second source with the same id aborts
    /// with a message: it is a programming error.
    static bool addBuiltIn(std::shared_ptr<const DataSourceProvider> provider);

    /// Adds a source a plugin (file @p origin) offers. Returns an empty string, or why it was
    /// refused (an id taken by another source, an invalid id, an empty schema key …); a refused
    /// source is not added and the others of the plugin are unaffected.
    static QString addFromPlugin(std::shared_ptr<const DataSourceProvider> provider, const QString& origin);

    /// The source @p id (its id or one of its former ids, DataSourceInfo::formerIds), or nullptr.
    /// The entry lives as long as the process.
    static const DataSourceEntry* find(const QString& id);

    /// Every source, in list order (DataSourceInfo::order, then id).
    static QList<const DataSourceEntry*> all();

    /// The ids of all(), in order.
    static QStringList ids();

    /// Every source as JSON (for `trainbench-cli list --json` and tools): per source "source"
    /// (its id), "label", "description", "origin", "params" (ParamSchema::toJson() of its whole
    /// schema), and "task" and "noise_key" when it has them.
    static QJsonValue toJson();
};

} // namespace tb::data

#define TB_DATA_SOURCE_CONCAT_(a, b) a##b
#define TB_DATA_SOURCE_CONCAT(a, b) TB_DATA_SOURCE_CONCAT_(a, b)
/// Registers a built-in data source (a class implementing tb::DataSourceProvider, constructed
/// with the arguments that follow it, if any) when the library loads. Put it in the source's
/// own .cpp file, after the class.
#define TB_REGISTER_DATA_SOURCE(Class, ...)                                                                    \
    namespace {                                                                                                \
    [[maybe_unused]] const bool TB_DATA_SOURCE_CONCAT(tbRegistered, __LINE__) =                                \
        ::tb::data::DataSourceRegistry::addBuiltIn(std::make_shared<Class>(__VA_ARGS__));                      \
    }
