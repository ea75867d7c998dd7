#pragma once
/// @file RunStoreOwner.h
/// Which process owns a "running" run, and whether that process still lives.

#include <QString>
#include <QtGlobal>

namespace tb {

/// Identity of the process that created a run, stored with every run so that a store opened
/// later can tell a run whose process died (→ "interrupted") from one that another live process
/// is still training (→ left alone).
///
/// Choice: pid + process start time + boot id + host name, all read from /proc on Linux.
/// - pid alone is not enough: pids are reused, so the start time (field 22 of /proc/<pid>/stat,
///   clock ticks since boot) must match too;
/// - start times restart at every boot, so the boot id (/proc/sys/kernel/random/boot_id) must match;
/// - a different host name means the file was copied or shared over a network; SQLite's WAL mode
///   needs shared memory, so two hosts cannot be writing the same file: such runs are dead.
/// A zombie (killed but not yet reaped) counts as dead. Where /proc is not readable, start time
/// and boot id are empty and only `kill(pid, 0)` decides. Known limit: processes in different pid
/// namespaces (containers) sharing one file see each other as dead or as someone else.
/// No heartbeat or lock file is needed: the kernel is the source of truth about liveness.
struct RunStoreOwner {
    QString host;   ///< QSysInfo::machineHostName()
    QString bootId; ///< empty when unknown
    qint64 pid = 0;
    qint64 startTicks = 0; ///< 0 when unknown

    /// The calling process. Computed once, then cached; thread-safe.
    static const RunStoreOwner& current();

    /// True if this owner is the calling process or another process that still runs on this
    /// host since this boot. Thread-safe; reads /proc.
    bool isAlive() const;

    /// Start time of @p pid in clock ticks since boot, 0 if unknown; @p zombie set when the
    /// process has exited but has not been reaped. Returns false if the process does not exist.
    static bool readProcStat(qint64 pid, qint64* startTicks, bool* zombie);

    /// "pid 1234 on host-a" ("an unknown process" when no pid was recorded).
    QString describe() const;
    /// What a reader says of a run left "running" by this owner once it is dead: "the process
    /// that trained it (pid 1234 on host-a) ended before the run finished".
    QString deathMessage() const;
};

} // namespace tb
