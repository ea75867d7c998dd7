// trainbench-cli and its database when things go wrong (issue 17, "silent data loss"), driven as a
// user drives it: a full disk, a read-only file, a read-only folder, a lock held by another
// process and a damaged file each end with a message naming the database and the cause and a
// non-zero exit; the results of the session still reach --csv; commands that only read work on
// read-only stores and never print less than the file holds.

#include <CliProcess.h>
#include <store/RunStore.h>

#include <QFile>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QThread>
#include <QUuid>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <functional>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tb;

namespace {

struct Output {
    int code = -1;
    QString out, err;
};

/// A raw connection of "another process", removed when the guard dies.
class Raw {
public:
    explicit Raw(const QString& path) : m_name(QStringLiteral("raw-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.open();
    }
    ~Raw() { QSqlDatabase::removeDatabase(m_name); }
    QString name() const { return m_name; }
    bool exec(const QString& sql) const { return QSqlQuery(QSqlDatabase::database(m_name)).exec(sql); }
    QList<qint64> column(const QString& sql) const
    {
        QSqlQuery q(QSqlDatabase::database(m_name));
        QList<qint64> out;
        if (q.exec(sql))
            while (q.next())
                out << q.value(0).toLongLong();
        return out;
    }

private:
    QString m_name;
};

// What the child does between fork and exec. Only async-signal-safe calls.
rlim_t g_fileSizeLimit = 0;
void limitFileSize()
{
    std::signal(SIGXFSZ, SIG_IGN); // a write past the limit fails with EFBIG instead of killing
    rlimit r{g_fileSizeLimit, g_fileSizeLimit};
    setrlimit(RLIMIT_FSIZE, &r);
}
void dropPrivileges()
{
    // Root may write any file: run as "nobody" so that file permissions apply, as for a user.
    if (geteuid() == 0) {
        setgroups(0, nullptr);
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(99);
    }
}

const QByteArray kSleepy = R"({"name": "sleepy", "kind": "learning-curve", "repeats": 2, "threads": 1,
    "dataset": {"source": "moons", "samples": 100},
    "algorithms": [{"id": "test.sleepy", "label": "Sleepy", "params": {"epochs": 100, "epoch_ms": 20}}]})";

} // namespace

