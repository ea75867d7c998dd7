#include "PeakMemory.h"

#include <QFile>

#include <atomic>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tb {
namespace {

// Runs training in this process now, and how many times two have overlapped so far.
std::atomic<int> g_active{0};
std::atomic<quint64> g_overlaps{0};

void enter()
{
    if (g_active.fetch_add(1) > 0)
        g_overlaps.fetch_add(1);
}
void leave()
{
    g_active.fetch_sub(1);
}

// A "VmXXX:   123 kB" line of /proc/self/status in bytes, −1 if absent.
qint64 statusField(const char* key)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray text = f.readAll();
    const QByteArray k(key);
    const qsizetype at = text.indexOf("\n" + k);
    if (at < 0)
        return -1;
    const qsizetype end = text.indexOf('\n', at + 1);
    QByteArray value = text.mid(at + 1 + k.size(), end < 0 ? -1 : end - at - 1 - k.size()).trimmed();
    if (!value.endsWith(" kB"))
        return -1;
    bool ok = false;
    const qint64 kb = value.chopped(3).trimmed().toLongLong(&ok);
    return ok ? kb * 1024 : -1;
}

} // namespace

PeakMemory::Guard::Guard()
{
    enter();
}
PeakMemory::Guard::~Guard()
{
    leave();
}

qint64 PeakMemory::residentBytes()
{
    return statusField("VmRSS:");
}

PeakMemory::PeakMemory()
{
    enter();
    m_started = true;
    m_overlapsAtStart = g_overlaps.load();
    if (g_active.load() > 1) {
        m_startProblem = QStringLiteral("another run was training in this process");
        return;
    }
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    // "5" resets the peak resident set size to the current one (Linux ≥ 4.0, proc(5)).
    QFile clear(QStringLiteral("/proc/self/clear_refs"));
    if (!clear.open(QIODevice::WriteOnly) || clear.write("5") != 1 || !clear.flush()) {
        m_startProblem = QStringLiteral("cannot reset the peak resident size (/proc/self/clear_refs: %1)")
                             .arg(clear.errorString());
        return;
    }
    clear.close();
    m_baseline = residentBytes();
    if (m_baseline < 0)
        m_startProblem = QStringLiteral("cannot read VmRSS from /proc/self/status");
}

PeakMemory::~PeakMemory()
{
    if (m_started)
        leave();
}

qint64 PeakMemory::finish(QString* why)
{
    auto fail = [&](const QString& reason) -> qint64 {
        if (why)
            *why = reason;
        return -1;
    };
    if (m_finished)
        return fail(QStringLiteral("the measurement was already finished"));
    m_finished = true;
    if (!m_startProblem.isEmpty())
        return fail(m_startProblem);
    const qint64 peak = statusField("VmHWM:");
    if (g_overlaps.load() != m_overlapsAtStart)
        return fail(QStringLiteral("another run was training in this process"));
    if (peak < 0)
        return fail(QStringLiteral("cannot read VmHWM from /proc/self/status"));
    return std::max<qint64>(0, peak - m_baseline);
}

} // namespace tb
