#pragma once
/// @file LibraryClock.h
/// The clocks and the progress-line filter the library wrappers share: wall time since a point,
/// the calling thread's CPU time (the library's own work, whatever else shares the machine), and
/// whether a line the library printed is only its iteration marks.

#include <QString>
#include <QStringView>

#include <chrono>
#include <ctime>

namespace tb::wrap {

using Clock = std::chrono::steady_clock;

/// Wall seconds since @p since.
inline double secondsSince(Clock::time_point since)
{
    return std::chrono::duration<double>(Clock::now() - since).count();
}

/// CPU seconds of the calling thread (CLOCK_THREAD_CPUTIME_ID).
inline double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// True when @p line holds only white space and characters of @p marks (the dots and stars a
/// solver prints while it iterates), i.e. progress rather than a message worth logging.
inline bool isProgressLine(const QString& line, QStringView marks)
{
    for (QChar ch : line)
        if (!ch.isSpace() && !marks.contains(ch))
            return false;
    return true;
}

} // namespace tb::wrap
