#pragma once
/// @file PluginRegistry.h
/// Finds trainer plugins, reads their metadata before loading, loads them, and keeps a
/// state and an error string per plugin (Qt Creator's PluginSpec is the model).

#include <trainbench/ScriptHost.h>
#include <trainbench/SparseTrainer.h>
#include <trainbench/TrainerFactory.h>

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <memory>
#include <mutex>

class QPluginLoader;

namespace tb {

class PreparedConfiguration;

/// One plugin file found on a search path: a shared library, or a script of a loaded ScriptHost
/// (ScriptHost.h: a `.py` file of plugins/python), listed after its host with the host's family
/// and factory, its content's hash as version, and its own state and reason.
struct PluginSpec {
    enum class State {
        Loaded,   ///< metadata valid, instance created, algorithms (or data sources) listed
        Invalid,  ///< not a Trainbench plugin, wrong IID / API version, bad metadata
        Failed,   ///< looked right but loading or instantiating failed
        Shadowed, ///< another plugin with the same id was found earlier on the search path
        Refused   ///< never read: others can write to it or to its folder (PluginTrust)
    };
    QString filePath;
    QString id, name, version, family, citation, description;
    int apiVersion = 0;
    State state = State::Invalid;
    QString error;                    ///< why it is not Loaded (for a Loaded data-source plugin: the sources it refused); else empty
    QList<AlgorithmInfo> algorithms;  ///< Loaded trainer plugins only
    /// Former algorithm ids → current ones, from the metadata's "renamed_algorithms" object
    /// (e.g. {"libsvm.c_svc": "libsvm.classify"}): experiment files and stored runs that name
    /// the former id keep working (PluginRegistry::algorithm()), with a note.
    QMap<QString, QString> renamedAlgorithms;
    /// Loaded data-source plugins only: the ids of the sources it added to the data-source
    /// registry (tb::data::DataSourceRegistry). When some of its sources were refused (an id
    /// already taken, a key the host declares), error names them and the rest are listed here.
    QStringList dataSources;
    TrainerFactory* factory = nullptr;///< Loaded only; owned by the loader, lives as long as the registry
    /// Loaded only: the files of other plugins with the same id that this one replaces (they are
    /// Shadowed, found later on the search path); empty in the usual case.
    QStringList replaces;

    bool isLoaded() const { return state == State::Loaded; }
    QString stateName() const;
};

/// One folder of the search path, as scan() found it.
struct PluginFolder {
    enum class State {
        Used,    ///< scanned
        Missing, ///< does not exist
        Refused, ///< not safe (PluginTrust::folderProblem()): nothing in it was read
        Trusted  ///< it or a file in it not safe, scanned because TRAINBENCH_TRUST_PLUGIN_DIRS names it
    };
    QString path;
    State state = State::Missing;
    QString problem; ///< Refused and Trusted: why it (or the first unsafe file in it) is not safe
    QString stateName() const;
};

/// An algorithm together with the plugin that provides it.
struct AlgorithmEntry {
    AlgorithmInfo info;
    const PluginSpec* plugin = nullptr;
    /// The plugin declares that this algorithm takes sparse inputs as they are (its trainers are
    /// SparseTrainers, SparseTrainer.h); otherwise sparse data is densified for it or refused.
    bool sparseInput = false;
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
    /// (colon-separated), <executable dir>/plugins, the installed plugin folder relative to the
    /// executable (<executable dir>/../lib/trainbench/plugins for the default layout), the install
    /// prefix's plugin folder, and <user app-data>/plugins.
    static QStringList defaultSearchPaths();

    /// Scans @p paths (default: defaultSearchPaths()) for shared libraries and loads every
    /// valid plugin. Folders that don't exist are skipped. A folder or file that other users can
    /// write to is refused unless TRAINBENCH_TRUST_PLUGIN_DIRS names its folder (PluginTrust):
    /// plugins are code. The scripts of a loaded ScriptHost (ScriptHost.h, e.g. the `.py` trainers
    /// of plugins/python) are listed after it, one PluginSpec each, the host reading only what the
    /// same rule allows. May be called once.
    void scan(const QStringList& paths = defaultSearchPaths());

