#pragma once
/// @file MemoryBudget.h
/// How much memory this process may still take, checked before an input-sized allocation.

#include <QString>
#include <cstdint>

namespace tb::data {

/// The memory available to this process now, and a check that every loader and generator
/// makes before it allocates (and touches) memory whose size an input decides: a 520-byte
/// LIBSVM file must not make the process ask for 22 GB and be killed by the kernel.
///
/// available() is the smallest of the limits that apply now:
///  - physical memory: `MemAvailable` of /proc/meminfo (what can be had without swapping);
///  - a cgroup memory limit (v2 `memory.max` − `memory.current`, v1 `memory.limit_in_bytes` −
///    `memory.usage_in_bytes`), of this process's cgroup and every parent;
///  - the address-space and data limits (RLIMIT_AS, RLIMIT_DATA) minus what the process maps;
///  - `TRAINBENCH_MEMORY_LIMIT` (bytes, or with a K/M/G/T suffix, powers of 1024), a cap a user or
///    a test may set; an unparsable value is ignored.
/// Where none can be read (not Linux), available() reports no limit. All functions are
/// thread-safe; available() reads small /proc and /sys files (tens of microseconds).
class MemoryBudget {
public:
    struct Limit {
        std::uint64_t bytes = UINT64_MAX; ///< what may still be allocated; UINT64_MAX: no known limit
        QString source;                   ///< which limit, e.g. "physical memory (MemAvailable)"
    };

    /// The tightest limit that applies now.
    static Limit available();
    /// available() for a check of @p bytes: a reading of the system's limits up to a second old
    /// when @p bytes is at most 1/16 of it (no limit can shrink that far in a second without
    /// the process itself allocating), else a new one; TRAINBENCH_MEMORY_LIMIT is read each
    /// time. For checks made before every run, where the runs are small and many (a tuning's
    /// trials): reading /proc and /sys costs more than a small run's training.
    static Limit availableFor(std::uint64_t bytes);

    /// Throws DataError when @p bytes exceed available(): the message names @p file (or, for a
    /// spec value, @p key), @p what was to be built and the size it needs against what is free,
    /// e.g. `x.libsvm: a dense 40×67108864 matrix of doubles needs 20 GiB, but only 3.1 GiB is
    /// available (physical memory (MemAvailable))`.
    static void require(std::uint64_t bytes, const QString& what, const QString& file,
                        const QString& key = {});

    /// @p rows × @p cols × @p elementBytes, saturating at UINT64_MAX instead of overflowing.
    static std::uint64_t bytesOf(std::uint64_t rows, std::uint64_t cols,
                                 std::uint64_t elementBytes = sizeof(double));

    /// "20 GiB", "512 KiB", "17 B": binary units, three significant digits.
    static QString formatBytes(std::uint64_t bytes);
};

} // namespace tb::data
