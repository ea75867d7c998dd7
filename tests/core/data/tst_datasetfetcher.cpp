// DatasetFetcher and DatasetCache against a local HTTP server (TestHttpServer, 127.0.0.1 only):
// a good fetch, a checksum mismatch, interrupted and resumed transfers, a stall, an address that
// does not answer, a full disk (the write-failure hook), too little disk space, files placed by
// hand, unverifiable entries, cancellation and removal.

#include <data/DataError.h>
#include <data/DatasetCache.h>
#include <data/DatasetCatalog.h>
#include <data/DatasetFetcher.h>
#include "TestHttpServer.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSysInfo>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace tb::data;
using tb::test::TestHttpServer;

namespace {

QByteArray payload(int bytes, int seed = 1)
{
    QByteArray b(bytes, Qt::Uninitialized);
    quint32 x = quint32(seed) * 2654435761u + 1;
    for (int i = 0; i < bytes; ++i) {
        x = x * 1664525u + 1013904223u;
        b[i] = char(x >> 24);
    }
    return b;
}

QString sha256(const QByteArray& b)
{
    return QString::fromLatin1(QCryptographicHash::hash(b, QCryptographicHash::Sha256).toHex());
}

/// A one-file entry "set" whose file is served at @p url with the checksum of @p body.
DatasetEntry entry(const QStringList& urls, const QByteArray& body, qint64 size = -1, bool checksum = true)
{
    QJsonObject file{{"name", "data.bin"}, {"urls", QJsonArray::fromStringList(urls)}};
    if (checksum)
        file.insert("sha256", sha256(body));
    if (size > 0)
        file.insert("size", double(size));
    QJsonObject e{{"id", "set"},
                  {"title", "Test set"},
                  {"task", "regression"},
                  {"licence", "test data"},
                  {"split", "random"},
                  {"files", QJsonArray{file}},
                  {"load", QJsonObject{{"format", "csv"}, {"file", "data.bin"}, {"target", -1}}}};
    if (checksum)
        e.insert("checksum_source", "computed by tst_datasetfetcher");
    else
        e.insert("unverifiable", "the test publishes none");
    QStringList problems;
    const auto list = DatasetCatalog::parse(QJsonDocument(QJsonArray{e}).toJson(), "test", &problems);
    if (!problems.isEmpty() || list.size() != 1)
        qFatal("%s", qPrintable(problems.join("\n")));
    return list.first();
}

QByteArray read(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Every regular file under @p dir (the lock files aside).
QStringList filesUnder(const QString& dir)
{
    QStringList out;
    QDir d(dir);
    for (const QFileInfo& fi : d.entryInfoList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot))
        out << fi.absoluteFilePath();
    for (const QFileInfo& fi : d.entryInfoList(QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot))
        if (fi.fileName() != u".locks")
            out << filesUnder(fi.absoluteFilePath());
    return out;
}

} // namespace

