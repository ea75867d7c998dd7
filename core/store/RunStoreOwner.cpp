#include "RunStoreOwner.h"

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QSysInfo>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <csignal>
#include <sys/types.h>
#include <unistd.h>
#endif

namespace tb {

namespace {

QByteArray readSmallFile(const QString& path)
{
    QFile f(path);
    // /proc files report size 0: read until EOF rather than size().
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

qint64 currentPid()
{
#ifdef Q_OS_UNIX
    return static_cast<qint64>(::getpid());
#else
    return 0;
#endif
}

} // namespace

bool RunStoreOwner::readProcStat(qint64 pid, qint64* startTicks, bool* zombie)
{
    *startTicks = 0;
    *zombie = false;
    const QByteArray stat = readSmallFile(QStringLiteral("/proc/%1/stat").arg(pid));
    if (stat.isEmpty())
        return false;
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0)
        return true; // exists, format unknown
    const QList<QByteArray> fields = stat.mid(close + 1).simplified().split(' ');
    // fields[0] is field 3 (state); starttime is field 22 → fields[19].
    if (!fields.isEmpty())
        *zombie = fields[0] == "Z" || fields[0] == "X";
    if (fields.size() > 19) {
        bool ok = false;
        const qint64 t = fields[19].toLongLong(&ok);
        if (ok)
            *startTicks = t;
    }
    return true;
}

const RunStoreOwner& RunStoreOwner::current()
{
    static const RunStoreOwner self = [] {
        RunStoreOwner o;
        o.host = QSysInfo::machineHostName();
        o.bootId =
            QString::fromLatin1(readSmallFile(QStringLiteral("/proc/sys/kernel/random/boot_id")).trimmed());
        o.pid = currentPid();
        bool zombie = false;
        readProcStat(o.pid, &o.startTicks, &zombie);
        return o;
    }();
    return self;
}

QString RunStoreOwner::describe() const
{
    if (pid <= 0)
        return QStringLiteral("an unknown process");
    return host.isEmpty() ? QStringLiteral("pid %1").arg(pid) : QStringLiteral("pid %1 on %2").arg(pid).arg(host);
}

QString RunStoreOwner::deathMessage() const
{
    return QStringLiteral("the process that trained it (%1) ended before the run finished").arg(describe());
}

bool RunStoreOwner::isAlive() const
{
    const RunStoreOwner& me = current();
    if (pid <= 0 || host != me.host)
        return false;
    if (!bootId.isEmpty() && !me.bootId.isEmpty() && bootId != me.bootId)
        return false;
    if (pid == me.pid)
        return startTicks == 0 || me.startTicks == 0 || startTicks == me.startTicks;
#ifdef Q_OS_UNIX
    // kill(pid, 0) probes without signalling; EPERM means it exists but belongs to someone else.
    const int killErr = ::kill(static_cast<pid_t>(pid), 0) == 0 ? 0 : errno;
    if (killErr == ESRCH)
        return false;
    qint64 ticks = 0;
    bool zombie = false;
    if (!readProcStat(pid, &ticks, &zombie)) {
        // No /proc entry: either no /proc here, /proc hides other users' processes (hidepid),
        // or the process exited since kill(). Only the last case is dead.
        return me.bootId.isEmpty() || killErr == EPERM;
    }
    if (zombie)
        return false;
    if (startTicks != 0 && ticks != 0 && ticks != startTicks)
        return false; // the pid was reused by a younger process
    return true;
#else
    return false;
#endif
}

} // namespace tb
