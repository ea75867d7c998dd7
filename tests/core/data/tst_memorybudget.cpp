// MemoryBudget: the memory this process may still take, from the limits that apply (issue 17:
// "bound every allocation that input can size against the memory available to the process").

#include <data/DataError.h>
#include <data/MemoryBudget.h>

#include <QFile>
#include <QtTest>

#include <sys/resource.h>

using namespace tb::data;

class TestMemoryBudget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cleanup() { qunsetenv("TRAINBENCH_MEMORY_LIMIT"); }

    void physicalMemoryBoundsIt()
    {
        const MemoryBudget::Limit limit = MemoryBudget::available();
        QVERIFY(limit.bytes > 0);
        QVERIFY(limit.bytes < UINT64_MAX);
        QVERIFY(!limit.source.isEmpty());
        // Never more than the machine's physical memory.
        QFile meminfo(QStringLiteral("/proc/meminfo"));
        QVERIFY(meminfo.open(QIODevice::ReadOnly));
        const QByteArray text = meminfo.readAll();
        const qsizetype at = text.indexOf("MemTotal:");
        QVERIFY(at >= 0);
        const std::uint64_t total = text.mid(at + 9).trimmed().split(' ').first().toULongLong() * 1024;
        QVERIFY(limit.bytes <= total);
    }

    void aCapFromTheEnvironment()
    {
        qputenv("TRAINBENCH_MEMORY_LIMIT", "64M");
        MemoryBudget::Limit limit = MemoryBudget::available();
        QCOMPARE(limit.bytes, std::uint64_t(64) << 20);
        QCOMPARE(limit.source, QStringLiteral("TRAINBENCH_MEMORY_LIMIT=64M"));
        qputenv("TRAINBENCH_MEMORY_LIMIT", "1.5GiB");
        QCOMPARE(MemoryBudget::available().bytes, std::uint64_t(1.5 * double(1ull << 30)));
        qputenv("TRAINBENCH_MEMORY_LIMIT", "lots");
        QVERIFY(MemoryBudget::available().source != QStringLiteral("TRAINBENCH_MEMORY_LIMIT=lots")); // ignored
    }

    void aCheckOfFewBytesMayUseAReadingASecondOld()
    {
        // availableFor(): a check far below the last reading reuses it; one near it, or the
        // user's cap set since, is never served from the old reading.
        const MemoryBudget::Limit fresh = MemoryBudget::available();
        if (fresh.bytes == UINT64_MAX)
            QSKIP("no memory limit can be read here");
        const MemoryBudget::Limit small = MemoryBudget::availableFor(1 << 20);
        QCOMPARE(small.bytes, fresh.bytes);
        QCOMPARE(small.source, fresh.source);
        qputenv("TRAINBENCH_MEMORY_LIMIT", "64M");
        QCOMPARE(MemoryBudget::availableFor(1 << 20).bytes, std::uint64_t(64) << 20);
        qunsetenv("TRAINBENCH_MEMORY_LIMIT");
        // An RLIMIT_AS set now applies at once to a check near the old reading (a new reading).
        rlimit old{};
        QVERIFY(getrlimit(RLIMIT_AS, &old) == 0);
        QFile status(QStringLiteral("/proc/self/status"));
        QVERIFY(status.open(QIODevice::ReadOnly));
        const QByteArray text = status.readAll();
        const std::uint64_t mapped = text.mid(text.indexOf("VmSize:") + 7).trimmed().split(' ').first().toULongLong() * 1024;
        rlimit tight = old;
        tight.rlim_cur = mapped + (256u << 20);
        QVERIFY(setrlimit(RLIMIT_AS, &tight) == 0);
        const MemoryBudget::Limit near = MemoryBudget::availableFor(fresh.bytes / 2);
        setrlimit(RLIMIT_AS, &old);
        QVERIFY2(near.bytes <= (256u << 20), qPrintable(QString::number(near.bytes)));
    }

    void addressSpaceLimit()
    {
        // A soft RLIMIT_AS of what is mapped now + 256 MiB leaves at most 256 MiB.
        rlimit old{};
        QVERIFY(getrlimit(RLIMIT_AS, &old) == 0);
        QFile status(QStringLiteral("/proc/self/status"));
        QVERIFY(status.open(QIODevice::ReadOnly));
        const QByteArray text = status.readAll();
        const qsizetype at = text.indexOf("VmSize:");
        QVERIFY(at >= 0);
        const std::uint64_t mapped = text.mid(at + 7).trimmed().split(' ').first().toULongLong() * 1024;
        rlimit tight = old;
        tight.rlim_cur = mapped + (256u << 20);
        QVERIFY(setrlimit(RLIMIT_AS, &tight) == 0);
        const MemoryBudget::Limit limit = MemoryBudget::available();
        setrlimit(RLIMIT_AS, &old);
        QVERIFY2(limit.bytes <= (256u << 20), qPrintable(QString::number(limit.bytes)));
        QVERIFY(limit.bytes > (128u << 20)); // reading /proc maps little
        QVERIFY2(limit.source.contains(QLatin1String("RLIMIT_AS")), qPrintable(limit.source));
    }

    void requireNamesTheFileOrTheKey()
    {
        qputenv("TRAINBENCH_MEMORY_LIMIT", "1M");
        MemoryBudget::require(1 << 20, QStringLiteral("anything"), QStringLiteral("f.csv")); // exactly fits
        try {
            MemoryBudget::require(3 << 20, QStringLiteral("a 3×2^17 matrix"), QStringLiteral("f.csv"));
            QFAIL("no error");
        } catch (const DataError& e) {
            QCOMPARE(e.text(), QStringLiteral("f.csv: a 3×2^17 matrix needs 3.00 MiB, but only 1.00 MiB is available to "
                                              "this process (TRAINBENCH_MEMORY_LIMIT=1M)"));
            QCOMPARE(e.file(), QStringLiteral("f.csv"));
        }
        try {
            MemoryBudget::require(UINT64_MAX, QStringLiteral("10^15 samples"), {}, QStringLiteral("dataset.samples"));
            QFAIL("no error");
        } catch (const DataError& e) {
            QCOMPARE(e.text(), QStringLiteral("dataset.samples: 10^15 samples needs more than 16 EiB, but only 1.00 MiB is "
                                              "available to this process (TRAINBENCH_MEMORY_LIMIT=1M)"));
            QCOMPARE(e.key(), QStringLiteral("dataset.samples"));
        }
    }

    void sizesSaturateAndPrint()
    {
        QCOMPARE(MemoryBudget::bytesOf(40, 67108864), std::uint64_t(40) * 67108864 * 8);
        QCOMPARE(MemoryBudget::bytesOf(UINT64_MAX / 2, 3), UINT64_MAX); // no wrap-around to a small size
        QCOMPARE(MemoryBudget::bytesOf(1ull << 62, 1, 8), UINT64_MAX);
        QCOMPARE(MemoryBudget::formatBytes(17), QStringLiteral("17 B"));
        QCOMPARE(MemoryBudget::formatBytes(1536), QStringLiteral("1.50 KiB"));
        QCOMPARE(MemoryBudget::formatBytes(std::uint64_t(20) << 30), QStringLiteral("20.0 GiB"));
        QCOMPARE(MemoryBudget::formatBytes(std::uint64_t(745) << 30), QStringLiteral("745 GiB"));
    }
};

QTEST_APPLESS_MAIN(TestMemoryBudget)
#include "tst_memorybudget.moc"
