// `trainbench-cli datasets` as a user runs it, against a local HTTP server (127.0.0.1) serving a
// copy of MNIST's files under a mirror address: the published checksums refuse a copy that is not
// MNIST and keep nothing; with a catalogue file giving the copy's checksums ($TRAINBENCH_DATASETS_CATALOG)
// the same command fetches, verifies and keeps it, an experiment trains on it, two processes
// fetching at once download it once, and a removal needs confirmation. With no server: a clear
// error naming the address and where a file fetched by hand goes.

#include "TestHttpServer.h"

#include <CliProcess.h>
#include <QCryptographicHash>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>

using tb::test::TestHttpServer;

namespace {

struct Output {
    int code = -1;
    QString out, err;
};

QByteArray be32(quint32 v)
{
    const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    return QByteArray(b, 4);
}

QByteArray gzip(const QByteArray& raw)
{
    // gzip framing around zlib's deflate (windowBits 31), as the published .gz files are.
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    QByteArray out(int(deflateBound(&z, uLong(raw.size()))) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.constData()));
    z.avail_in = uInt(raw.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.truncate(qsizetype(z.total_out));
    deflateEnd(&z);
    return out;
}

/// Small files in MNIST's layout (a "copy" of MNIST that is not MNIST), by file name.
QMap<QString, QByteArray> mnistCopy()
{
    auto images = [](int n) {
        // Pseudo-random pixels: they do not compress, so a slow server takes a while to send them.
        QByteArray b = be32(0x803) + be32(quint32(n)) + be32(28) + be32(28);
        quint32 x = quint32(n);
        for (int i = 0; i < n * 784; ++i) {
            x = x * 1664525u + 1013904223u;
            b += char(x >> 24);
        }
        return b;
    };
    auto labels = [](int n) {
        QByteArray b = be32(0x801) + be32(quint32(n));
        for (int i = 0; i < n; ++i)
            b += char(i % 10);
        return b;
    };
    return {{"train-images-idx3-ubyte.gz", gzip(images(400))},
            {"train-labels-idx1-ubyte.gz", gzip(labels(400))},
            {"t10k-images-idx3-ubyte.gz", gzip(images(50))},
            {"t10k-labels-idx1-ubyte.gz", gzip(labels(50))}};
}

} // namespace

