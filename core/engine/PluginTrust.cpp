#include "PluginTrust.h"

#include <QDir>
#include <QFileInfo>

#ifdef Q_OS_UNIX
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>
#endif

namespace tb {
namespace {

#ifdef Q_OS_UNIX
/// The account of @p uid into @p pw (its strings in @p buffer); false when there is none.
bool account(uid_t uid, passwd& pw, std::vector<char>& buffer)
{
    buffer.resize(16384);
    passwd* found = nullptr;
    return getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &found) == 0 && found;
}

QString userName(uid_t uid)
{
    passwd pw{};
    std::vector<char> buffer;
    if (account(uid, pw, buffer))
        return QString::fromLocal8Bit(pw.pw_name);
    return QStringLiteral("uid %1").arg(uid);
}

QString groupName(gid_t gid)
{
    group gr{};
    group* found = nullptr;
    std::vector<char> buffer(16384);
    if (getgrgid_r(gid, &gr, buffer.data(), buffer.size(), &found) == 0 && found)
        return QString::fromLocal8Bit(gr.gr_name);
    return QStringLiteral("gid %1").arg(gid);
}

/// Whether @p gid is the private group of user @p owner (Debian's user private groups, where
/// umask 002 makes every file group-writable): the owner's primary group, named after the owner,
/// with no other member. Then its group's write bit lets no one else in, and it is not refused
/// (as Debian's ssh accepts such a key).
bool privateGroupOf(uid_t owner, gid_t gid)
{
    passwd pw{};
    std::vector<char> pwBuffer;
    if (!account(owner, pw, pwBuffer) || pw.pw_gid != gid)
        return false;
    group gr{};
    group* found = nullptr;
    std::vector<char> buffer(16384);
    if (getgrgid_r(gid, &gr, buffer.data(), buffer.size(), &found) != 0 || !found)
        return false;
    if (qstrcmp(gr.gr_name, pw.pw_name) != 0)
        return false;
    for (char** member = gr.gr_mem; member && *member; ++member)
        if (qstrcmp(*member, pw.pw_name) != 0)
            return false;
    return true;
}

bool trustedOwner(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

QString modeText(mode_t mode)
{
    return QStringLiteral("mode %1").arg(uint(mode & 07777), 4, 8, QLatin1Char('0'));
}

/// Who besides the owner may write to an entry of @p st: "every user", "its group (NAME)", or
/// empty.
QString writers(const struct stat& st)
{
    if (st.st_mode & S_IWOTH)
        return QStringLiteral("every user");
    if ((st.st_mode & S_IWGRP) && !privateGroupOf(st.st_uid, st.st_gid))
        return QStringLiteral("its group (%1)").arg(groupName(st.st_gid));
    return {};
}

/// Checks canonical path @p path (a folder when @p isFolder) and the folders above it.
QString problemOf(const QString& path, bool isFolder)
{
    struct stat st{};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return {}; // gone: nothing to load
    const QString what = isFolder ? QStringLiteral("plugin folder") : QStringLiteral("plugin file");
    if (!trustedOwner(st.st_uid))
        return QStringLiteral("the %1 %2 belongs to %3, not to you or root").arg(what, path, userName(st.st_uid));
    if (const QString w = writers(st); !w.isEmpty())
        return QStringLiteral("the %1 %2 is writable by %3 (%4)").arg(what, path, w, modeText(st.st_mode));
    // The folders above: their owners could swap what they hold, and so could anyone who may
    // write to them, unless the sticky bit keeps others' hands off entries they do not own.
    QString child = path;
    uid_t childOwner = st.st_uid;
    QDir dir = QFileInfo(path).dir();
    for (;;) {
        const QString folder = dir.absolutePath();
        struct stat up{};
        if (::stat(QFile::encodeName(folder).constData(), &up) != 0)
            break;
        if (!trustedOwner(up.st_uid))
            return QStringLiteral("%1 above the %2 %3 belongs to %4, not to you or root")
                .arg(folder, what, path, userName(up.st_uid));
        const QString w = writers(up);
        if (!w.isEmpty() && !((up.st_mode & S_ISVTX) && trustedOwner(childOwner)))
            return QStringLiteral("%1 above the %2 %3 is writable by %4 (%5), who could replace %6")
                .arg(folder, what, path, w, modeText(up.st_mode), child);
        if (dir.isRoot())
            break;
        child = folder;
        childOwner = up.st_uid;
        if (!dir.cdUp())
            break;
    }
    return {};
}
#endif

QString canonical(const QString& path)
{
    const QString c = QFileInfo(path).canonicalFilePath();
    return c.isEmpty() ? QDir::cleanPath(QFileInfo(path).absoluteFilePath()) : c;
}

} // namespace

QString PluginTrust::folderProblem(const QString& folder)
{
#ifdef Q_OS_UNIX
    const QFileInfo fi(folder);
    if (!fi.exists())
        return {};
    return problemOf(canonical(folder), true);
#else
    Q_UNUSED(folder);
    return {};
#endif
}

QString PluginTrust::fileProblem(const QString& file)
{
#ifdef Q_OS_UNIX
    const QFileInfo fi(file);
    if (!fi.exists())
        return {};
    return problemOf(canonical(file), false);
#else
    Q_UNUSED(file);
    return {};
#endif
}

QStringList PluginTrust::trustedFolders()
{
    QStringList out;
    for (const QString& p : qEnvironmentVariable(trustVariable).split(QLatin1Char(':'), Qt::SkipEmptyParts))
        out << QDir::cleanPath(p);
    return out;
}

bool PluginTrust::isTrusted(const QString& folder)
{
    const QString wanted = canonical(folder);
    for (const QString& t : trustedFolders())
        if (canonical(t) == wanted)
            return true;
    return false;
}

QString PluginTrust::remedy(const QString& folder)
{
    return QStringLiteral("let only you (or root) own it and write to it (chmod go-w), or set %1=%2 to load it anyway")
        .arg(QLatin1String(trustVariable), folder);
}

} // namespace tb
