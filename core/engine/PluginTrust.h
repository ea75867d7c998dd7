#pragma once
/// @file PluginTrust.h
/// Whether a plugin folder or file may be loaded: a plugin is code that runs with the user's
/// rights, so nobody else may be able to put one where the registry looks.

#include <QString>
#include <QStringList>

namespace tb {

/// The rule the registry applies before it reads anything of a plugin folder or file, as ssh
/// refuses a key file that others can write to. A path is safe when it and every folder above it
/// (after resolving symbolic links):
///  - belong to the current user or to root, and
///  - are not writable by their group or by other users — except a folder above it that has the
///    sticky bit (such as /tmp), where others cannot rename or remove what is not theirs, and a
///    group that is the owner's private group (its primary group, named after it, no other
///    member: Debian's user private groups, whose umask 002 makes every file group-writable).
/// The plugin folder itself may not be writable by others even with the sticky bit: anyone could
/// add a library to it. A folder that fails is refused whole, with the reason; a plugin file that
/// fails in a safe folder is refused alone.
///
/// To load such a folder, or such files of a folder, anyway, the user names the folder in
/// TRAINBENCH_TRUST_PLUGIN_DIRS (folders separated by ':', like TRAINBENCH_PLUGIN_PATH); its files
/// are then trusted too, and the registry says that it trusted them. All functions are
/// reentrant; they read the file system and the user and group databases.
class PluginTrust {
public:
    /// The environment variable that names folders to trust anyway.
    static constexpr const char* trustVariable = "TRAINBENCH_TRUST_PLUGIN_DIRS";

    /// Why plugin folder @p folder is not safe, e.g. "/tmp/p is writable by every user (mode
    /// 0777)"; empty when it is safe or does not exist.
    static QString folderProblem(const QString& folder);
    /// Why plugin file @p file is not safe (its owner and mode, and the folders above it as for
    /// folderProblem()); empty when it is safe or does not exist.
    static QString fileProblem(const QString& file);

    /// The folders of TRAINBENCH_TRUST_PLUGIN_DIRS, cleaned; empty entries skipped.
    static QStringList trustedFolders();
    /// Whether @p folder is one of trustedFolders() (compared after resolving symbolic links).
    static bool isTrusted(const QString& folder);

    /// What to do about an unsafe @p folder: "let only you (or root) own it and write to it
    /// (chmod go-w), or set TRAINBENCH_TRUST_PLUGIN_DIRS=FOLDER to load it anyway".
    static QString remedy(const QString& folder);
};

} // namespace tb
