#include "PythonPlugin.h"

#include "PythonRuntime.h"
#include "PythonScript.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <stdexcept>

namespace py = pybind11;

namespace tb::python {

PythonPlugin::PythonPlugin() = default;

// The scripts are only destroyed at exit (QLibraryStore's cleanup deletes plugin instances);
// PythonScript's destructor leaves its Python objects to the interpreter.
PythonPlugin::~PythonPlugin() = default;

std::unique_ptr<Trainer> PythonPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    Q_UNUSED(params);
    throw std::invalid_argument(
        QStringLiteral("python: the plugin offers no algorithm of its own (asked for \"%1\"); "
                       "the trainers of its scripts come from their own factories")
            .arg(algorithmId)
            .toStdString());
}

QStringList PythonPlugin::searchPaths()
{
    QStringList paths;
    const QByteArray env = qgetenv("TRAINBENCH_PYTHON_PATH");
    for (const QString& p : QString::fromLocal8Bit(env).split(QLatin1Char(':'), Qt::SkipEmptyParts))
        paths << QDir::cleanPath(p);
    const QString user = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (!user.isEmpty())
        paths << QDir::cleanPath(user + "/trainbench/plugins");
    paths.removeDuplicates();
    return paths;
}

QList<ScriptFile> PythonPlugin::scripts(const ScriptTrust& trust) const
{
    const std::lock_guard lock(m_mutex);
    static const QRegularExpression stemPattern(QStringLiteral("^[a-z][a-z0-9_]*$"));
    QList<ScriptFile> out;
    QHash<QString, QString> usable; // id → the file that offers it
    for (const QString& folder : searchPaths()) {
        const QFileInfo folderInfo(folder);
        if (!folderInfo.isDir())
            continue;
        // Names are listed (as the registry lists a refused folder's libraries); nothing is read.
        const QString folderRefused = trust(folderInfo.absoluteFilePath());
        const auto entries = QDir(folder).entryInfoList(
            QDir::Files | QDir::Dirs | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
        for (const QFileInfo& fi : entries) {
            if (!fi.fileName().endsWith(QLatin1String(".py")))
                continue;
            ScriptFile file;
            file.filePath = fi.absoluteFilePath();
            const QString stem = fi.fileName().chopped(3);
            file.id = QStringLiteral("python:") + stem;
            file.name = stem;
            const auto listed = [&](ScriptFile::State state, const QString& why) {
                file.state = state;
                file.error = why;
                out << file;
            };
            if (!folderRefused.isEmpty()) {
                listed(ScriptFile::State::Refused, folderRefused);
                continue;
            }
            if (fi.isSymLink() && !fi.exists()) {
                listed(ScriptFile::State::Invalid,
                       QStringLiteral("a symbolic link to %1, which does not exist").arg(fi.symLinkTarget()));
                continue;
            }
            if (!fi.isFile()) {
                listed(ScriptFile::State::Invalid, fi.isDir() ? QStringLiteral("a folder, not a script")
                                                              : QStringLiteral("not a regular file"));
                continue;
            }
            if (const QString why = trust(file.filePath); !why.isEmpty()) {
                listed(ScriptFile::State::Refused, why);
                continue;
            }
            if (!stemPattern.match(stem).hasMatch()) {
                listed(
                    ScriptFile::State::Invalid,
                    QStringLiteral("the file name \"%1\" does not make an algorithm id: its stem must match "
                                   "[a-z][a-z0-9_]* (the algorithm is python.<stem>)")
                        .arg(ParamSchema::printable(fi.fileName())));
                continue;
            }
            const QString algorithmId = QStringLiteral("python.") + stem;
            if (usable.contains(algorithmId)) {
                listed(
                    ScriptFile::State::Shadowed,
                    QStringLiteral("%1 is already offered by %2 (the first folder of the search path wins)")
                        .arg(algorithmId, usable.value(algorithmId)));
                continue;
            }
            if (fi.size() > kMaxScriptBytes) {
                listed(ScriptFile::State::Invalid,
                       QStringLiteral("%1 bytes, more than a script may have (%2)")
                           .arg(fi.size())
                           .arg(kMaxScriptBytes));
                continue;
            }
            QFile f(file.filePath);
            if (!f.open(QIODevice::ReadOnly)) {
                listed(ScriptFile::State::Invalid, QStringLiteral("cannot be read: %1").arg(f.errorString()));
                continue;
            }
            const QByteArray source = f.read(kMaxScriptBytes + 1);
            const QString version =
                QStringLiteral("sha256:") +
                QString::fromLatin1(
                    QCryptographicHash::hash(source, QCryptographicHash::Sha256).toHex().left(16));
            const ScriptFile& loaded = load(file.filePath, stem, version, source);
            out << loaded;
            if (loaded.isUsable())
                usable.insert(algorithmId, file.filePath);
        }
    }
    return out;
}

const ScriptFile& PythonPlugin::load(const QString& path, const QString& stem, const QString& version,
                                     const QByteArray& source) const
{
    const QString key = path + QLatin1Char('\n') + version;
    if (const auto it = m_loaded.constFind(key); it != m_loaded.cend())
        return it.value()->file;
    auto entry = std::make_shared<Loaded>();
    entry->file.filePath = path;
    entry->file.id = QStringLiteral("python:") + stem;
    entry->file.name = stem;
    entry->file.version = version;
    try {
        PythonRuntime::instance(); // starts the interpreter before the GIL is asked for
        py::gil_scoped_acquire gil;
        entry->script = PythonScript::load(path, stem, version, source, entry->file);
    } catch (const std::exception& e) {
        entry->file.state = ScriptFile::State::Invalid;
        entry->file.error = QString::fromUtf8(e.what());
    }
    m_loaded.insert(key, entry);
    return entry->file;
}

} // namespace tb::python