class TestCliStore : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    Output cli(const QStringList& args, const std::function<void()>& modifier = {})
    {
        QProcess p;
        QProcessEnvironment env = tb::testsupport::cliEnvironment(
            m_dir.filePath("home"), QStringLiteral(TB_TEST_PLUGIN_DIR ":" TB_PLUGIN_BUILD_DIR));
        env.insert("TRAINBENCH_NO_HUGEPAGES", "1");
        p.setProcessEnvironment(env);
        if (modifier)
            p.setChildProcessModifier(modifier);
        p.start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"), args);
        Output o;
        if (!p.waitForFinished(180000))
            return o;
        o.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        o.out = QString::fromUtf8(p.readAllStandardOutput());
        o.err = QString::fromUtf8(p.readAllStandardError());
        return o;
    }

    QString write(const QString& name, const QByteArray& bytes)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(f.fileName()));
        return f.fileName();
    }

    /// A folder "nobody" may enter and write (for the tests that drop privileges).
    QString openFolder(const QString& name)
    {
        const QString path = m_dir.filePath(name);
        QDir().mkpath(path);
        chmod(QFile::encodeName(path).constData(), 0777);
        return path;
    }

    static QString report(const Output& o) { return QStringLiteral("exit %1\n%2\n%3").arg(o.code).arg(o.out, o.err); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // "nobody" must reach the spec and the home folder inside the test folder.
        chmod(QFile::encodeName(m_dir.path()).constData(), 0755);
        for (const char* sub : {"home", "home/data", "home/config", "home/cache", "home/runtime"})
            openFolder(QString::fromLatin1(sub));
        chmod(QFile::encodeName(m_dir.filePath("home/runtime")).constData(), 0700);
        write("sleepy.json", kSleepy);
    }

    void fullDiskStopsTheRunLoudlyAndTheCsvKeepsTheResults()
    {
        const QString db = m_dir.filePath("full.sqlite");
        const QString csv = m_dir.filePath("full.csv");
        QVERIFY(cli({"run", m_dir.filePath("sleepy.json"), "--db", db, "--quiet", "--no-db"}).code == 0); // a warm-up without a db
        g_fileSizeLimit = 120 * 1024; // room for the new store, not for 200 checkpoints in ~40 commits
        const Output o = cli({"run", m_dir.filePath("sleepy.json"), "--db", db, "--quiet", "--csv", csv}, limitFileSize);
        QCOMPARE(o.code, 4);
        QVERIFY2(o.err.contains("the experiment was stopped because a write to the database failed") &&
                     o.err.contains(db) && o.err.contains("were lost"),
                 qPrintable(report(o)));
        QVERIFY2(o.err.contains(QStringLiteral("the results of this session are written to %1").arg(csv)), qPrintable(report(o)));
        QVERIFY2(!o.out.contains("database: "), qPrintable(report(o))); // no claim that it is stored
        QVERIFY2(o.out.contains("failed"), qPrintable(report(o)));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        QVERIFY2(lines.size() > 10, "the checkpoints trained before the stop are in the CSV");
        QVERIFY(lines.size() < 202); // and the experiment did stop
        // The run it stopped is stored as failed, as the docs say, and the one it never started
        // as cancelled: once the writes fail, the store gives the WAL's space back, so the small
        // status updates still land. Nothing is left running or interrupted.
        const Raw raw(db);
        QSqlQuery q(QSqlDatabase::database(raw.name()));
        QStringList rows;
        for (q.exec("SELECT id, status, error FROM runs"); q.next();)
            rows << q.value(0).toString() + " " + q.value(1).toString() + ": " + q.value(2).toString();
        QVERIFY2(raw.column("SELECT count(*) FROM runs WHERE status IN ('running', 'interrupted')") == QList<qint64>{0},
                 qPrintable(rows.join("\n")));
        QVERIFY2(raw.column("SELECT count(*) FROM runs WHERE status = 'failed' AND error LIKE '%run store failed%'").value(0) == 1,
                 qPrintable(rows.join("\n")));
    }

    void readOnlyFileIsRefusedBeforeTraining()
    {
        const QString folder = openFolder("ro-file");
        const QString db = folder + "/runs.sqlite";
        QVERIFY(cli({"run", m_dir.filePath("sleepy.json"), "--db", db, "--quiet"}).code == 0);
        QVERIFY(QFile::setPermissions(db, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther));
        const Output o = cli({"run", m_dir.filePath("sleepy.json"), "--db", db, "--quiet"}, dropPrivileges);
        QCOMPARE(o.code, 4);
        QVERIFY2(o.err.contains(db) && o.err.contains("read-only") && o.err.contains("cannot write"), qPrintable(report(o)));
        QVERIFY2(!o.err.contains("Running"), qPrintable(report(o))); // refused before any training
        // Refused before SQLite opened it: nothing is left beside it.
        QVERIFY(!QFileInfo::exists(db + "-wal"));
        QVERIFY(!QFileInfo::exists(db + "-shm"));
        // Reading it still works.
        const Output listed = cli({"runs", "--db", db}, dropPrivileges);
        QCOMPARE(listed.code, 0);
        QCOMPARE(listed.out.count(QRegularExpression("  run +\\d+  Sleepy")), 2);
    }

    void readOnlyFolderCanBeListedAndExportedButNotWritten()
    {
        const QString folder = openFolder("ro-folder");
        const QString db = folder + "/runs.sqlite";
        QVERIFY(cli({"run", m_dir.filePath("sleepy.json"), "--db", db, "--quiet"}).code == 0);
        QVERIFY(!QFileInfo::exists(db + "-wal")); // the store closed cleanly: everything is in the file
        chmod(QFile::encodeName(folder).constData(), 0555);
        const QString out = openFolder("exports");
        const Output listed = cli({"runs", "--db", db}, dropPrivileges);
        QVERIFY2(listed.code == 0, qPrintable(report(listed)));
        QCOMPARE(listed.out.count(QRegularExpression("  run +\\d+  Sleepy +finished")), 2);
        const Output exported = cli({"export", "1", "--db", db, "--csv", out + "/e.csv"}, dropPrivileges);
        QVERIFY2(exported.code == 0, qPrintable(report(exported)));
        QVERIFY(QFileInfo(out + "/e.csv").size() > 1000);
        const Output ran = cli({"run", m_dir.filePath("sleepy.json"), "--db", db, "--quiet"}, dropPrivileges);
        QCOMPARE(ran.code, 4);
        QVERIFY2(ran.err.contains(db) && ran.err.contains("cannot open it for writing") && ran.err.contains("read-only"),
                 qPrintable(report(ran)));
        QVERIFY2(!ran.err.contains("cannot read"), qPrintable(report(ran))); // the old, contradictory message
        chmod(QFile::encodeName(folder).constData(), 0777);
    }

    void lockHeldLongerThanTheWaitStopsTheRun()
    {
        const QString db = m_dir.filePath("locked.sqlite");
        const QString csv = m_dir.filePath("locked.csv");
        QVERIFY(cli({"run", m_dir.filePath("sleepy.json"), "--db", db, "--quiet"}).code == 0);
        // Another process takes the write lock once the experiment's first checkpoints are in the
        // file, and keeps it until the CLI has exited: longer than the wait, and inside the
        // experiment (of 2 × 20 s unless the failed write stops it), however late either starts.
        // The file is polled with a deadline that only guards against a hang.
        write("long-sleepy.json", QByteArray(kSleepy).replace(R"("epochs": 100)", R"("epochs": 1000)"));
        const qint64 before = Raw(db).column("SELECT count(*) FROM metrics").value(0, -1);
        QVERIFY(before > 0);
        std::atomic<bool> locked{false}, cliEnded{false};
        std::thread other([&] {
            Raw raw(db);
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
            while (!cliEnded && std::chrono::steady_clock::now() < deadline &&
                   raw.column("SELECT count(*) FROM metrics").value(0, -1) <= before)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            if (!cliEnded)
                locked = raw.exec("BEGIN IMMEDIATE");
            while (!cliEnded)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            raw.exec("ROLLBACK");
        });
        const Output o =
            cli({"run", m_dir.filePath("long-sleepy.json"), "--db", db, "--quiet", "--wait", "1.5", "--csv", csv});
        cliEnded = true;
        other.join();
        QVERIFY(locked);
        QCOMPARE(o.code, 4);
        QVERIFY2(o.err.contains(QStringLiteral("%1 is locked by another connection").arg(db)) &&
                     o.err.contains("waiting up to 1.5 s"),
                 qPrintable(report(o)));
        QVERIFY2(o.err.contains("the experiment was stopped because a write to the database failed"), qPrintable(report(o)));
        QVERIFY(QFileInfo(csv).size() > 0);

        // A lock held when the CLI starts: refused at open, quickly, saying why.
        Raw holder(db);
        QVERIFY(holder.exec("BEGIN IMMEDIATE"));
        const Output refused = cli({"run", m_dir.filePath("sleepy.json"), "--db", db, "--quiet", "--wait", "0.5"});
        QVERIFY(holder.exec("ROLLBACK"));
        QCOMPARE(refused.code, 4);
        QVERIFY2(refused.err.contains(db) && refused.err.contains("locked") && refused.err.contains("0.5 s"),
                 qPrintable(report(refused)));
    }

    void twoResumesAtOnceEndWithOneRowPerCell()
    {
        // Issue 50, item 2: a killed experiment resumed twice at once. The first claims it; the
        // second is refused naming the first (exit 3), and deletes nothing; the first ends with one
        // finished row per cell.
        const QString spec = write("claims.json", R"({"name": "claims", "kind": "learning-curve", "repeats": 4, "threads": 1,
            "dataset": {"source": "moons", "samples": 100},
            "algorithms": [{"id": "test.sleepy", "label": "Sleepy", "params": {"epochs": 40, "epoch_ms": 25}}]})");
        const QString db = m_dir.filePath("claims.sqlite");
        auto scalar = [&](const QString& sql) {
            QVariant v;
            {
                QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("peek"));
                raw.setDatabaseName(db);
                raw.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=2000"));
                if (raw.open()) {
                    QSqlQuery q(raw);
                    if (q.exec(sql) && q.next())
                        v = q.value(0);
                    q.finish();
                    raw.close();
                }
            }
            QSqlDatabase::removeDatabase(QStringLiteral("peek"));
            return v;
        };
        auto start = [&](QProcess& p, const QStringList& args) {
            QProcessEnvironment env = tb::testsupport::cliEnvironment(
                m_dir.filePath("home"), QStringLiteral(TB_TEST_PLUGIN_DIR ":" TB_PLUGIN_BUILD_DIR));
            p.setProcessEnvironment(env);
            p.start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"), args);
            return p.waitForStarted();
        };
        auto waitFor = [&](const std::function<bool()>& done) {
            for (int i = 0; i < 1200 && !done(); ++i) // polled: at most 2 min, however busy the machine
                QThread::msleep(100);
            return done();
        };
        // A run killed after its first cell: one finished row, one left by a dead process.
        {
            QProcess killed;
            QVERIFY(start(killed, {"run", spec, "--db", db, "--quiet"}));
            QVERIFY(waitFor([&] { return scalar("SELECT count(*) FROM runs WHERE status = 'finished'").toInt() >= 1; }));
            ::kill(pid_t(killed.processId()), SIGKILL);
            killed.waitForFinished();
        }
        QProcess first;
        QVERIFY(start(first, {"run", spec, "--db", db, "--quiet", "--resume"}));
        const qint64 firstPid = first.processId(); // 0 once it has ended
        const QString claimed = QStringLiteral("\t%1\t").arg(firstPid);
        QVERIFY2(waitFor([&] { return scalar("SELECT claim FROM experiments WHERE id = 1").toString().contains(claimed); }) ||
                     first.state() == QProcess::NotRunning,
                 "the first resume never claimed the experiment");
        const Output second = cli({"run", spec, "--db", db, "--quiet", "--resume"});
        QVERIFY(first.waitForFinished(180000));
        QCOMPARE(first.exitCode(), 0);
        QCOMPARE(second.code, 3);
        QVERIFY2(second.err.contains(QStringLiteral("another process (pid %1").arg(firstPid)) &&
                     second.err.contains(QLatin1String("running or resuming it now")),
                 qPrintable(report(second)));
        QCOMPARE(scalar("SELECT count(*) FROM runs WHERE experiment_id = 1").toInt(), 4);
        QCOMPARE(scalar("SELECT count(*) FROM runs WHERE experiment_id = 1 AND status = 'finished'").toInt(), 4);
        QCOMPARE(scalar("SELECT claim FROM experiments WHERE id = 1").toString(), QString()); // released at the end
    }

    void damagedFileIsReportedByEveryCommand()
    {
        const QString db = m_dir.filePath("damaged.sqlite");
        const QByteArray many = R"({"name": "many", "kind": "learning-curve", "repeats": 60, "threads": 1,
            "dataset": {"source": "moons", "samples": 60}, "algorithms": [{"id": "test.sleepy", "label": "A rather long label to fill the pages of the runs table",
            "params": {"epochs": 1, "epoch_ms": 0}}]})";
        write("many.json", many);
        QVERIFY(cli({"run", m_dir.filePath("many.json"), "--db", db, "--quiet"}).code == 0);
        qint64 page = 0;
        {
            Raw raw(db);
            const auto leaves = raw.column("SELECT pageno FROM dbstat WHERE name = 'runs' AND pagetype = 'leaf' ORDER BY pageno");
            QVERIFY2(leaves.size() >= 3, "the runs table should span several pages");
            page = leaves.at(leaves.size() / 2);
        }
        {
            QFile f(db);
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.seek((page - 1) * 4096));
            QCOMPARE(f.write(QByteArray(64, char(0x7f))), 64);
        }
        const Output listed = cli({"runs", "--db", db});
        QCOMPARE(listed.code, 4);
        QVERIFY2(listed.err.contains(db) && listed.err.contains("malformed") && listed.err.contains("quick_check"),
                 qPrintable(report(listed)));
        const QString csv = m_dir.filePath("damaged.csv");
        const Output exported = cli({"export", "1", "--db", db, "--csv", csv});
        QCOMPARE(exported.code, 4);
        QVERIFY2(exported.err.contains("malformed"), qPrintable(report(exported)));
        QVERIFY(!QFileInfo::exists(csv)); // no header-only CSV that looks like an empty experiment
        const Output ran = cli({"run", m_dir.filePath("many.json"), "--db", db, "--quiet"});
        QVERIFY2(ran.code == 4 || ran.code == 0, qPrintable(report(ran)));
        if (ran.code == 4) // a write that touches the damaged page fails loudly; one that does not, works
            QVERIFY2(ran.err.contains("malformed"), qPrintable(report(ran)));
    }
};

QTEST_GUILESS_MAIN(TestCliStore)
#include "tst_cli_store.moc"
