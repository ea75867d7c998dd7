// The data-set catalogue's own table: every entry well formed (addresses, checksums, sizes,
// licence, the place each checksum is published, the recipe), the required sets present, the
// docs showing every entry and checksum; and parse() refusing each kind of malformed entry.

#include <data/DataSourceRegistry.h>
#include <data/DatasetCatalog.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTest>
#include <QUrl>

using namespace tb::data;

namespace {

QJsonObject goodEntry()
{
    return QJsonObject{{"id", "x"},
                       {"title", "X"},
                       {"task", "regression"},
                       {"licence", "CC0"},
                       {"split", "random"},
                       {"checksum_source", "here"},
                       {"files", QJsonArray{QJsonObject{{"name", "x.csv"},
                                                        {"urls", QJsonArray{"https://example.org/x.csv"}},
                                                        {"sha256", QString(64, QLatin1Char('a'))}}}},
                       {"load", QJsonObject{{"format", "csv"}, {"file", "x.csv"}, {"target", -1}}}};
}

/// The problem parse() reports for @p e, or "" when it accepts it.
QString problemOf(const QJsonObject& e)
{
    QStringList problems;
    const auto list = DatasetCatalog::parse(QJsonDocument(QJsonArray{e}).toJson(), "t.json", &problems);
    return list.isEmpty() ? problems.value(0, "(no entry and no problem)") : QString();
}

QJsonObject withFile(QJsonObject e, const QString& key, const QJsonValue& v)
{
    QJsonArray files = e.value("files").toArray();
    QJsonObject f = files[0].toObject();
    if (v.isUndefined())
        f.remove(key);
    else
        f.insert(key, v);
    files[0] = f;
    e.insert("files", files);
    return e;
}

} // namespace