class TestCliDatasets : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QMap<QString, QByteArray> m_copy = mnistCopy();

    QString cache() const { return m_dir.filePath("cache"); }

    QProcessEnvironment environment(bool ownCatalogue) const
    {
        QProcessEnvironment env =
            tb::testsupport::cliEnvironment(m_dir.filePath("home"), QStringLiteral(TB_PLUGIN_BUILD_DIR));
        env.insert("TRAINBENCH_DATASETS_DIR", cache());
        env.remove("TRAINBENCH_DATASETS_MIRROR");
        for (const char* v : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
            env.remove(v); // loopback only
        if (ownCatalogue)
            env.insert("TRAINBENCH_DATASETS_CATALOG", m_dir.filePath("catalogue.json"));
        else
            env.remove("TRAINBENCH_DATASETS_CATALOG");
        return env;
    }

    Output cli(const QStringList& args, bool ownCatalogue = false)
    {
        QProcess p;
        p.setProcessEnvironment(environment(ownCatalogue));
        p.start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"), args);
        p.closeWriteChannel(); // stdin is no terminal: a removal cannot be confirmed by typing
        Output o;
        if (!p.waitForFinished(120000))
            return o;
        o.code = p.exitCode();
        o.out = QString::fromUtf8(p.readAllStandardOutput());
        o.err = QString::fromUtf8(p.readAllStandardError());
        return o;
    }

    /// The built-in mnist entry with the copy's MD5s: what a site's own catalogue would say.
    void writeCatalogue()
    {
        const QJsonObject builtIn = [&] {
            const Output o = cli({"datasets", "list", "--json"});
            for (const QJsonValue& v : QJsonDocument::fromJson(o.out.toUtf8()).object().value("datasets").toArray())
                if (v.toObject().value("id") == "mnist")
                    return v.toObject();
            return QJsonObject();
        }();
        QVERIFY(!builtIn.isEmpty());
        QJsonObject e = builtIn;
        for (const char* k : {"origin", "cached", "path"})
            e.remove(k);
        QJsonArray files;
        for (const QJsonValue& v : builtIn.value("files").toArray()) {
            QJsonObject f = v.toObject();
            f.insert("md5", QString::fromLatin1(QCryptographicHash::hash(m_copy.value(f.value("name").toString()),
                                                                         QCryptographicHash::Md5)
                                                    .toHex()));
            f.insert("size", double(m_copy.value(f.value("name").toString()).size()));
            files.append(f);
        }
        e.insert("files", files);
        e.insert("checksum_source", "tst_cli_datasets (the test server's copy)");
        QFile out(m_dir.filePath("catalogue.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(QJsonArray{e}).toJson());
    }

    void serveCopy(TestHttpServer& server, int chunkDelayMs = 0)
    {
        TestHttpServer::Behaviour b;
        b.chunk = 4096;
        b.chunkDelayMs = chunkDelayMs;
        for (auto it = m_copy.begin(); it != m_copy.end(); ++it)
            server.serve("/mirror/mnist/" + it.key(), it.value(), b);
    }

    QStringList cachedFiles() const
    {
        QStringList out;
        QDir d(cache() + "/mnist");
        for (const QString& f : d.entryList(QDir::Files | QDir::Hidden))
            out << f;
        return out;
    }

private Q_SLOTS:
    void init()
    {
        QDir(cache()).removeRecursively();
    }

    void listShowsEverySetAndItsState()
    {
        const Output o = cli({"datasets"});
        QCOMPARE(o.code, 0);
        QVERIFY2(o.out.contains("Data-set cache: " + cache()), qPrintable(o.out));
        for (const char* id : {"mnist", "cifar10", "covtype", "adult", "california_housing", "ccpp"})
            QVERIFY2(o.out.contains(QRegularExpression(QStringLiteral("\\n%1 +\\w+ +[≈ 0-9.]+ [KM]iB +(md5|sha256|unverifiable) +not fetched").arg(id))),
                     qPrintable(o.out));
        const Output j = cli({"datasets", "list", "--json"});
        QCOMPARE(j.code, 0);
        const QJsonArray sets = QJsonDocument::fromJson(j.out.toUtf8()).object().value("datasets").toArray();
        QVERIFY(sets.size() >= 10);
    }

    void theRealMnistRefusesACopyThatIsNotMnist()
    {
        // A file of the published size but other bytes: the published MD5 refuses it.
        TestHttpServer server;
        serveCopy(server);
        server.serve("/mirror/mnist/train-images-idx3-ubyte.gz", QByteArray(9912422, 'x'));
        const Output o = cli({"datasets", "fetch", "mnist", "--mirror", server.url("/mirror")});
        QCOMPARE(o.code, 3);
        QVERIFY2(o.err.contains("checksum mismatch") && o.err.contains("f68b3c2dcbeaaa9fbdd348bbdeb94873") &&
                     o.err.contains("published in torchvision") && o.err.contains("nothing was kept"),
                 qPrintable(o.err));
        QCOMPARE(cachedFiles(), QStringList());
    }

    void fetchVerifyPathAndTrain()
    {
        writeCatalogue();
        TestHttpServer server;
        serveCopy(server);
        const Output o = cli({"datasets", "fetch", "mnist", "--mirror", server.url("/mirror")}, true);
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QVERIFY2(o.err.contains("downloading train-images-idx3-ubyte.gz (1/4") && o.err.contains("verifying"),
                 qPrintable(o.err));
        QVERIFY2(o.out.contains("mnist: " + cache() + "/mnist (verified: md5 published in tst_cli_datasets"), qPrintable(o.out));
        for (auto it = m_copy.begin(); it != m_copy.end(); ++it) {
            QFile f(cache() + "/mnist/" + it.key());
            QVERIFY(f.open(QIODevice::ReadOnly));
            QCOMPARE(f.readAll(), it.value());
        }
        const Output list = cli({"datasets", "list"}, true);
        QVERIFY2(list.out.contains(QRegularExpression("\\nmnist +classification +[0-9.]+ KiB +md5 +cached, verified  \\(from ")),
                 qPrintable(list.out));
        QCOMPARE(cli({"datasets", "path", "mnist"}, true).out.trimmed(), cache() + "/mnist");
        QCOMPARE(cli({"datasets", "path", "mnist", "t10k-labels-idx1-ubyte.gz"}, true).out.trimmed(),
                 cache() + "/mnist/t10k-labels-idx1-ubyte.gz");
        const Output v = cli({"datasets", "verify", "mnist"}, true);
        QVERIFY2(v.code == 0 && v.out.count(": ok (md5:") == 4, qPrintable(v.out + v.err));
        // An experiment on the set, as a user would write it.
        QFile spec(m_dir.filePath("mnist.json"));
        QVERIFY(spec.open(QIODevice::WriteOnly));
        spec.write(R"({"name": "MNIST ridge", "kind": "learning-curve", "seed": 1,
                       "dataset": {"source": "mnist", "train_limit": 200},
                       "algorithms": [{"id": "linear.ridge", "params": {"ridge": 1.0}}]})");
        spec.close();
        const Output run = cli({"run", spec.fileName(), "--no-db", "--quiet"}, true);
        QVERIFY2(run.code == 0 && run.out.contains("test acc"), qPrintable(run.out + run.err));
        // A second fetch finds everything there and downloads nothing.
        const int before = server.requests("/mirror/mnist/train-images-idx3-ubyte.gz");
        QCOMPARE(cli({"datasets", "fetch", "mnist", "--mirror", server.url("/mirror")}, true).code, 0);
        QCOMPARE(server.requests("/mirror/mnist/train-images-idx3-ubyte.gz"), before);
    }

    void twoProcessesFetchingAtOnceDownloadOnce()
    {
        writeCatalogue();
        TestHttpServer server;
        serveCopy(server, 10); // slow enough that the two overlap
        QProcess a, b;
        for (QProcess* p : {&a, &b}) {
            p->setProcessEnvironment(environment(true));
            p->start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"),
                     {"datasets", "fetch", "mnist", "--mirror", server.url("/mirror")});
        }
        QVERIFY(a.waitForFinished(120000) && b.waitForFinished(120000));
        const QString errors = QString::fromUtf8(a.readAllStandardError() + b.readAllStandardError());
        QVERIFY2(a.exitCode() == 0 && b.exitCode() == 0, qPrintable(errors));
        for (auto it = m_copy.begin(); it != m_copy.end(); ++it)
            QCOMPARE(server.requests("/mirror/mnist/" + it.key()), 1);
        QVERIFY2(errors.contains("is fetching mnist; waiting for it"), qPrintable(errors));
        const Output v = cli({"datasets", "verify", "mnist"}, true);
        QVERIFY2(v.code == 0, qPrintable(v.err)); // no torn file
    }

    void removingAsksForConfirmation()
    {
        writeCatalogue();
        TestHttpServer server;
        serveCopy(server);
        QCOMPARE(cli({"datasets", "fetch", "mnist", "--mirror", server.url("/mirror")}, true).code, 0);
        const Output no = cli({"datasets", "remove", "mnist"}, true);
        QCOMPARE(no.code, 2);
        QVERIFY2(no.err.contains("this would delete " + cache() + "/mnist") && no.err.contains("confirm with --yes"),
                 qPrintable(no.err));
        QCOMPARE(cachedFiles().size(), 8); // four files and their stamps
        const Output yes = cli({"datasets", "remove", "mnist", "--yes"}, true);
        QCOMPARE(yes.code, 0);
        QVERIFY(!QFileInfo::exists(cache() + "/mnist"));
        // The experiment now says how to get the set back.
        QFile spec(m_dir.filePath("mnist2.json"));
        QVERIFY(spec.open(QIODevice::WriteOnly));
        spec.write(R"({"name": "x", "kind": "learning-curve", "dataset": {"source": "mnist"},
                       "algorithms": [{"id": "linear.ridge"}]})");
        spec.close();
        const Output run = cli({"run", spec.fileName(), "--no-db", "--quiet"}, true);
        QCOMPARE(run.code, 3);
        QVERIFY2(run.err.contains("`trainbench-cli datasets fetch mnist`") &&
                     run.err.contains("place it at " + cache() + "/mnist/train-images-idx3-ubyte.gz"),
                 qPrintable(run.err));
    }

    void withNoNetworkTheErrorSaysWhereToPutTheFile()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const QString mirror = QStringLiteral("http://127.0.0.1:%1/mirror").arg(probe.serverPort());
        probe.close();
        const Output o = cli({"datasets", "fetch", "california_housing", "--mirror", mirror});
        QCOMPARE(o.code, 7);
        QVERIFY2(o.err.contains(mirror + "/california_housing/cal_housing.tgz: Connection refused") &&
                     o.err.contains("download https://ndownloader.figshare.com/files/5976036 or "
                                    "https://www.dcc.fc.up.pt/~ltorgo/Regression/cal_housing.tgz by hand and place it at " +
                                    cache() + "/california_housing/cal_housing.tgz"),
                 qPrintable(o.err));
    }

    void badUsage()
    {
        QCOMPARE(cli({"datasets", "fetch", "mnist8m"}).code, 2);
        QCOMPARE(cli({"datasets", "frobnicate"}).code, 2);
        QCOMPARE(cli({"datasets", "fetch"}).code, 2);
        QCOMPARE(cli({"datasets", "fetch", "mnist", "--timeout", "-3"}).code, 2);
        const Output ccpp = cli({"datasets", "fetch", "ccpp"});
        QCOMPARE(ccpp.code, 2);
        QVERIFY2(ccpp.err.contains("no published checksum") && ccpp.err.contains("--sha256"), qPrintable(ccpp.err));
        QFile bad(m_dir.filePath("catalogue.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"([{"id": "csv", "title": "x"}])");
        bad.close();
        const Output warned = cli({"datasets", "list"}, true);
        QCOMPARE(warned.code, 0);
        QVERIFY2(warned.err.contains("warning: " + m_dir.filePath("catalogue.json") + ": entry \"csv\": id:"), qPrintable(warned.err));
    }
};

QTEST_GUILESS_MAIN(TestCliDatasets)
#include "tst_cli_datasets.moc"
