#include "PluginRegistry.h"

#include "PluginTrust.h"
#include "PreparedConfiguration.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QLibrary>
#include <QPluginLoader>
#include <QStandardPaths>

#include <algorithm>

#include <data/DataSourceRegistry.h>
#include <trainbench/DataSourceProvider.h>

#include <stdexcept>

#ifndef TB_PLUGIN_INSTALL_DIR
#define TB_PLUGIN_INSTALL_DIR ""
#endif
#ifndef TB_PLUGIN_RELATIVE_DIR
#define TB_PLUGIN_RELATIVE_DIR "../lib/trainbench/plugins"
#endif

namespace tb {

QString PluginSpec::stateName() const
{
    switch (state) {
    case State::Loaded: return QStringLiteral("loaded");
    case State::Invalid: return QStringLiteral("invalid");
    case State::Failed: return QStringLiteral("failed");
    case State::Shadowed: return QStringLiteral("shadowed");
    case State::Refused: return QStringLiteral("refused");
    }
    return QStringLiteral("?");
}

QString PluginFolder::stateName() const
{
    switch (state) {
    case State::Used: return QStringLiteral("used");
    case State::Missing: return QStringLiteral("missing");
    case State::Refused: return QStringLiteral("refused");
    case State::Trusted: return QStringLiteral("trusted");
    }
    return QStringLiteral("?");
}

PluginRegistry::PluginRegistry() = default;

PluginRegistry::~PluginRegistry()
{
    // Trainers hold code from these libraries; the registry outlives them by contract, so
    // the loaders are deleted without unload(): unloading at exit only risks crashes.
    qDeleteAll(m_loaders);
}

QStringList PluginRegistry::defaultSearchPaths()
{
    QStringList paths;
    const QByteArray env = qgetenv("TRAINBENCH_PLUGIN_PATH");
    for (const auto& p : QString::fromLocal8Bit(env).split(QLatin1Char(':'), Qt::SkipEmptyParts))
        paths << QDir::cleanPath(p);
    if (QCoreApplication::instance()) {
        const QString exeDir = QCoreApplication::applicationDirPath();
        paths << QDir::cleanPath(exeDir + "/plugins") << QDir::cleanPath(exeDir + "/" TB_PLUGIN_RELATIVE_DIR);
    }
    if (const QString installed = QStringLiteral(TB_PLUGIN_INSTALL_DIR); !installed.isEmpty())
        paths << QDir::cleanPath(installed);
    const QString user = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (!user.isEmpty())
        paths << QDir::cleanPath(user + "/trainbench/plugins");
    paths.removeDuplicates();
    return paths;
}

void PluginRegistry::scan(const QStringList& paths)
{
    {
        const std::lock_guard lock(m_preparedMutex);
        m_prepared.clear(); // they point at the entries the scan may move
    }
    m_searchPaths = paths;
    for (const QString& dir : paths) {
        QDir d(dir);
        m_folders.append(PluginFolder{dir, PluginFolder::State::Used, PluginTrust::folderProblem(dir)});
        PluginFolder& folder = m_folders.last();
        if (!d.exists())
            folder.state = PluginFolder::State::Missing;
        else if (!folder.problem.isEmpty())
            folder.state = PluginTrust::isTrusted(dir) ? PluginFolder::State::Trusted : PluginFolder::State::Refused;
        if (folder.state == PluginFolder::State::Missing)
            continue;
        // QDir::System lists broken symbolic links, QDir::Dirs folders: a "plugin" that is one of
        // them is listed with the reason, not skipped without a word.
        const auto entries = d.entryInfoList(QDir::Files | QDir::Dirs | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
        for (const QFileInfo& fi : entries) {
            if (!QLibrary::isLibrary(fi.fileName()))
                continue;
            QString problem;
            if (fi.isSymLink() && !fi.exists())
                problem = QStringLiteral("a symbolic link to %1, which does not exist").arg(fi.symLinkTarget());
            else if (fi.isDir())
                problem = QStringLiteral("a folder, not a library");
            else if (!fi.isFile())
                problem = QStringLiteral("not a regular file");
            if (problem.isEmpty()) {
                if (const QString why = distrust(folder, fi.absoluteFilePath()); !why.isEmpty())
                    refuse(fi.absoluteFilePath(), why);
                else
                    loadOne(fi.absoluteFilePath());
                continue;
            }
            auto spec = std::make_shared<PluginSpec>();
            spec->filePath = fi.absoluteFilePath();
            spec->state = PluginSpec::State::Invalid;
            spec->error = problem;
            m_plugins.append(spec);
        }
    }
    noteReplacements();
}

QString PluginRegistry::distrust(PluginFolder& folder, const QString& filePath)
{
    // Plugins are code: nothing of a file others could have written is read (PluginTrust).
    if (folder.state == PluginFolder::State::Refused)
        return QStringLiteral("not read, its folder is refused: %1; %2").arg(folder.problem, PluginTrust::remedy(folder.path));
    if (folder.state == PluginFolder::State::Trusted)
        return {}; // its files too: the user named it
    const QString unsafe = PluginTrust::fileProblem(filePath);
    if (unsafe.isEmpty())
        return {};
    if (!PluginTrust::isTrusted(folder.path))
        return QStringLiteral("not read: %1; %2").arg(unsafe, PluginTrust::remedy(folder.path));
    // A safe folder the user trusts, holding a file that is not: trusted whole, said by notices().
    folder.state = PluginFolder::State::Trusted;
    folder.problem = unsafe;
    return {};
}

void PluginRegistry::refuse(const QString& filePath, const QString& why)
{
    auto spec = std::make_shared<PluginSpec>();
    spec->filePath = filePath;
    spec->state = PluginSpec::State::Refused;
    spec->error = why;
    m_plugins.append(spec);
}

void PluginRegistry::noteReplacements()
{
    for (const auto& shadowed : std::as_const(m_plugins)) {
        if (shadowed->state != PluginSpec::State::Shadowed)
            continue;
        for (const auto& winner : std::as_const(m_plugins))
            if (winner->isLoaded() && winner->id == shadowed->id)
                winner->replaces << shadowed->filePath;
    }
}

QString PluginRegistry::replacementNotice(const PluginSpec& plugin)
{
    if (plugin.replaces.isEmpty())
        return {};
    return QStringLiteral("plugin \"%1\" %2 from %3 replaces %4 (the first folder of the search path wins)")
        .arg(plugin.id, plugin.version, plugin.filePath, plugin.replaces.join(QStringLiteral(", ")));
}

QStringList PluginRegistry::notices() const
{
    QStringList out;
    for (const PluginFolder& f : m_folders) {
        if (f.state == PluginFolder::State::Refused)
            out << QStringLiteral("plugin folder %1 refused: %2; plugins are code and run with your rights: %3")
                       .arg(f.path, f.problem, PluginTrust::remedy(f.path));
        else if (f.state == PluginFolder::State::Trusted)
            out << QStringLiteral("plugin folder %1 loaded although %2, because %3 names it")
                       .arg(f.path, f.problem, QLatin1String(PluginTrust::trustVariable));
    }
    for (const auto& p : m_plugins) {
        if (p->state == PluginSpec::State::Refused &&
            std::none_of(m_folders.begin(), m_folders.end(), [&](const PluginFolder& f) {
                return f.state == PluginFolder::State::Refused && QFileInfo(p->filePath).absolutePath() == QDir(f.path).absolutePath();
            }))
            out << QStringLiteral("plugin file %1 refused, %2").arg(p->filePath, p->error);
        if (const QString n = replacementNotice(*p); !n.isEmpty())
            out << n;
    }
    return out;
}

namespace {

/// The interface a plugin's IID names — trainers or data sources — and the API this build supports
/// of it. The API version is part of the interface id (TB_API_VERSION, written once).
struct PluginInterface {
    bool dataSource = false;
    QString prefix;   ///< the IID without its version
    QString expected; ///< the IID this build loads
    int supported = 0;

    static PluginInterface of(const QString& iid)
    {
        PluginInterface i;
        i.dataSource = iid.startsWith(QStringLiteral(DataSourcePlugin_iid_prefix));
        i.prefix = i.dataSource ? QStringLiteral(DataSourcePlugin_iid_prefix)
                                : QStringLiteral(TrainerFactory_iid_prefix);
        i.expected = i.dataSource ? QStringLiteral(DataSourcePlugin_iid) : QStringLiteral(TrainerFactory_iid);
        i.supported = i.dataSource ? DataSourceApiVersion : ApiVersion;
        return i;
    }
};

/// The description of @p spec from its metadata @p data.
void readDescription(PluginSpec& spec, const QJsonObject& data)
{
    spec.id = data.value("id").toString();
    spec.name = data.value("name").toString(spec.id);
    spec.version = data.value("version").toString();
    spec.family = data.value("family").toString();
    spec.citation = data.value("citation").toString();
    spec.description = data.value("description").toString();
}

/// Why a plugin of interface id @p iid and metadata @p data cannot be loaded by this build (empty:
/// it can): another interface or API, no id or version, a metadata "apiVersion" (optional) that
/// disagrees with the interface id. Sets spec.apiVersion from the id.
QString interfaceProblem(PluginSpec& spec, const QString& iid, const QJsonObject& data)
{
    const PluginInterface api = PluginInterface::of(iid);
    if (iid.startsWith(api.prefix))
        spec.apiVersion = iid.mid(api.prefix.size()).toInt();
    if (iid != api.expected) {
        if (iid.startsWith(api.prefix))
            return QStringLiteral("built for %1 API %2; this Trainbench supports API %3 (rebuild the "
                                  "plugin against this version's SDK)")
                .arg(api.dataSource ? QStringLiteral("data-source") : QStringLiteral("plugin"),
                     iid.mid(api.prefix.size()))
                .arg(api.supported);
        return QStringLiteral("not a Trainbench plugin (interface \"%1\", expected \"%2\" or \"%3\")")
            .arg(iid, QLatin1String(TrainerFactory_iid), QLatin1String(DataSourcePlugin_iid));
    }
    if (spec.id.isEmpty() || spec.version.isEmpty())
        return QStringLiteral("metadata lacks \"id\" or \"version\"");
    if (data.contains("apiVersion") && data.value("apiVersion").toInt() != api.supported)
        return QStringLiteral("metadata declares apiVersion %1 but the plugin implements %2 (API %3); drop "
                              "\"apiVersion\" from the metadata, the interface id carries it")
            .arg(data.value("apiVersion").toVariant().toString(), api.expected)
            .arg(api.supported);
    return {};
}

} // namespace

void PluginRegistry::loadOne(const QString& filePath)
{
    auto spec = std::make_shared<PluginSpec>();
    spec->filePath = filePath;
    m_plugins.append(spec);

    auto* loader = new QPluginLoader(filePath);
    // Every refusal before the library is kept loaded: the loader goes with it.
    auto reject = [&](PluginSpec::State state, const QString& why) {
        spec->state = state;
        spec->error = why;
        delete loader;
    };
    const QJsonObject meta = loader->metaData();
    if (meta.isEmpty())
        return reject(PluginSpec::State::Invalid,
                      QStringLiteral("not a Qt plugin (%1)").arg(loader->errorString()));
    const QString iid = meta.value("IID").toString();
    const QJsonObject data = meta.value("MetaData").toObject();
    readDescription(*spec, data);
    if (const QString why = interfaceProblem(*spec, iid, data); !why.isEmpty())
        return reject(PluginSpec::State::Invalid, why);
    for (const auto& other : std::as_const(m_plugins))
        if (other != spec && other->isLoaded() && other->id == spec->id)
            return reject(
                PluginSpec::State::Shadowed,
                QStringLiteral("plugin \"%1\" already loaded from %2").arg(spec->id, other->filePath));

    QObject* root = loader->instance();
    if (!root)
        return reject(PluginSpec::State::Failed,
                      QStringLiteral("could not be loaded: %1").arg(loader->errorString()));
    if (PluginInterface::of(iid).dataSource) {
        loadDataSources(*spec, root, loader);
        return;
    }
    auto* factory = qobject_cast<TrainerFactory*>(root);
    if (!factory) {
        loader->unload();
        return reject(
            PluginSpec::State::Failed,
            QStringLiteral("root object does not implement %1").arg(QLatin1String(TrainerFactory_iid)));
    }
    // From here the library stays loaded, whatever its algorithms say.
    m_loaders.append(loader);
    QList<AlgorithmInfo> algos;
    QStringList sparse;
    if (const QString why = trainerProblem(*spec, *factory, root, data, algos, sparse); !why.isEmpty()) {
        spec->state = PluginSpec::State::Failed;
        spec->error = why;
        return;
    }
    spec->factory = factory;
    spec->algorithms = algos;
    spec->state = PluginSpec::State::Loaded;
    for (const auto& a : algos)
        m_algorithms.append(AlgorithmEntry{a, spec.get(), sparse.contains(a.id)});
    for (auto it = spec->renamedAlgorithms.begin(); it != spec->renamedAlgorithms.end(); ++it)
        m_renamed.insert(it.key(), it.value());
    if (const auto* host = qobject_cast<ScriptHost*>(root))
        loadScripts(*spec, *host);
}

ScriptTrust PluginRegistry::scriptTrust()
{
    // The rule of distrust() for shared libraries, without its notes on m_folders: a script folder
    // is not a folder of the registry's search path (folders() lists those alone), so a refused
    // script is named by notices() file by file ("plugin file … refused"), and a folder trusted
    // through TRAINBENCH_TRUST_PLUGIN_DIRS is read without a notice.
    return [](const QString& path) -> QString {
        const QFileInfo info(path);
        if (info.isDir()) {
            const QString problem = PluginTrust::folderProblem(path);
            if (problem.isEmpty() || PluginTrust::isTrusted(path))
                return {};
            return QStringLiteral("not read, its folder is refused: %1; %2").arg(problem, PluginTrust::remedy(path));
        }
        const QString folder = info.absolutePath();
        const QString unsafe = PluginTrust::fileProblem(path);
        if (unsafe.isEmpty() || PluginTrust::isTrusted(folder))
            return {};
        return QStringLiteral("not read: %1; %2").arg(unsafe, PluginTrust::remedy(folder));
    };
}

void PluginRegistry::loadScripts(const PluginSpec& hostSpec, const ScriptHost& host)
{
    QList<ScriptFile> files;
    try {
        files = host.scripts(scriptTrust());
    } catch (const std::exception& e) {
        // The host's own algorithms (if any) stay usable; its scripts are named as unreadable.
        auto spec = std::make_shared<PluginSpec>();
        spec->filePath = hostSpec.filePath;
        spec->id = hostSpec.id + QStringLiteral(":scripts");
        spec->family = hostSpec.family;
        spec->state = PluginSpec::State::Failed;
        spec->error = QStringLiteral("scripts() threw: %1").arg(QString::fromUtf8(e.what()));
        m_plugins.append(spec);
        return;
    }
    for (const ScriptFile& file : std::as_const(files)) {
        auto spec = std::make_shared<PluginSpec>();
        spec->filePath = file.filePath;
        spec->id = file.id;
        spec->name = file.name.isEmpty() ? file.id : file.name;
        spec->version = file.version;
        spec->family = hostSpec.family;
        spec->citation = file.citation;
        spec->description = file.description;
        spec->apiVersion = hostSpec.apiVersion;
        spec->error = file.error;
        m_plugins.append(spec);
        switch (file.state) {
        case ScriptFile::State::Refused: spec->state = PluginSpec::State::Refused; continue;
        case ScriptFile::State::Shadowed: spec->state = PluginSpec::State::Shadowed; continue;
        case ScriptFile::State::Invalid: spec->state = PluginSpec::State::Invalid; continue;
        case ScriptFile::State::Usable: break;
        }
        // The checks of a shared library: a plugin id loaded before wins, an algorithm id offered
        // twice is refused, and a script offers at least one algorithm with a factory.
        spec->state = PluginSpec::State::Failed;
        const auto earlier = std::find_if(m_plugins.cbegin(), m_plugins.cend(), [&](const auto& other) {
            return other != spec && other->isLoaded() && other->id == spec->id;
        });
        if (earlier != m_plugins.cend()) {
            spec->state = PluginSpec::State::Shadowed;
            spec->error = QStringLiteral("plugin \"%1\" already loaded from %2").arg(spec->id, (*earlier)->filePath);
            continue;
        }
        if (!file.factory || file.algorithms.isEmpty()) {
            spec->error = QStringLiteral("the script host %1 gave it %2").arg(hostSpec.id,
                file.factory ? QStringLiteral("no algorithms") : QStringLiteral("no factory"));
            continue;
        }
        for (const AlgorithmInfo& a : file.algorithms)
            if (const AlgorithmEntry* dup = algorithm(a.id)) {
                spec->error = QStringLiteral("algorithm id \"%1\" is already offered by plugin \"%2\"")
                                  .arg(a.id, dup->plugin->id);
                break;
            }
        if (!spec->error.isEmpty())
            continue;
        spec->factory = file.factory;
        spec->algorithms = file.algorithms;
        spec->state = PluginSpec::State::Loaded;
        for (const AlgorithmInfo& a : file.algorithms)
            m_algorithms.append(AlgorithmEntry{a, spec.get(), false});
    }
}

QString PluginRegistry::trainerProblem(PluginSpec& spec, TrainerFactory& factory, QObject* root,
                                       const QJsonObject& data, QList<AlgorithmInfo>& algos,
                                       QStringList& sparse) const
{
    try {
        algos = factory.algorithms();
    } catch (const std::exception& e) {
        return QStringLiteral("algorithms() threw: %1").arg(QString::fromUtf8(e.what()));
    }
    // A script host's algorithms are its scripts' (loadScripts()): it may offer none of its own.
    if (algos.isEmpty() && !qobject_cast<ScriptHost*>(root))
        return QStringLiteral("offers no algorithms");
    for (const auto& a : algos)
        if (const AlgorithmEntry* dup = algorithm(a.id))
            return QStringLiteral("algorithm id \"%1\" is already offered by plugin \"%2\"")
                .arg(a.id, dup->plugin->id);
    if (const QString why = renamesProblem(spec, algos, data); !why.isEmpty())
        return why;
    // Algorithms that take sparse inputs as they are (SparseTrainer.h); a plugin built before
    // the interface existed does not implement it, and all its algorithms see dense inputs.
    auto* sparseFactory = qobject_cast<SparseInputFactory*>(root);
    if (!sparseFactory)
        return {};
    try {
        sparse = sparseFactory->sparseInputAlgorithms();
    } catch (const std::exception& e) {
        return QStringLiteral("sparseInputAlgorithms() threw: %1").arg(QString::fromUtf8(e.what()));
    }
    for (const QString& id : std::as_const(sparse))
        if (std::none_of(algos.begin(), algos.end(), [&](const AlgorithmInfo& a) { return a.id == id; }))
            return QStringLiteral("sparseInputAlgorithms() names \"%1\", which is not one of its algorithms")
                .arg(id);
    return {};
}

QString PluginRegistry::renamesProblem(PluginSpec& spec, const QList<AlgorithmInfo>& algos,
                                       const QJsonObject& data) const
{
    // Former ids: each must name one of this plugin's algorithms and no current id anywhere.
    const QJsonValue renamed = data.value(QStringLiteral("renamed_algorithms"));
    if (!renamed.isUndefined() && !renamed.isObject())
        return QStringLiteral("metadata \"renamed_algorithms\" must be an object of former id: current id");
    const QJsonObject renames = renamed.toObject();
    for (auto it = renames.begin(); it != renames.end(); ++it) {
        const QString now = it.value().toString();
        const bool ours = std::any_of(algos.begin(), algos.end(), [&](const AlgorithmInfo& a) { return a.id == now; });
        QString problem;
        if (!ours)
            problem = QStringLiteral("\"%1\" is not an algorithm of this plugin").arg(it.value().toVariant().toString());
        else if (std::any_of(algos.begin(), algos.end(), [&](const AlgorithmInfo& a) { return a.id == it.key(); }) ||
                 algorithm(it.key()))
            problem = QStringLiteral("the former id is a current one");
        if (!problem.isEmpty())
            return QStringLiteral("metadata \"renamed_algorithms\": \"%1\" → %2: %3")
                .arg(it.key(), ParamSchema::describe(it.value().toVariant()), problem);
        spec.renamedAlgorithms.insert(it.key(), now);
    }
    return {};
}

void PluginRegistry::loadDataSources(PluginSpec& spec, QObject* root, QPluginLoader* loader)
{
    // The providers hold code from this library: it stays loaded for the process's lifetime
    // (the data-source registry is process-wide), like every other plugin the registry loaded.
    m_loaders.append(loader);
    auto* plugin = qobject_cast<DataSourcePlugin*>(root);
    if (!plugin) {
        spec.state = PluginSpec::State::Failed;
        spec.error = QStringLiteral("root object does not implement %1").arg(QLatin1String(DataSourcePlugin_iid));
        return;
    }
    QList<std::shared_ptr<const DataSourceProvider>> sources;
    try {
        sources = plugin->dataSources();
    } catch (const std::exception& e) {
        spec.state = PluginSpec::State::Failed;
        spec.error = QStringLiteral("dataSources() threw: %1").arg(QString::fromUtf8(e.what()));
        return;
    }
    if (sources.isEmpty()) {
        spec.state = PluginSpec::State::Failed;
        spec.error = QStringLiteral("offers no data sources");
        return;
    }
    const QString origin = QStringLiteral("plugin \"%1\" (%2)").arg(spec.id, spec.filePath);
    QStringList problems;
    for (const auto& source : sources) {
        const QString id = source ? source->info().id : QString();
        if (const QString problem = data::DataSourceRegistry::addFromPlugin(source, origin); !problem.isEmpty())
            problems << problem;
        else
            spec.dataSources << id;
    }
    // Sources that registered stay usable; the ones that did not are named in the error.
    spec.error = problems.join(QStringLiteral("; "));
    spec.state = spec.dataSources.isEmpty() ? PluginSpec::State::Failed : PluginSpec::State::Loaded;
}

QList<AlgorithmEntry> PluginRegistry::algorithms() const
{
    return m_algorithms;
}

const AlgorithmEntry* PluginRegistry::algorithm(const QString& id) const
{
    for (const auto& a : m_algorithms)
        if (a.info.id == id)
            return &a;
    const auto renamed = m_renamed.constFind(id);
    if (renamed != m_renamed.constEnd())
        for (const auto& a : m_algorithms)
            if (a.info.id == *renamed)
                return &a;
    return nullptr;
}

QString PluginRegistry::currentId(const QString& id) const
{
    const AlgorithmEntry* e = algorithm(id);
    return e ? e->info.id : id;
}

QString PluginRegistry::renamedNote(const QString& id) const
{
    const AlgorithmEntry* e = algorithm(id);
    if (!e || e->info.id == id)
        return {};
    return QStringLiteral("algorithm \"%1\" is now \"%2\" (%3 %4)").arg(id, e->info.id, e->plugin->id, e->plugin->version);
}

std::unique_ptr<Trainer> PluginRegistry::create(const QString& algorithmId, const QVariantMap& params,
                                                QVariantMap* normalised) const
{
    const AlgorithmEntry* entry = algorithm(algorithmId);
    if (!entry) {
        QStringList ids;
        for (const auto& a : m_algorithms)
            ids << a.info.id;
        throw std::invalid_argument(QStringLiteral("unknown algorithm \"%1\" (available: %2)")
                                        .arg(algorithmId, ids.isEmpty() ? QStringLiteral("none") : ids.join(", "))
                                        .toStdString());
    }
    QString error;
    const auto norm = entry->info.schema.normalise(params, &error);
    if (!norm)
        throw std::invalid_argument(QStringLiteral("%1: %2").arg(algorithmId, error).toStdString());
    if (normalised)
        *normalised = *norm;
    auto trainer = entry->plugin->factory->create(entry->info.id, *norm);
    if (!trainer)
        throw std::runtime_error(QStringLiteral("plugin \"%1\" returned no trainer for \"%2\"")
                                     .arg(entry->plugin->id, algorithmId)
                                     .toStdString());
    return trainer;
}

namespace {

/// A value written so that two values give the same text only when they are the same value of
/// the same type: maps in key order, doubles to 17 digits, NaN apart from null.
void appendKey(QString& out, const QVariant& v)
{
    switch (v.typeId()) {
    case QMetaType::QVariantMap: {
        const QVariantMap m = v.toMap();
        out += '{';
        for (auto it = m.begin(); it != m.end(); ++it) {
            out += QString::number(it.key().size()) + ':' + it.key() + '=';
            appendKey(out, it.value());
            out += ',';
        }
        out += '}';
        return;
    }
    case QMetaType::QVariantList:
    case QMetaType::QStringList: {
        out += '[';
        for (const QVariant& x : v.toList()) {
            appendKey(out, x);
            out += ',';
        }
        out += ']';
        return;
    }
    case QMetaType::Double:
    case QMetaType::Float:
        out += QStringLiteral("d") + QString::number(v.toDouble(), 'g', 17);
        return;
    case QMetaType::QString: {
        const QString t = v.toString();
        out += QStringLiteral("s%1:").arg(t.size()) + t;
        return;
    }
    default:
        out += QString::number(v.typeId()) + ':' + v.toString();
    }
}

QString preparedKey(const QString& algorithmId, const QVariantMap& params)
{
    QString key = algorithmId + '|';
    appendKey(key, params);
    return key;
}

} // namespace

std::shared_ptr<const PreparedConfiguration> PluginRegistry::prepared(const QString& algorithmId,
                                                                      const QVariantMap& params) const
{
    const QString key = preparedKey(algorithmId, params);
    {
        const std::lock_guard lock(m_preparedMutex);
        if (const auto it = m_prepared.constFind(key); it != m_prepared.cend())
            return it.value();
    }
    // Made outside the lock: a plugin's create() may take its time, and two threads preparing the
    // same configuration at once each get a correct one (the first kept).
    auto made = PreparedConfiguration::make(*this, algorithmId, params);
    const std::lock_guard lock(m_preparedMutex);
    if (const auto it = m_prepared.constFind(key); it != m_prepared.cend())
        return it.value();
    if (m_prepared.size() >= kMaxPrepared)
        m_prepared.clear();
    m_prepared.insert(key, made);
    return made;
}

double PluginRegistry::plannedEpochs(const QString& algorithmId, const QVariantMap& params) const
{
    const AlgorithmEntry* entry = algorithm(algorithmId);
    if (!entry)
        return 0;
    const auto p = entry->info.schema.normalise(params, nullptr);
    return p ? entry->info.progress.plannedEpochs(*p) : 0.0;
}

} // namespace tb