class TestDatasetCatalog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void theBuiltInTableIsWellFormed()
    {
        QStringList problems;
        const auto entries = DatasetCatalog::parse(DatasetCatalog::builtInJson(), "built in", &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));
        QCOMPARE(QJsonDocument::fromJson(DatasetCatalog::builtInJson()).array().size(), entries.size());
        static const QRegularExpression sha256("^[0-9a-f]{64}$"), md5("^[0-9a-f]{32}$");
        for (const DatasetEntry& e : entries) {
            QVERIFY2(!e.title.isEmpty() && !e.description.isEmpty() && !e.papers.isEmpty() && !e.licence.isEmpty(),
                     qPrintable(e.id));
            QVERIFY2(QUrl(e.homepage).scheme().startsWith("http") && QUrl(e.licenceUrl).scheme().startsWith("http"),
                     qPrintable(e.id));
            QVERIFY2(!e.splitNote.isEmpty() && e.rows > 0 && e.features > 0, qPrintable(e.id));
            QVERIFY2((e.task == u"classification") == (e.classes >= 2), qPrintable(e.id));
            if (e.verifiable()) {
                // Where the checksums are published: a project and the file that records them.
                QVERIFY2(e.unverifiable.isEmpty(), qPrintable(e.id));
                QVERIFY2(QRegularExpression("(torchvision|scikit-learn|TensorFlow Datasets|UCIData\\.jl)")
                             .match(e.checksumSource)
                             .hasMatch(),
                         qPrintable(e.id + ": " + e.checksumSource));
                QVERIFY2(QRegularExpression("[a-z0-9_/]+\\.(py|txt|jl)").match(e.checksumSource).hasMatch(),
                         qPrintable(e.id + ": " + e.checksumSource));
            } else {
                QVERIFY2(e.checksumSource.isEmpty() && !e.unverifiable.isEmpty(), qPrintable(e.id));
            }
            for (const DatasetFileInfo& f : e.files) {
                QVERIFY2(!f.urls.isEmpty(), qPrintable(e.id + "/" + f.name));
                for (const QString& u : f.urls) {
                    const QUrl url(u, QUrl::StrictMode);
                    QVERIFY2(url.isValid() && (url.scheme() == u"https" || url.scheme() == u"http") &&
                                 url.host().contains('.') && url.path().size() > 1 && url.query().isEmpty(),
                             qPrintable(u));
                }
                if (e.verifiable())
                    QVERIFY2(f.algorithm == u"sha256" ? sha256.match(f.checksum).hasMatch()
                                                      : f.algorithm == u"md5" && md5.match(f.checksum).hasMatch(),
                             qPrintable(e.id + "/" + f.name + ": " + f.checksum));
                QVERIFY2(f.expectedSize() > 0, qPrintable(e.id + "/" + f.name));
            }
            // A round trip through toJson() gives the same entry.
            const auto again = DatasetCatalog::parse(QJsonDocument(QJsonArray{DatasetCatalog::toJson(e)}).toJson(), "built in", &problems);
            QVERIFY2(problems.isEmpty() && again.size() == 1, qPrintable(problems.join("\n")));
            QCOMPARE(DatasetCatalog::toJson(again.first()), DatasetCatalog::toJson(e));
        }
    }

    void thePapersSetsAreThere()
    {
        for (const char* id : {"mnist", "cifar10", "covtype", "adult", "california_housing", "ccpp", "ailerons",
                               "bank_marketing", "bike_sharing", "beijing_pm25"}) {
            const DatasetEntry* e = DatasetCatalog::find(QLatin1String(id));
            QVERIFY2(e, id);
            QCOMPARE(e->origin, QStringLiteral("built in"));
            // Each is a data source of its own name, with the entry's task and split.
            const DataSourceEntry* s = DataSourceRegistry::find(QLatin1String(id));
            QVERIFY2(s, id);
            QCOMPARE(*s->info.task == tb::Task::Regression, e->task == u"regression");
            QCOMPARE(s->info.testSet == tb::DataSourceInfo::TestSet::Own, e->split == u"published");
            if (e->split == u"random")
                QCOMPARE(s->info.testFraction, e->testFraction);
        }
        for (const char* id : {"mnist", "cifar10", "covtype", "adult", "california_housing", "ailerons"})
            QVERIFY2(DatasetCatalog::find(QLatin1String(id))->verifiable(), id);
    }

    void theDocsShowEveryEntryAndChecksum()
    {
        QFile doc(QStringLiteral(TB_SOURCE_DIR "/docs/experiments.md"));
        QVERIFY(doc.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(doc.readAll());
        for (const DatasetEntry& e : DatasetCatalog::entries()) {
            QVERIFY2(text.contains("| `" + e.id + "` |"), qPrintable(e.id));
            for (const DatasetFileInfo& f : e.files) {
                QVERIFY2(text.contains(f.name), qPrintable(f.name));
                if (!f.checksum.isEmpty())
                    QVERIFY2(text.contains(f.checksum), qPrintable(e.id + ": " + f.checksum));
            }
        }
    }

    void malformedEntriesAreRefusedWithTheKey()
    {
        QCOMPARE(problemOf(goodEntry()), QString());
        QJsonObject e = goodEntry();
        e.insert("id", "Bad Name");
        QVERIFY(problemOf(e).contains("id: expected a name"));
        e = goodEntry();
        e.insert("task", "clustering");
        QVERIFY(problemOf(e).contains("task:"));
        e = goodEntry();
        e.remove("licence");
        QVERIFY(problemOf(e).contains("licence: missing"));
        QVERIFY(problemOf(withFile(goodEntry(), "urls", QJsonArray{"ftp://example.org/x.csv"})).contains("not an http(s) address"));
        QVERIFY(problemOf(withFile(goodEntry(), "urls", QJsonArray{"https:///x.csv"})).contains("not an http(s) address"));
        QVERIFY(problemOf(withFile(goodEntry(), "urls", QJsonArray{"https://example.org/"})).contains("not an http(s) address"));
        QVERIFY(problemOf(withFile(goodEntry(), "urls", QJsonArray{})).contains("no address"));
        QVERIFY(problemOf(withFile(goodEntry(), "sha256", QString(63, 'a'))).contains("expected 64 lower-case hex digits"));
        QVERIFY(problemOf(withFile(goodEntry(), "sha256", QString(64, 'A'))).contains("expected 64 lower-case hex digits"));
        QVERIFY(problemOf(withFile(withFile(goodEntry(), "sha256", QJsonValue::Undefined), "md5", QString(31, 'b')))
                    .contains("expected 32 lower-case hex digits"));
        QVERIFY(problemOf(withFile(goodEntry(), "md5", QString(32, 'b'))).contains("one checksum, not both"));
        QVERIFY(problemOf(withFile(goodEntry(), "size", -5)).contains("positive number of bytes"));
        QVERIFY(problemOf(withFile(goodEntry(), "name", "../x.csv")).contains("without '/'"));
        e = goodEntry();
        e.remove("checksum_source");
        QVERIFY(problemOf(e).contains("checksum_source: missing"));
        e = withFile(goodEntry(), "sha256", QJsonValue::Undefined);
        e.remove("checksum_source");
        QVERIFY(problemOf(e).contains("unverifiable: missing"));
        e.insert("unverifiable", "none published");
        QCOMPARE(problemOf(e), QString());
        e = goodEntry();
        e.insert("load", QJsonObject{{"format", "parquet"}, {"file", "x.csv"}});
        QVERIFY(problemOf(e).contains("load.format"));
        e.insert("load", QJsonObject{{"format", "csv"}, {"file", "y.csv"}, {"target", 0}});
        QVERIFY(problemOf(e).contains("load.file: \"y.csv\" is not one of the entry's files"));
        e.insert("load", QJsonObject{{"format", "csv"}, {"file", "x.csv"}});
        QVERIFY(problemOf(e).contains("load.target: missing"));
        e = goodEntry();
        e.insert("split", "published");
        QVERIFY(problemOf(e).contains("\"published\" needs load.test_file"));
        e = goodEntry();
        e.insert("test_fraction", 1.5);
        QVERIFY(problemOf(e).contains("test_fraction"));
        // Two entries of one name: the second is refused.
        QStringList problems;
        const auto list = DatasetCatalog::parse(QJsonDocument(QJsonArray{goodEntry(), goodEntry()}).toJson(), "t.json", &problems);
        QCOMPARE(list.size(), 1);
        QVERIFY(problems.value(0).contains("given twice"));
        // A catalogue of one's own cannot take a built-in source's name.
        e = goodEntry();
        e.insert("id", "csv");
        QVERIFY(problemOf(e).contains("id: \"csv\" is the name of a built-in data source"));
        QVERIFY(DatasetCatalog::parse("{", "t.json", &problems).isEmpty());
        QVERIFY(problems.last().contains("not a JSON array"));
    }
};

QTEST_GUILESS_MAIN(TestDatasetCatalog)
#include "tst_datasetcatalog.moc"