    const QList<std::shared_ptr<PluginSpec>>& plugins() const { return m_plugins; }
    QList<AlgorithmEntry> algorithms() const;
    /// The algorithm with this id, or with this former id (a plugin's "renamed_algorithms"),
    /// or nullptr. The entry's info.id is the current id.
    const AlgorithmEntry* algorithm(const QString& id) const;
    /// The current id of @p id: itself, or what a former id was renamed to (when its plugin is
    /// loaded).
    QString currentId(const QString& id) const;
    /// For a former id: "algorithm \"libsvm.c_svc\" is now \"libsvm.classify\" (libsvm 1.1.0)";
    /// empty for a current or unknown id.
    QString renamedNote(const QString& id) const;
    QStringList searchPaths() const { return m_searchPaths; }
    /// The folders of the search path in priority order, each with what scan() made of it.
    const QList<PluginFolder>& folders() const { return m_folders; }
    /// What a user must be told before anything else (`trainbench-cli list` and `run`, the
    /// workbench's log and plugins dialog), one sentence each: folders and files refused as
    /// unsafe, unsafe folders loaded because the user trusts them, and plugins that replace
    /// another of the same id. Empty in the usual case.
    QStringList notices() const;
    /// The notice for @p plugin when it replaces other plugins of its id (PluginSpec::replaces),
    /// e.g. `plugin "linear" 1.0.0 from /tmp/p/trainbench-linear.so replaces /opt/…/trainbench-linear.so`;
    /// empty otherwise.
    static QString replacementNotice(const PluginSpec& plugin);

    /// The final Checkpoint::epoch a run of @p algorithmId with @p params (as given; normalised
    /// here) is planned to reach, from the algorithm's ProgressRule; 0 when unknown (unknown
    /// algorithm, invalid parameters, or no rule declared).
    double plannedEpochs(const QString& algorithmId, const QVariantMap& params) const;

    /// Creates a trainer for @p algorithmId with @p params (checked and completed by the
    /// schema). Throws std::invalid_argument with a clear message when the id is unknown or
    /// the parameters are invalid; *normalised receives the complete parameter map.
    /// @p params of @p algorithmId prepared for its runs (PreparedConfiguration): made on the
    /// first call for a configuration and handed out again after, so that the experiment's checks,
    /// its memory check and every run of the configuration read the parameters once. Thread-safe.
    /// Keeps the last kMaxPrepared configurations (a kind that runs more keeps its own pointers).
    std::shared_ptr<const PreparedConfiguration> prepared(const QString& algorithmId, const QVariantMap& params) const;
    static constexpr int kMaxPrepared = 1024;

    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params,
                                    QVariantMap* normalised = nullptr) const;

private:
    void loadOne(const QString& filePath);
    void loadDataSources(PluginSpec& spec, QObject* root, QPluginLoader* loader);
    /// Why the trainer plugin @p spec (root object @p root, its @p factory, metadata @p data) cannot
    /// be used, empty when it can: algorithms() throws or offers none (a ScriptHost may offer none
    /// of its own), an id another plugin offers, a bad "renamed_algorithms", sparseInputAlgorithms()
    /// throws or names an algorithm it lacks. Fills @p algos, @p sparse and spec.renamedAlgorithms as
    /// it checks them.
    QString trainerProblem(PluginSpec& spec, TrainerFactory& factory, QObject* root, const QJsonObject& data,
                           QList<AlgorithmInfo>& algos, QStringList& sparse) const;
    /// The "renamed_algorithms" of metadata @p data: each former id must name one of @p algos and no
    /// current id anywhere; kept in spec.renamedAlgorithms. Empty when they do, else why not.
    QString renamesProblem(PluginSpec& spec, const QList<AlgorithmInfo>& algos,
                           const QJsonObject& data) const;
    /// The scripts of the loaded ScriptHost @p host (plugin @p spec): each file becomes a PluginSpec
    /// of its own after @p spec, loaded (its algorithms offered, under the checks of trainerProblem())
    /// or listed with the host's reason. The host reads only what scriptTrust() allows.
    void loadScripts(const PluginSpec& spec, const ScriptHost& host);
    /// The rule a ScriptHost applies before it reads a folder or a script: PluginTrust's, as for
    /// shared libraries (TRAINBENCH_TRUST_PLUGIN_DIRS included).
    static ScriptTrust scriptTrust();
    /// Lists @p filePath as Refused with @p why, without reading it.
    void refuse(const QString& filePath, const QString& why);
    /// Why @p filePath of @p folder must not be read (PluginTrust), empty when it may be loaded;
    /// an unsafe file of a folder the user trusts makes the folder Trusted, with the file's problem.
    QString distrust(PluginFolder& folder, const QString& filePath);
    /// Fills PluginSpec::replaces of each loaded plugin from the plugins it shadows.
    void noteReplacements();

    QStringList m_searchPaths;
    QList<PluginFolder> m_folders;
    QList<std::shared_ptr<PluginSpec>> m_plugins;
    QList<AlgorithmEntry> m_algorithms;
    QHash<QString, QString> m_renamed;  ///< former id → current id, of loaded plugins
    QList<QPluginLoader*> m_loaders;
    mutable std::mutex m_preparedMutex;
    mutable QHash<QString, std::shared_ptr<const PreparedConfiguration>> m_prepared; ///< by preparedKey()
};

} // namespace tb
