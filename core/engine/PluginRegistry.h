#pragma once
/// @file PluginRegistry.h
/// Finds trainer plugins, reads their metadata before loading, loads them, and keeps a
/// state and an error string per plugin (Qt Creator's PluginSpec is the model).

#include <trainbench/TrainerFactory.h>

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <memory>

class QPluginLoader;

namespace tb {

/// One plugin file found on a search path.
struct PluginSpec {
    enum class State {
        Loaded,   ///< metadata valid, instance created, algorithms (or data sources) listed
        Invalid,  ///< not a Trainbench plugin, wrong IID / API version, bad metadata
        Failed,   ///< looked right but loading or instantiating failed
        Shadowed  ///< another plugin with the same id was found earlier on the search path
    };
    QString filePath;
    QString id, name, version, family, citation, description;
    int apiVersion = 0;
    State state = State::Invalid;
    QString error;                    ///< why it is not Loaded (for a Loaded data-source plugin: the sources it refused); else empty
    QList<AlgorithmInfo> algorithms;  ///< Loaded trainer plugins only
    /// Loaded data-source plugins only: the ids of the sources it added to the data-source
    /// registry (tb::data::DataSourceRegistry). When some of its sources were refused (an id
    /// already taken, a key the host declares), error names them and the rest are listed here.
    QStringList dataSources;
    TrainerFactory* factory = nullptr;///< Loaded only; owned by the loader, lives as long as the registry

    bool isLoaded() const { return state == State::Loaded; }
    QString stateName() const;
};

/// An algorithm together with the plugin that provides it.
struct AlgorithmEntry {
    AlgorithmInfo info;
    const PluginSpec* plugin = nullptr;
};

/// Loads plugins once and keeps them loaded for the registry's lifetime (trainers created
/// from a plugin must not outlive the registry). Not thread-safe for scan(); the const
/// accessors may be used from any thread after scan() returned.
class PluginRegistry {
public:
    PluginRegistry();
    ~PluginRegistry();
    PluginRegistry(const PluginRegistry&) = delete;
    PluginRegistry& operator=(const PluginRegistry&) = delete;

    /// The default search path, in priority order: the folders of TRAINBENCH_PLUGIN_PATH
    /// (colon-separated), <executable dir>/plugins, <executable dir>/../lib/trainbench/plugins,
    /// the install prefix's plugin folder, and <user app-data>/plugins.
    static QStringList defaultSearchPaths();

    /// Scans @p paths (default: defaultSearchPaths()) for shared libraries and loads every
    /// valid plugin. Folders that don't exist are skipped. May be called once.
    void scan(const QStringList& paths = defaultSearchPaths());

    const QList<std::shared_ptr<PluginSpec>>& plugins() const { return m_plugins; }
    QList<AlgorithmEntry> algorithms() const;
    /// The algorithm with this id, or nullptr.
    const AlgorithmEntry* algorithm(const QString& id) const;
    QStringList searchPaths() const { return m_searchPaths; }

    /// The final Checkpoint::epoch a run of @p algorithmId with @p params (as given; normalised
    /// here) is planned to reach, from the algorithm's ProgressRule; 0 when unknown (unknown
    /// algorithm, invalid parameters, or no rule declared).
    double plannedEpochs(const QString& algorithmId, const QVariantMap& params) const;

    /// Creates a trainer for @p algorithmId with @p params (checked and completed by the
    /// schema). Throws std::invalid_argument with a clear message when the id is unknown or
    /// the parameters are invalid; *normalised receives the complete parameter map.
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params,
                                    QVariantMap* normalised = nullptr) const;

private:
    void loadOne(const QString& filePath);
    void loadDataSources(PluginSpec& spec, QObject* root, QPluginLoader* loader);

    QStringList m_searchPaths;
    QList<std::shared_ptr<PluginSpec>> m_plugins;
    QList<AlgorithmEntry> m_algorithms;
    QList<QPluginLoader*> m_loaders;
};

} // namespace tb
