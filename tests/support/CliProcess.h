#pragma once
/// @file CliProcess.h
/// For the tests that drive trainbench-cli as a user does, alone or under `mpirun`: the
/// environment it runs in, mpirun's arguments, and waiting for it with a deadline (a test of a
/// failure path must fail, never hang). Header-only.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace tb::testsupport {

/// How a trainbench-cli (or mpirun) process ended.
struct CliOutput {
    int code = -1;         ///< its exit code; −1 when it crashed or timed out
    bool timedOut = false; ///< killed after the deadline
    QString out, err;
};

/// The environment of a trainbench-cli under test: plugins from @p pluginPath (':'-separated),
/// no display, a HOME and XDG folders of its own under @p home (so no user's database, cache or
/// plugins are touched), and Open MPI allowed to start as root (CI containers; here only).
inline QProcessEnvironment cliEnvironment(const QString& home, const QString& pluginPath)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("TRAINBENCH_PLUGIN_PATH", pluginPath);
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("HOME", home);
    env.insert("XDG_DATA_HOME", home + "/data");
    env.insert("XDG_CONFIG_HOME", home + "/config");
    env.insert("XDG_CACHE_HOME", home + "/cache");
    env.insert("XDG_RUNTIME_DIR", home + "/run");
    QDir().mkpath(home + "/run");
    QFile::setPermissions(home + "/run", QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    env.insert("OMPI_ALLOW_RUN_AS_ROOT", "1");
    env.insert("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    return env;
}

/// mpirun, by name from PATH: Open MPI derives its installation prefix from an absolute path, and
/// Debian's /bin/mpirun (usrmerge) would give it "/".
inline QString mpirunProgram()
{
    return QStringLiteral("mpirun");
}

/// mpirun's arguments before the program: @p ranks ranks on this machine (--oversubscribe). With
/// @p recovery the job outlives a worker and talks over TCP, as between the nodes of a cluster: a
/// process killed in the middle of writing to a shared-memory queue can leave it broken for its
/// readers (docs/cluster.md, "When something goes wrong").
inline QStringList mpirunArguments(int ranks, bool recovery = false)
{
    QStringList a{"--oversubscribe", "-np", QString::number(ranks)};
    if (recovery)
        a << "--enable-recovery" << "--mca" << "btl" << "tcp,self" << "--mca" << "btl_tcp_if_include" << "lo";
    return a;
}

/// The pid of MPI rank @p rank among this machine's trainbench-cli processes whose command line
/// contains @p marker (e.g. the experiment file), read from their environment (Open MPI sets
/// OMPI_COMM_WORLD_RANK), or 0 when there is none.
inline qint64 mpiRankPid(const QString& marker, int rank)
{
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool ok = false;
        const qint64 pid = entry.toLongLong(&ok);
        if (!ok)
            continue;
        QFile cmd(QStringLiteral("/proc/%1/cmdline").arg(pid)), env(QStringLiteral("/proc/%1/environ").arg(pid));
        if (!cmd.open(QIODevice::ReadOnly) || !env.open(QIODevice::ReadOnly))
            continue;
        const QByteArray c = cmd.readAll();
        if (!c.contains("trainbench-cli") || !c.contains(marker.toUtf8()) || c.contains("mpirun"))
            continue;
        if (env.readAll().split('\0').contains(QStringLiteral("OMPI_COMM_WORLD_RANK=%1").arg(rank).toUtf8()))
            return pid;
    }
    return 0;
}

/// Waits up to @p timeoutMs for @p p to end; kills it after that (CliOutput::timedOut).
inline CliOutput finishProcess(QProcess& p, int timeoutMs = 180000)
{
    CliOutput o;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        o.timedOut = true;
        o.err = QStringLiteral("timed out after %1 ms\n").arg(timeoutMs);
        o.err += QString::fromUtf8(p.readAllStandardError());
        return o;
    }
    o.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    o.out = QString::fromUtf8(p.readAllStandardOutput());
    o.err = QString::fromUtf8(p.readAllStandardError());
    return o;
}

} // namespace tb::testsupport
