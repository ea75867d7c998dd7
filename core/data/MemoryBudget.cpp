#include "MemoryBudget.h"

#include "DataError.h"

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>

#include <chrono>
#include <mutex>
#include <tuple>

#ifdef Q_OS_LINUX
#include <cerrno>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace tb::data {
namespace {

// A /proc or /sys file whole (they report size 0: read to the end), with plain POSIX calls:
// available() runs before every run, and QFile's open costs several system calls more.
QByteArray readSmall(const QString& path)
{
    QByteArray out;
#ifdef Q_OS_LINUX
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return out;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || out.size() > (1 << 20)) // a /proc file is small; never more than 1 MiB
            break;
        out.append(buffer, n);
    }
    ::close(fd);
#else
    QFile f(path);
    if (f.open(QIODevice::ReadOnly))
        out = f.read(1 << 20);
#endif
    return out;
}

/// The value of "Key:   1234 kB" in a /proc file, in bytes; 0 when absent.
std::uint64_t procField(const QByteArray& text, const QByteArray& key)
{
    for (const QByteArray& line : text.split('\n'))
        if (line.startsWith(key + ':')) {
            const QList<QByteArray> parts = line.mid(key.size() + 1).simplified().split(' ');
            bool ok = false;
            const std::uint64_t v = parts.value(0).toULongLong(&ok);
            if (!ok)
                return 0;
            return parts.value(1) == "kB" ? v * 1024 : v;
        }
    return 0;
}

void tighten(MemoryBudget::Limit& limit, std::uint64_t bytes, const QString& source)
{
    if (bytes < limit.bytes) {
        limit.bytes = bytes;
        limit.source = source;
    }
}

/// One level of this process's memory cgroup: the files of its limit and of its use.
struct CgroupLevel {
    QString maxPath;
    QString usePath;
};

/// From this process's cgroup folder up to the mount point. A process's cgroup is found once:
/// it is where the process was started (moving a running process is an administrator's act the
/// limits below would still follow at the levels kept); the limits themselves are read each time.
QList<CgroupLevel> findCgroupLevels()
{
    QList<CgroupLevel> out;
    const QList<QByteArray> lines = readSmall(QStringLiteral("/proc/self/cgroup")).split('\n');
    for (const QByteArray& line : lines) {
        const QList<QByteArray> f = line.split(':');
        if (f.size() < 3)
            continue;
        const bool v2 = f[0] == "0" && f[1].isEmpty();
        const bool v1 = f[1].split(',').contains("memory");
        if (!v1 && !v2)
            continue;
        const QString mount = v2 ? QStringLiteral("/sys/fs/cgroup") : QStringLiteral("/sys/fs/cgroup/memory");
        const QString maxFile = v2 ? QStringLiteral("memory.max") : QStringLiteral("memory.limit_in_bytes");
        const QString useFile =
            v2 ? QStringLiteral("memory.current") : QStringLiteral("memory.usage_in_bytes");
        QString rel = QString::fromUtf8(f.mid(2).join(':')).trimmed();
        // In a container the cgroup namespace makes the mount point this process's own cgroup,
        // and the path in /proc/self/cgroup names a folder that does not exist here.
        if (!QFile::exists(mount + rel + QLatin1Char('/') + maxFile))
            rel.clear();
        for (;;) {
            const QString dir = mount + rel;
            out << CgroupLevel{dir + QLatin1Char('/') + maxFile, dir + QLatin1Char('/') + useFile};
            if (rel.isEmpty() || rel == u"/")
                break;
            rel = rel.left(rel.lastIndexOf(QLatin1Char('/')));
        }
    }
    return out;
}

/// "max" or a number of bytes (cgroup files); UINT64_MAX when unlimited or unreadable.
std::uint64_t cgroupNumber(const QString& path)
{
    const QByteArray text = readSmall(path).trimmed();
    bool ok = false;
    const std::uint64_t v = text.toULongLong(&ok);
    return ok ? v : UINT64_MAX;
}

/// Each level's headroom, from this process's cgroup up to the mount point.
void cgroupLimits(MemoryBudget::Limit& limit)
{
    static const QList<CgroupLevel> levels = findCgroupLevels();
    for (const CgroupLevel& level : levels) {
        const std::uint64_t max = cgroupNumber(level.maxPath);
        if (max == UINT64_MAX || max >= (std::uint64_t(1) << 62)) // v1 writes "unlimited" as ~2^63
            continue;
        const std::uint64_t used = cgroupNumber(level.usePath);
        const std::uint64_t free = used == UINT64_MAX ? max : (used < max ? max - used : 0);
        if (free < limit.bytes)
            tighten(limit, free,
                    QStringLiteral("the cgroup memory limit, %1 of %2 (%3)")
                        .arg(MemoryBudget::formatBytes(free), MemoryBudget::formatBytes(max), level.maxPath));
    }
}

