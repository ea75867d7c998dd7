// ProcessSetup::useHugePages(): the process restarts once with glibc's huge-page tunable added,
// keeps the user's own tunables and choice, and can be turned off. The test runs itself as the
// child ("--child" prints what the restarted process sees).
#include <engine/ProcessSetup.h>

#include <QProcess>
#include <QtTest>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

/// Runs this program as a child with @p env added to a clean environment; returns its output.
QString child(const QStringList& env)
{
    QProcess p;
    QProcessEnvironment e;
    e.insert("PATH", qEnvironmentVariable("PATH"));
    for (const QString& kv : env)
        e.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(e);
    p.start(QCoreApplication::applicationFilePath(), {"--child"});
    if (!p.waitForFinished(20000))
        return QStringLiteral("child did not finish");
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

} // namespace

class TestProcessSetup : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void restartsOnceWithHugePages()
    {
#if defined(__linux__) && defined(__GLIBC__)
        // Same pid: exec() replaced the image; the tunable is set exactly once.
        const QString out = child({});
        QVERIFY2(out.startsWith("GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "), qPrintable(out));
        QVERIFY2(out.contains("same-pid=1"), qPrintable(out));
        // The restarted process keeps the program's name (comm, what ps/pgrep/kill see), not "exe".
        const QString name = QFileInfo(QCoreApplication::applicationFilePath()).fileName().left(15); // TASK_COMM_LEN − 1
        QVERIFY2(out.endsWith(QStringLiteral(" comm=%1").arg(name)), qPrintable(out));
#else
        QSKIP("huge pages are set up on Linux with glibc only");
#endif
    }

    void keepsTheUsersTunablesAndChoice()
    {
#if defined(__linux__) && defined(__GLIBC__)
        QCOMPARE(child({"GLIBC_TUNABLES=glibc.malloc.check=0"}).section(' ', 0, 0),
                 QStringLiteral("GLIBC_TUNABLES=glibc.malloc.check=0:glibc.malloc.hugetlb=1"));
        QCOMPARE(child({"GLIBC_TUNABLES=glibc.malloc.hugetlb=0"}).section(' ', 0, 0),
                 QStringLiteral("GLIBC_TUNABLES=glibc.malloc.hugetlb=0"));
        QCOMPARE(child({"TRAINBENCH_NO_HUGEPAGES=1"}).section(' ', 0, 0), QStringLiteral("GLIBC_TUNABLES="));
#else
        QSKIP("huge pages are set up on Linux with glibc only");
#endif
    }
};

int main(int argc, char** argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--child") == 0) {
        // The first pass records its pid; after the restart the variable tells the second pass.
        const char* first = std::getenv("TB_TEST_FIRST_PID");
        if (!first) {
            setenv("TB_TEST_FIRST_PID", std::to_string(getpid()).c_str(), 1);
            first = std::getenv("TB_TEST_FIRST_PID");
        }
        const bool samePid = std::atoll(first) == getpid();
        tb::ProcessSetup::useHugePages(argv);
        const char* t = std::getenv("GLIBC_TUNABLES");
        char comm[64] = {0};
        if (FILE* f = std::fopen("/proc/self/comm", "r")) {
            if (!std::fgets(comm, sizeof comm, f))
                comm[0] = 0;
            std::fclose(f);
        }
        comm[std::strcspn(comm, "\n")] = 0;
        std::printf("GLIBC_TUNABLES=%s same-pid=%d comm=%s \n", t ? t : "", samePid ? 1 : 0, comm);
        return 0;
    }
    QCoreApplication app(argc, argv);
    TestProcessSetup t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_processsetup.moc"
