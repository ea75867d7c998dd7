#pragma once
/// @file ScriptHost.h
/// A plugin that hosts trainers written in another language (plugins/python: one algorithm per
/// `.py` file): each script is listed as a plugin of its own, loaded or broken with its reason,
/// as a shared-library plugin is.
///
/// The plugin's root object implements ScriptHost besides TrainerFactory
/// (Q_INTERFACES(tb::TrainerFactory tb::ScriptHost)). Its own algorithms() may then be empty:
/// the registry (core/engine/PluginRegistry) lists the host as loaded, asks scripts() for the
/// files on the host's search path, and makes each file a PluginSpec of its own — its file, id,
/// name, version (a hash of its content: what runs store as plugin_version), state and reason
/// — whose algorithms join the registry's beside those of the shared-library plugins, under the
/// same checks (an algorithm id offered twice is refused).
///
/// Scripts are code: the host reads no folder and no file before the registry's rule
/// (ScriptTrust, the rule of shared-library plugins, core/engine/PluginTrust) allowed it.
///
/// This interface changes no layout of TrainerFactory, Trainer or AlgorithmInfo: the plugin API
/// version is unchanged; the number in ScriptHost_iid is this interface's own version.

#include "TrainerFactory.h"

#include <QList>
#include <QString>
#include <QtPlugin>
#include <functional>

namespace tb {

/// Why the host must not read @p path — a folder of its search path, or a script file in one —
/// e.g. "not read: /tmp/x is writable by every user (mode 0777); …"; empty when it may. Given by
/// the registry; reentrant.
using ScriptTrust = std::function<QString(const QString& path)>;

/// One script file a ScriptHost found.
struct ScriptFile {
    enum class State {
        Usable,   ///< read and checked: its algorithms are offered
        Invalid,  ///< broken (a syntax error, an import error, an invalid schema …): error says why
        Shadowed, ///< a file of the same id was found earlier on the host's search path
        Refused   ///< never read: ScriptTrust refused it or its folder
    };
    QString filePath;    ///< absolute
    QString id;          ///< the plugin id it is listed under, e.g. "python:ridge"
    QString name;        ///< shown in listings (the script's own name, else its file's stem)
    QString version;     ///< a hash of the file's content, e.g. "sha256:0123456789abcdef"; empty unless read
    QString description; ///< one line, may be empty
    QString citation;    ///< may be empty
    State state = State::Invalid;
    QString error; ///< empty when Usable; else why not (naming the file's line or the value at fault)
    QList<AlgorithmInfo> algorithms; ///< Usable only: what it offers
    /// Usable only: creates the trainers of this file's algorithms. Owned by the host and valid for
    /// the process's life (hosts are never unloaded); thread-safety as TrainerFactory's.
    TrainerFactory* factory = nullptr;

    bool isUsable() const { return state == State::Usable; }
};

/// Implemented, besides TrainerFactory, by the root object of a plugin that hosts scripts.
class ScriptHost {
public:
    virtual ~ScriptHost() = default;

    /// The script files of the host's search path, in its order (each folder's files by name),
    /// each usable or with the reason it is not. Before the host reads a folder or a file it asks
    /// @p trust; what trust refuses is listed as Refused with trust's reason and never read.
    /// Called by the registry while it scans, from one thread at a time; a file that did not
    /// change since an earlier call (the same path and content) is not executed again.
    virtual QList<ScriptFile> scripts(const ScriptTrust& trust) const = 0;
};

} // namespace tb

/// The interface id of ScriptHost; the number is this interface's own version.
#define ScriptHost_iid "org.trainbench.ScriptHost/1"

Q_DECLARE_INTERFACE(tb::ScriptHost, ScriptHost_iid)