class TestDatasetFetcher : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    DatasetFetcher::Options m_options;
    QStringList m_messages;

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QDir(m_dir.path()).removeRecursively();
        QDir().mkpath(m_dir.path());
        qputenv("TRAINBENCH_DATASETS_DIR", m_dir.path().toUtf8());
        qunsetenv("TRAINBENCH_DATASETS_MIRROR");
        qunsetenv("TRAINBENCH_DATASETS_FAIL_WRITE_AFTER");
        // Loopback only: no proxy may take the test's requests elsewhere.
        for (const char* v : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
            qunsetenv(v);
        m_options = {};
        m_options.timeoutSeconds = 10;
        m_messages.clear();
        m_options.message = [this](const QString& m) { m_messages << m; };
    }

    void aGoodFetchIsVerifiedAndKept()
    {
        TestHttpServer server;
        const QByteArray body = payload(300000);
        server.serve("/data.bin", body);
        const DatasetEntry e = entry({server.url("/data.bin")}, body, body.size());
        QList<FetchProgress> progress;
        m_options.progress = [&](const FetchProgress& p) { progress << p; };
        QString error;
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(read(DatasetCache::path(e, e.files[0])), body);
        QCOMPARE(DatasetCache::state(e), DatasetCache::State::Verified);
        QCOMPARE(DatasetCache::fileState(e, e.files[0]).checksum, "sha256:" + sha256(body));
        QVERIFY(!QFileInfo::exists(DatasetCache::partialPath(e, e.files[0])));
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().phase, QStringLiteral("verify"));
        QCOMPARE(DatasetCache::require(e, e.files[0]), DatasetCache::path(e, e.files[0]));
        // A second fetch finds it there: no request.
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(server.requests("/data.bin"), 1);
    }

    void aChecksumMismatchKeepsNothing()
    {
        TestHttpServer server;
        const QByteArray body = payload(50000);
        QByteArray tampered = body;
        tampered[1000] = char(tampered[1000] ^ 0x55);
        server.serve("/data.bin", tampered);
        const DatasetEntry e = entry({server.url("/data.bin")}, body);
        QString error;
        QVERIFY(!DatasetFetcher::fetch(e, m_options, &error));
        QVERIFY2(error.contains("checksum mismatch") && error.contains(sha256(body)) && error.contains(sha256(tampered)) &&
                     error.contains("computed by tst_datasetfetcher") && error.contains("nothing was kept"),
                 qPrintable(error));
        QCOMPARE(filesUnder(m_dir.path()), QStringList());
        QCOMPARE(DatasetCache::state(e), DatasetCache::State::Missing);
    }

    void anInterruptedTransferResumes()
    {
        TestHttpServer server;
        const QByteArray body = payload(400000, 2);
        TestHttpServer::Behaviour b;
        b.cutAfter = 150000; // the first response breaks off
        server.serve("/data.bin", body, b);
        const DatasetEntry e = entry({server.url("/data.bin")}, body, body.size());
        QString error;
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(read(DatasetCache::path(e, e.files[0])), body);
        // The transfer went on from where it broke off (Qt may first repeat the request once by
        // itself when a connection closes early): a Range request from the bytes received.
        const QStringList ranges = server.ranges("/data.bin");
        QCOMPARE(ranges.first(), QString());
        QVERIFY2(ranges.last() == "bytes=150000-", qPrintable(ranges.join(" | ")));
        QVERIFY2(m_messages.join("\n").contains("resuming"), qPrintable(m_messages.join("\n")));
    }

    void aPartLeftByAnotherRunResumes()
    {
        TestHttpServer server;
        const QByteArray body = payload(200000, 3);
        server.serve("/data.bin", body);
        const DatasetEntry e = entry({server.url("/data.bin")}, body, body.size());
        const QString part = DatasetCache::partialPath(e, e.files[0]);
        QDir().mkpath(QFileInfo(part).absolutePath());
        QFile f(part);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(body.left(70000));
        f.close();
        QString error;
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(server.ranges("/data.bin"), QStringList{"bytes=70000-"});
        QCOMPARE(read(DatasetCache::path(e, e.files[0])), body);
    }

    void aServerThatIgnoresRangesStartsOver()
    {
        TestHttpServer server;
        const QByteArray body = payload(100000, 4);
        TestHttpServer::Behaviour b;
        b.ignoreRange = true;
        server.serve("/data.bin", body, b);
        const DatasetEntry e = entry({server.url("/data.bin")}, body);
        const QString part = DatasetCache::partialPath(e, e.files[0]);
        QDir().mkpath(QFileInfo(part).absolutePath());
        QFile f(part);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(body.left(30000));
        f.close();
        QString error;
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(read(DatasetCache::path(e, e.files[0])), body);
        QVERIFY2(m_messages.join("\n").contains("does not resume"), qPrintable(m_messages.join("\n")));
    }

    void aStallIsATimeoutNamingTheAddress()
    {
        TestHttpServer server;
        const QByteArray body = payload(100000, 5);
        TestHttpServer::Behaviour b;
        b.stallAfter = 20000;
        server.serve("/data.bin", body, b);
        const DatasetEntry e = entry({server.url("/data.bin")}, body, body.size());
        m_options.timeoutSeconds = 1;
        QString error;
        QVERIFY(!DatasetFetcher::fetch(e, m_options, &error));
        QVERIFY2(error.contains(server.url("/data.bin") + ": no data for 1 s (the transfer stalled)"), qPrintable(error));
        QVERIFY2(error.contains(DatasetCache::path(e, e.files[0])), qPrintable(error));
        // Each stall sent 20000 bytes, so the address was retried three times, each time resuming
        // where the last stopped.
        QCOMPARE(server.ranges("/data.bin"), (QStringList{"", "bytes=20000-", "bytes=40000-", "bytes=60000-"}));
        // Nothing in the cache itself; the part received waits under .partial to resume.
        QVERIFY(!QFileInfo::exists(DatasetCache::path(e, e.files[0])));
        QCOMPARE(QFileInfo(DatasetCache::partialPath(e, e.files[0])).size(), 80000);
        // Once the server behaves, the next fetch resumes from there.
        server.serve("/data.bin", body);
        m_options.timeoutSeconds = 10;
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(server.ranges("/data.bin").last(), QStringLiteral("bytes=80000-"));
        QCOMPARE(read(DatasetCache::path(e, e.files[0])), body);
    }

    void anAddressThatDoesNotAnswerIsNamed()
    {
        // A port nobody listens on: take one, then close it.
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 port = probe.serverPort();
        probe.close();
        const QString url = QStringLiteral("http://127.0.0.1:%1/data.bin").arg(port);
        const DatasetEntry e = entry({url}, payload(10));
        QString error;
        QVERIFY(!DatasetFetcher::fetch(e, m_options, &error));
        QVERIFY2(error.contains(url + ": Connection refused"), qPrintable(error));
        QVERIFY2(error.contains("download " + url + " by hand and place it at " + DatasetCache::path(e, e.files[0])),
                 qPrintable(error));
        QCOMPARE(filesUnder(m_dir.path()), QStringList());
    }

    void theNextAddressIsTriedAfterAnError()
    {
        TestHttpServer server;
        const QByteArray body = payload(5000, 6);
        server.serve("/good/data.bin", body);
        const DatasetEntry e = entry({server.url("/missing/data.bin"), server.url("/good/data.bin")}, body);
        QString error;
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(server.requests("/missing/data.bin"), 1);
        QCOMPARE(read(DatasetCache::path(e, e.files[0])), body);
    }

    void aMirrorReplacesTheAddresses()
    {
        TestHttpServer server;
        const QByteArray body = payload(5000, 7);
        server.serve("/mirror/set/data.bin", body);
        const DatasetEntry e = entry({"https://example.invalid/data.bin"}, body);
        qputenv("TRAINBENCH_DATASETS_MIRROR", server.url("/mirror/").toUtf8());
        QCOMPARE(DatasetFetcher::addresses(e, e.files[0], m_options), QStringList{server.url("/mirror/set/data.bin")});
        QString error;
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(read(DatasetCache::path(e, e.files[0])), body);
    }

    void aFullDiskLeavesNothing()
    {
        // No size-limited file system can be mounted here: the documented hook makes the write
        // fail as ENOSPC would, after 64 KiB.
        TestHttpServer server;
        const QByteArray body = payload(300000, 8);
        server.serve("/data.bin", body);
        const DatasetEntry e = entry({server.url("/data.bin")}, body, body.size());
        qputenv("TRAINBENCH_DATASETS_FAIL_WRITE_AFTER", "65536");
        QString error;
        QVERIFY(!DatasetFetcher::fetch(e, m_options, &error));
        QVERIFY2(error.contains("No space left on device") && error.contains("the partial download was removed"),
                 qPrintable(error));
        QCOMPARE(filesUnder(m_dir.path()), QStringList());
    }

    void tooLittleDiskSpaceIsRefusedBeforeTheTransfer()
    {
        TestHttpServer server;
        const QByteArray body = payload(1000, 9);
        server.serve("/data.bin", body);
        const DatasetEntry e = entry({server.url("/data.bin")}, body, qint64(1e14)); // a published size of 91 TiB
        QString error;
        QVERIFY(!DatasetFetcher::fetch(e, m_options, &error));
        QVERIFY2(error.contains("not enough disk space for data.bin") && error.contains("is free at " + m_dir.path()),
                 qPrintable(error));
        QCOMPARE(server.requests("/data.bin"), 0);
    }

    void aFilePlacedByHandIsVerifiedNotDownloaded()
    {
        TestHttpServer server;
        const QByteArray body = payload(8000, 10);
        server.serve("/data.bin", body);
        const DatasetEntry e = entry({server.url("/data.bin")}, body);
        // Missing: the error says what to do, with the exact path.
        try {
            DatasetCache::require(e, e.files[0]);
            QFAIL("no error for a missing file");
        } catch (const DataError& x) {
            QVERIFY2(x.message().contains("trainbench-cli datasets fetch set") &&
                         x.message().contains(server.url("/data.bin")) &&
                         x.message().contains("place it at " + DatasetCache::path(e, e.files[0])),
                     x.what());
        }
        QDir().mkpath(DatasetCache::folder(e));
        QFile f(DatasetCache::path(e, e.files[0]));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(body);
        f.close();
        QCOMPARE(DatasetCache::state(e), DatasetCache::State::Unverified);
        QCOMPARE(DatasetCache::require(e, e.files[0]), DatasetCache::path(e, e.files[0])); // verified on first use
        QCOMPARE(DatasetCache::state(e), DatasetCache::State::Verified);
        QString error;
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(server.requests("/data.bin"), 0);
        // A changed file is checked again, and refused; it stays where the user put it.
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(body.left(100));
        f.close();
        QCOMPARE(DatasetCache::state(e), DatasetCache::State::Unverified);
        try {
            DatasetCache::require(e, e.files[0]);
            QFAIL("a wrong file was accepted");
        } catch (const DataError& x) {
            QVERIFY2(x.message().contains("is expected") && x.message().contains(sha256(body)), x.what());
        }
        QVERIFY(QFileInfo::exists(DatasetCache::path(e, e.files[0])));
    }

    void anUnverifiableEntryNeedsAChecksumFromTheUser()
    {
        TestHttpServer server;
        const QByteArray body = payload(6000, 11);
        server.serve("/data.bin", body);
        const DatasetEntry e = entry({server.url("/data.bin")}, body, -1, false);
        QVERIFY(!e.verifiable());
        QString error;
        QVERIFY(!DatasetFetcher::fetch(e, m_options, &error));
        QVERIFY2(error.contains("no published checksum") && error.contains("--sha256"), qPrintable(error));
        QCOMPARE(server.requests("/data.bin"), 0);
        m_options.userChecksums.insert(QString(), sha256(payload(6000, 12))); // the wrong one
        QVERIFY(!DatasetFetcher::fetch(e, m_options, &error));
        QVERIFY2(error.contains("checksum mismatch") && error.contains("the checksum you gave"), qPrintable(error));
        QCOMPARE(filesUnder(m_dir.path()), QStringList());
        m_options.userChecksums.insert(QString(), sha256(body).toUpper());
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        const DatasetCache::FileState s = DatasetCache::fileState(e, e.files[0]);
        QCOMPARE(s.state, DatasetCache::State::Verified);
        QVERIFY(s.userChecksum);
    }

    void cancellingKeepsThePartForLater()
    {
        TestHttpServer server;
        const QByteArray body = payload(400000, 13);
        TestHttpServer::Behaviour b;
        b.chunk = 4096;
        b.chunkDelayMs = 20;
        server.serve("/data.bin", body, b);
        const DatasetEntry e = entry({server.url("/data.bin")}, body, body.size());
        std::atomic<bool> cancel{false};
        m_options.cancel = &cancel;
        m_options.progress = [&](const FetchProgress& p) {
            if (p.fileDone > 20000)
                cancel = true;
        };
        QString error;
        QVERIFY(!DatasetFetcher::fetch(e, m_options, &error));
        QVERIFY2(error.contains("cancelled"), qPrintable(error));
        QVERIFY(!QFileInfo::exists(DatasetCache::path(e, e.files[0])));
        QVERIFY(QFileInfo(DatasetCache::partialPath(e, e.files[0])).size() > 0);
        QString removeError;
        QVERIFY2(DatasetCache::remove(e, &removeError), qPrintable(removeError));
        QCOMPARE(filesUnder(m_dir.path()), QStringList());
    }

    void aLockedSetWaitsForTheOtherProcess()
    {
        // Another process holds the set's lock (a QLockFile naming a live process: `sleep`):
        // the fetch waits and says so, and can be cancelled while it waits; a removal is
        // refused. Once that process is gone its lock is stale and the fetch goes ahead.
        TestHttpServer server;
        const QByteArray body = payload(1000, 14);
        server.serve("/data.bin", body);
        const DatasetEntry e = entry({server.url("/data.bin")}, body);
        QProcess holder;
        holder.start("sleep", {"60"});
        QVERIFY(holder.waitForStarted());
        QDir().mkpath(QFileInfo(DatasetCache::lockPath(e)).absolutePath());
        QFile lock(DatasetCache::lockPath(e));
        QVERIFY(lock.open(QIODevice::WriteOnly));
        lock.write(QByteArray::number(holder.processId()) + "\nsleep\n" + QSysInfo::machineHostName().toUtf8() + "\n");
        lock.close();
        std::atomic<bool> cancel{false};
        m_options.cancel = &cancel;
        m_options.message = [&](const QString& m) {
            m_messages << m;
            if (m.contains("waiting"))
                cancel = true;
        };
        QString error;
        QVERIFY(!DatasetFetcher::fetch(e, m_options, &error));
        QVERIFY2(error.contains("cancelled while waiting for another process"), qPrintable(error));
        QVERIFY2(m_messages.join("\n").contains(QStringLiteral("pid %1").arg(holder.processId())),
                 qPrintable(m_messages.join("\n")));
        QCOMPARE(server.requests("/data.bin"), 0);
        QString removeError;
        QVERIFY(!DatasetCache::remove(e, &removeError));
        QVERIFY2(removeError.contains("being fetched by another process"), qPrintable(removeError));
        holder.kill();
        holder.waitForFinished();
        cancel = false;
        QVERIFY2(DatasetFetcher::fetch(e, m_options, &error), qPrintable(error));
        QCOMPARE(server.requests("/data.bin"), 1);
    }
};

QTEST_GUILESS_MAIN(TestDatasetFetcher)
#include "tst_datasetfetcher.moc"
