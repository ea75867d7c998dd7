#pragma once
/// @file SeededRand.h
/// glibc's rand() stream, taken by one seeded library call at a time in the whole process.

#include <mutex>

namespace tb::wrap {

/// Holds the process's one lock on glibc's rand() stream and seeds it with srand(): while a
/// SeededRand lives, no other one exists in the process, so @p seed alone decides every rand()
/// drawn on the holder's behalf, and a run repeats from its stored seed whatever else trains.
///
/// LIBLINEAR's randomised solvers (the dual and L1 ones) and LIBSVM's probability models both
/// draw from rand(), which glibc keeps as one stream per process. Each plugin is a library of its
/// own, loaded without sharing its symbols (RTLD_LOCAL), so a lock defined in a plugin, or in the
/// static helper library tb_wrapping that each plugin links, would be one lock per plugin: two
/// cells of a sweep could then interleave a LIBLINEAR solver's draws with a LIBSVM model's. This
/// class is the only code of libtrainbench-wrapping-rand, a shared library both plugins link, so
/// the lock exists once per process (tests/core/wrapping/tst_seededrand.cpp trains both side by
/// side and compares each with the same run alone).
///
/// Hold it for the whole library call, including while a DetachedCall is abandoned: the call
/// still draws until it unwinds or ends, and only then releases the stream. Library calls that
/// draw nothing must not take it (they would wait for no reason). Thread-safe.
class SeededRand {
public:
    /// Waits until no other SeededRand exists in the process, then calls srand(@p seed).
    explicit SeededRand(unsigned seed);
    /// Releases the stream.
    ~SeededRand();
    SeededRand(const SeededRand&) = delete;
    SeededRand& operator=(const SeededRand&) = delete;

    /// The lock itself (never destroyed: an abandoned library call may hold it while the process
    /// exits). For tests and for callers that must wait for the stream without seeding it.
    static std::mutex& mutex();

private:
    std::unique_lock<std::mutex> m_lock;
};

} // namespace tb::wrap