std::uint64_t parseSize(QByteArray text)
{
    text = text.trimmed().toUpper();
    if (text.endsWith("IB"))
        text.chop(2);
    else if (text.endsWith('B'))
        text.chop(1);
    std::uint64_t scale = 1;
    if (!text.isEmpty()) {
        const char unit = text.back();
        const int shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : unit == 'T' ? 40 : 0;
        if (shift) {
            scale = std::uint64_t(1) << shift;
            text.chop(1);
        }
    }
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok || !(v >= 0) || v * double(scale) >= 1.8e19)
        return UINT64_MAX;
    return std::uint64_t(v * double(scale));
}

} // namespace

namespace {

void userCap(MemoryBudget::Limit& limit)
{
    if (const QByteArray env = qgetenv("TRAINBENCH_MEMORY_LIMIT"); !env.isEmpty()) {
        const std::uint64_t cap = parseSize(env);
        if (cap != UINT64_MAX)
            tighten(limit, cap,
                    QStringLiteral("TRAINBENCH_MEMORY_LIMIT=%1").arg(QString::fromLocal8Bit(env)));
    }
}

/// The limits the system sets (physical memory, cgroups, rlimits), without the user's cap.
MemoryBudget::Limit systemLimits();

std::mutex g_cacheMutex;
MemoryBudget::Limit g_cached;
std::chrono::steady_clock::time_point g_cachedAt;
bool g_haveCached = false;

} // namespace

MemoryBudget::Limit MemoryBudget::available()
{
    Limit limit = systemLimits();
    {
        const std::lock_guard lock(g_cacheMutex);
        g_cached = limit;
        g_cachedAt = std::chrono::steady_clock::now();
        g_haveCached = true;
    }
    userCap(limit);
    return limit;
}

MemoryBudget::Limit MemoryBudget::availableFor(std::uint64_t bytes)
{
    Limit limit;
    {
        const std::lock_guard lock(g_cacheMutex);
        const bool fresh = g_haveCached && std::chrono::steady_clock::now() - g_cachedAt < std::chrono::seconds(1);
        if (fresh && bytes <= g_cached.bytes / 16)
            limit = g_cached;
    }
    if (limit.source.isEmpty() && limit.bytes == UINT64_MAX)
        return available();
    userCap(limit);
    return limit;
}

namespace {

MemoryBudget::Limit systemLimits()
{
    MemoryBudget::Limit limit;
#ifdef Q_OS_LINUX
    if (const std::uint64_t avail = procField(readSmall(QStringLiteral("/proc/meminfo")), "MemAvailable");
        avail > 0)
        tighten(limit, avail, QStringLiteral("physical memory (MemAvailable in /proc/meminfo)"));
    cgroupLimits(limit);
    QByteArray status; // read only when an rlimit applies
    for (const auto& [resource, field, name] :
         {std::tuple{RLIMIT_AS, QByteArray("VmSize"),
                     QStringLiteral("the address-space limit (RLIMIT_AS, ulimit -v)")},
          std::tuple{RLIMIT_DATA, QByteArray("VmData"),
                     QStringLiteral("the data-size limit (RLIMIT_DATA, ulimit -d)")}}) {
        rlimit r{};
        if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
            continue;
        if (status.isEmpty())
            status = readSmall(QStringLiteral("/proc/self/status"));
        const std::uint64_t used = procField(status, field);
        tighten(limit, used < r.rlim_cur ? std::uint64_t(r.rlim_cur) - used : 0, name);
    }
#endif
    return limit;
}

} // namespace

void MemoryBudget::require(std::uint64_t bytes, const QString& what, const QString& file, const QString& key)
{
    const Limit limit = available();
    if (bytes <= limit.bytes)
        return;
    const QString message = QStringLiteral("%1 needs %2, but only %3 is available to this process (%4)")
                                .arg(what, formatBytes(bytes), formatBytes(limit.bytes), limit.source);
    if (file.isEmpty())
        throw DataError::inSpec(key, {},
                                key.isEmpty() ? message : QStringLiteral("%1: %2").arg(key, message));
    throw DataError(file, -1, -1, key, {},
                    key.isEmpty() ? message : QStringLiteral("%1: %2").arg(key, message));
}

std::uint64_t MemoryBudget::bytesOf(std::uint64_t rows, std::uint64_t cols, std::uint64_t elementBytes)
{
    std::uint64_t out = 0;
    if (__builtin_mul_overflow(rows, cols, &out) || __builtin_mul_overflow(out, elementBytes, &out))
        return UINT64_MAX;
    return out;
}

QString MemoryBudget::formatBytes(std::uint64_t bytes)
{
    if (bytes == UINT64_MAX)
        return QStringLiteral("more than 16 EiB");
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = double(bytes);
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        ++u;
    }
    if (u == 0)
        return QStringLiteral("%1 B").arg(bytes);
    // Three significant digits without an exponent: 1.5, 20.3, 512.
    return QStringLiteral("%1 %2").arg(QString::number(v, 'f',
                                                       v < 10    ? 2
                                                       : v < 100 ? 1
                                                                 : 0),
                                       QLatin1String(units[u]));
}

} // namespace tb::data
