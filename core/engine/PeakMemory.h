#pragma once
/// @file PeakMemory.h
/// Measures a run's peak working memory: how far the process's resident set grew during fit().

#include <QString>
#include <QtGlobal>
#include <atomic>

namespace tb {

/// One measurement, from construction to finish(). Linux: the kernel's resident high-water
/// mark (VmHWM in /proc/self/status), reset at the start through /proc/self/clear_refs, minus
/// the resident size then (after malloc_trim, so that memory freed by earlier runs and still
/// held by malloc does not hide this run's growth). What it counts: every page the process
/// touched for the first time during the measurement — the trainer's buffers, TBB's, and the
/// host's checkpoint evaluation (predictions on train and test). The data set, loaded before,
/// is not counted. Resolution: a page (4 KiB; 2 MiB where malloc uses huge pages).
///
/// The mark is the process's, so a run can only be measured alone: when two measured or
/// unmeasured runs (see Guard) overlap in one process, every overlapping measurement reports
/// "not measured" with the reason, never a number that includes the other run.
/// Thread-safe: measurements may start and finish on any threads.
class PeakMemory {
public:
    /// Marks the calling run as training, for the overlap check, without measuring it (noise-
    /// sweep cells, parallel sweep cells). RAII.
    class Guard {
    public:
        Guard();
        ~Guard();
        Guard(const Guard&) = delete;
        Guard& operator=(const Guard&) = delete;
    };

    /// Starts measuring: trims malloc, resets the high-water mark, reads the baseline. Call it
    /// outside the training clock (it takes a few milliseconds).
    PeakMemory();
    ~PeakMemory();
    PeakMemory(const PeakMemory&) = delete;
    PeakMemory& operator=(const PeakMemory&) = delete;

    /// Ends the measurement: peak growth in bytes (≥ 0), or −1 with @p why set when it could
    /// not be measured (another run overlapped, /proc unreadable, not Linux). Call once.
    qint64 finish(QString* why);

    /// The current resident set size in bytes (VmRSS), −1 if unknown.
    static qint64 residentBytes();

private:
    bool m_started = false;
    bool m_finished = false;
    qint64 m_baseline = -1;
    quint64 m_overlapsAtStart = 0;
    QString m_startProblem;
};

} // namespace tb
