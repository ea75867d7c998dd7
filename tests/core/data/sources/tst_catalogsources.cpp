// The catalogue's sets as sources ({"source": "mnist"} …): each recipe read from small files in
// the published layouts (IDX, CIFAR-10's binary tar, Adult's two files, tar, zip and xlsx
// members), the papers' splits and encodings; a set that is not fetched, or a file placed by
// hand that does not match, is a clear error.
//
// The real files cannot be downloaded here, so the test writes small files in their layouts and
// a stamp saying they were verified (DatasetCache::writeStamp): it tests the reading. Checking
// the checksums themselves is tst_datasetfetcher's (and the "hand-placed file" case below).

#include <data/DataError.h>
#include <data/DataSource.h>
#include <data/DatasetCache.h>
#include <data/DatasetCatalog.h>

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

using namespace tb::data;

namespace {

QByteArray archiveOf(const QList<QPair<QString, QByteArray>>& members, bool zip, bool gzip)
{
    archive* a = archive_write_new();
    if (zip)
        archive_write_set_format_zip(a);
    else
        archive_write_set_format_pax_restricted(a);
    if (gzip)
        archive_write_add_filter_gzip(a);
    QByteArray out(8 << 20, '\0');
    size_t used = 0;
    archive_write_open_memory(a, out.data(), size_t(out.size()), &used);
    for (const auto& [name, data] : members) {
        archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, name.toUtf8().constData());
        archive_entry_set_size(e, data.size());
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_write_header(a, e);
        archive_write_data(a, data.constData(), size_t(data.size()));
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
    out.truncate(qsizetype(used));
    return out;
}

QByteArray be32(quint32 v)
{
    const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    return QByteArray(b, 4);
}

QByteArray idxImages(int n)
{
    QByteArray b = be32(0x803) + be32(quint32(n)) + be32(28) + be32(28);
    for (int i = 0; i < n * 784; ++i)
        b += char((i * 7) % 256);
    return b;
}

QByteArray idxLabels(int n)
{
    QByteArray b = be32(0x801) + be32(quint32(n));
    for (int i = 0; i < n; ++i)
        b += char(i % 10);
    return b;
}

const DatasetEntry& entry(const char* id)
{
    const DatasetEntry* e = DatasetCatalog::find(QLatin1String(id));
    if (!e)
        qFatal("no catalogue entry %s", id);
    return *e;
}

/// Puts @p bytes where the cache keeps @p name of @p id, with a stamp saying it was verified.
void place(const char* id, const QString& name, const QByteArray& bytes, bool gzipped = false)
{
    const DatasetEntry& e = entry(id);
    const DatasetFileInfo& f = *e.file(name);
    QDir().mkpath(DatasetCache::folder(e));
    const QString path = DatasetCache::path(e, f);
    if (gzipped) {
        gzFile gz = gzopen(QFile::encodeName(path).constData(), "wb");
        gzwrite(gz, bytes.constData(), unsigned(bytes.size()));
        gzclose(gz);
    } else {
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(path));
    }
    QString error;
    const QString checksum = e.verifiable() ? f.algorithm + ":" + f.checksum : QStringLiteral("sha256:") + QString(64, 'e');
    if (!DatasetCache::writeStamp(e, f, checksum, !e.verifiable(), &error))
        qFatal("%s", qPrintable(error));
}

DatasetPair load(const QJsonObject& spec)
{
    try {
        return DataSource::load(spec, QString());
    } catch (const DataError& e) {
        qWarning("%s", e.what()); // the test that fails says why
        throw;
    }
}

} // namespace

class TestCatalogSources : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("TRAINBENCH_DATASETS_DIR", m_dir.path().toUtf8());
    }

    void aSetNotFetchedSaysHowToGetIt()
    {
        try {
            load({{"source", "covtype"}});
            QFAIL("covtype loaded from an empty cache");
        } catch (const DataError& e) {
            const DatasetEntry& c = entry("covtype");
            QVERIFY2(e.text().contains("`trainbench-cli datasets fetch covtype`") &&
                         e.text().contains("https://ndownloader.figshare.com/files/5976039") &&
                         e.text().contains("place it at " + DatasetCache::path(c, c.files[0])),
                     e.what());
        }
    }

    void aFilePlacedByHandIsCheckedAgainstThePublishedChecksum()
    {
        const DatasetEntry& m = entry("mnist");
        QDir().mkpath(DatasetCache::folder(m));
        for (const DatasetFileInfo& f : m.files) {
            QFile out(DatasetCache::path(m, f));
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write("not mnist");
        }
        try {
            load({{"source", "mnist"}});
            QFAIL("a wrong MNIST file was used");
        } catch (const DataError& e) {
            QVERIFY2(e.text().contains("its md5 is") && e.text().contains("f68b3c2dcbeaaa9fbdd348bbdeb94873") &&
                         e.text().contains("published in torchvision"),
                     e.what());
        }
        QString error;
        QVERIFY(DatasetCache::remove(m, &error));
    }

    void mnistReadsItsFourIdxFiles()
    {
        place("mnist", "train-images-idx3-ubyte.gz", idxImages(30), true);
        place("mnist", "train-labels-idx1-ubyte.gz", idxLabels(30), true);
        place("mnist", "t10k-images-idx3-ubyte.gz", idxImages(10), true);
        place("mnist", "t10k-labels-idx1-ubyte.gz", idxLabels(10), true);
        const DatasetPair p = load({{"source", "mnist"}});
        QCOMPARE(p.train.rows(), 30);
        QCOMPARE(p.test.rows(), 10);
        QCOMPARE(p.train.inputs(), 784);
        QCOMPARE(p.train.classNames.size(), 10);
        const DatasetPair limited = load({{"source", "mnist"}, {"train_limit", 12}, {"test_limit", 4}, {"seed", 3}});
        QCOMPARE(limited.train.rows(), 12);
        QCOMPARE(limited.test.rows(), 4);
        QCOMPARE(DataSource::describe({{"source", "mnist"}, {"train_limit", 12}}),
                 QStringLiteral("MNIST handwritten digits (catalogue \"mnist\"), train 12"));
    }

    void cifar10ReadsTheBinaryBatches()
    {
        QList<QPair<QString, QByteArray>> members;
        auto batch = [](int records, int first) {
            QByteArray b;
            for (int r = 0; r < records; ++r) {
                b += char((first + r) % 10);
                b += QByteArray(3072, char(r * 40));
            }
            return b;
        };
        for (int i = 1; i <= 5; ++i)
            members << qMakePair(QStringLiteral("cifar-10-batches-bin/data_batch_%1.bin").arg(i), batch(4, 2 * i));
        members << qMakePair(QStringLiteral("cifar-10-batches-bin/test_batch.bin"), batch(3, 0));
        members << qMakePair(QStringLiteral("cifar-10-batches-bin/batches.meta.txt"),
                             QByteArray("airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n\n"));
        place("cifar10", "cifar-10-binary.tar.gz", archiveOf(members, false, true));
        const DatasetPair p = load({{"source", "cifar10"}});
        QCOMPARE(p.train.rows(), 20);
        QCOMPARE(p.test.rows(), 3);
        QCOMPARE(p.train.inputs(), 3072);
        QCOMPARE(p.train.classNames.first(), QStringLiteral("airplane"));
        QCOMPARE(p.train.labels[0], 2); // data_batch_1's first record
        QCOMPARE(p.train.x(1, 0), 40 / 255.0);
    }

    void adultEncodesItsCategoriesAsTheTrainingFile()
    {
        // Adult's layout: no header, ", " separators, "?" for missing, and a test file with a
        // first line to skip and labels ending in ".".
        const QByteArray train = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n"
                                 "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K\n"
                                 "38, Private, 215646, HS-grad, 9, Divorced, ?, Not-in-family, White, Male, 0, 0, 40, United-States, >50K\n"
                                 "53, Private, 234721, 11th, 7, Married-civ-spouse, Handlers-cleaners, Husband, Black, Male, 0, 0, 40, Cuba, >50K\n";
        const QByteArray test = "|1x3 Cross validator\n"
                                "25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, United-States, <=50K.\n"
                                "28, Local-gov, 336951, Assoc-acdm, 12, Married-civ-spouse, Protective-serv, Husband, White, Male, 0, 0, 40, United-States, >50K.\n";
        place("adult", "adult.data", train);
        place("adult", "adult.test", test);
        const DatasetPair p = load({{"source", "adult"}});
        QCOMPARE(p.train.rows(), 4);
        QCOMPARE(p.test.rows(), 2);
        QCOMPARE(p.train.classNames, (QStringList{"<=50K", ">50K"}));
        QCOMPARE(p.test.labels, (std::vector<int>{0, 1}));
        QCOMPARE(p.train.inputs(), p.test.inputs());
        const qsizetype gov = p.train.featureNames.indexOf("workclass=State-gov");
        QVERIFY2(gov >= 0, qPrintable(p.train.featureNames.join(", ")));
        QCOMPARE(p.train.x(0, gov), 1.0);
        // "Local-gov" is no training category: all zeros in the test row.
        const qsizetype first = p.train.featureNames.indexOf("workclass=Private");
        QCOMPARE(p.test.x(1, first), 0.0);
        QCOMPARE(p.test.x(0, first), 1.0);
        // The missing occupation is filled with the training mean of each indicator (1/3).
        const qsizetype exec = p.train.featureNames.indexOf("occupation=Exec-managerial");
        QCOMPARE(p.train.x(2, exec), 1.0 / 3.0);
        QVERIFY2(p.train.description.contains("filled with the training mean"), qPrintable(p.train.description));
    }

    void californiaHousingReadsATarMember()
    {
        QByteArray data;
        for (int i = 0; i < 20; ++i)
            data += QByteArray::number(-122.0 + i) + ",37.8,41,880,129,322,126,8.3252," + QByteArray::number(100000 + i) + "\n";
        place("california_housing", "cal_housing.tgz", archiveOf({{"CaliforniaHousing/cal_housing.data", data}}, false, true));
        const DatasetPair p = load({{"source", "california_housing"}, {"seed", 1}});
        QCOMPARE(p.train.rows() + p.test.rows(), 20);
        QCOMPARE(p.test.rows(), 4); // the paper's 20 %
        QCOMPARE(p.train.inputs(), 8);
        QCOMPARE(p.train.featureNames.first(), QStringLiteral("longitude"));
        QVERIFY(p.train.y.minCoeff() >= 100000);
    }

    void aileronsPoolsItsTwoFiles()
    {
        auto rows = [](int n, int offset) {
            QByteArray b;
            for (int i = 0; i < n; ++i) {
                for (int j = 0; j < 40; ++j)
                    b += QByteArray::number(offset + i + j * 0.5) + ", ";
                b += QByteArray::number(-0.0008 * (offset + i)) + "\n";
            }
            return b;
        };
        place("ailerons", "ailerons.tgz",
              archiveOf({{"Ailerons/ailerons.data", rows(30, 0)}, {"Ailerons/ailerons.test", rows(20, 100)},
                         {"Ailerons/ailerons.domain", "climbRate: continuous.\n"}},
                        false, true));
        const DatasetPair p = load({{"source", "ailerons"}});
        QCOMPARE(p.train.rows() + p.test.rows(), 50);
        QCOMPARE(p.test.rows(), 10);
        QCOMPARE(p.train.inputs(), 40);
    }

    void ccppReadsItsSpreadsheet()
    {
        QByteArray sheet = "<?xml version=\"1.0\"?><worksheet><sheetData>"
                           "<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" t=\"s\"><v>1</v></c><c r=\"C1\" t=\"s\"><v>2</v></c>"
                           "<c r=\"D1\" t=\"s\"><v>3</v></c><c r=\"E1\" t=\"s\"><v>4</v></c></row>";
        for (int i = 2; i <= 11; ++i)
            sheet += QStringLiteral("<row r=\"%1\"><c r=\"A%1\"><v>%2</v></c><c r=\"B%1\"><v>40.5</v></c><c r=\"C%1\"><v>1010.1</v></c>"
                                    "<c r=\"D%1\"><v>80</v></c><c r=\"E%1\"><v>%3</v></c></row>")
                         .arg(i)
                         .arg(10 + i)
                         .arg(450 + i)
                         .toUtf8();
        sheet += "</sheetData></worksheet>";
        const QByteArray strings = "<?xml version=\"1.0\"?><sst><si><t>AT</t></si><si><t>V</t></si><si><t>AP</t></si>"
                                   "<si><r><t>R</t></r><r><t>H</t></r></si><si><t>PE</t></si></sst>";
        const QByteArray xlsx = archiveOf({{"xl/sharedStrings.xml", strings}, {"xl/worksheets/sheet1.xml", sheet}}, true, false);
        place("ccpp", "CCPP.zip", archiveOf({{"CCPP/Readme.txt", "x"}, {"CCPP/Folds5x2_pp.xlsx", xlsx}}, true, false));
        const DatasetPair p = load({{"source", "ccpp"}});
        QCOMPARE(p.train.rows() + p.test.rows(), 10);
        QCOMPARE(p.train.featureNames, (QStringList{"AT", "V", "AP", "RH"}));
        QVERIFY(p.train.y.minCoeff() >= 452 && p.train.y.maxCoeff() <= 461);
    }

    void beijingDropsRowsWithoutATarget()
    {
        QByteArray csv = "No,year,month,day,hour,pm2.5,DEWP,TEMP,PRES,cbwd,Iws,Is,Ir\n";
        for (int i = 1; i <= 30; ++i)
            csv += QStringLiteral("%1,2010,%2,1,%3,%4,-21,-11,1021,%5,1.79,0,0\n")
                       .arg(i)
                       .arg(1 + i % 3)
                       .arg(i % 4)
                       .arg(i % 5 == 0 ? QStringLiteral("NA") : QString::number(100 + i))
                       .arg(i % 2 ? "NW" : "cv")
                       .toUtf8();
        place("beijing_pm25", "PRSA_data_2010.1.1-2014.12.31.csv", csv);
        const DatasetPair p = load({{"source", "beijing_pm25"}});
        QCOMPARE(p.train.rows() + p.test.rows(), 24); // 6 rows without PM2.5 dropped
        QVERIFY(!p.train.featureNames.contains("No") && !p.train.featureNames.contains("day"));
        QVERIFY2(p.train.featureNames.contains("cbwd=NW") && p.train.featureNames.contains("month=3") &&
                     p.train.featureNames.contains("hour=0") && p.train.featureNames.contains("DEWP"),
                 qPrintable(p.train.featureNames.join(", ")));
        QCOMPARE(p.train.inputs(), 7 + 3 + 4 + 2); // year DEWP TEMP PRES Iws Is Ir; month, hour, cbwd one-hot
    }

    void bikeSharingAndBankReadZipMembers()
    {
        QByteArray hour = "instant,dteday,season,yr,mnth,hr,holiday,weekday,workingday,weathersit,temp,atemp,hum,windspeed,casual,registered,cnt\n";
        for (int i = 1; i <= 25; ++i)
            hour += QStringLiteral("%1,2011-01-01,%2,0,1,%3,0,6,0,%4,0.24,0.2879,0.81,0,3,13,%5\n")
                        .arg(i)
                        .arg(1 + i % 4)
                        .arg(i % 24)
                        .arg(1 + i % 3)
                        .arg(16 + i)
                        .toUtf8();
        place("bike_sharing", "Bike-Sharing-Dataset.zip", archiveOf({{"Readme.txt", "x"}, {"hour.csv", hour}}, true, false));
        const DatasetPair b = load({{"source", "bike_sharing"}});
        QCOMPARE(b.train.rows() + b.test.rows(), 25);
        QVERIFY(!b.train.featureNames.contains("casual") && b.train.featureNames.contains("season=4"));

        QByteArray bank = "\"age\";\"job\";\"balance\";\"y\"\n";
        for (int i = 0; i < 20; ++i)
            bank += QStringLiteral("%1;\"%2\";%3;\"%4\"\n").arg(30 + i).arg(i % 3 ? "admin." : "blue-collar").arg(i * 100).arg(i % 4 ? "no" : "yes").toUtf8();
        place("bank_marketing", "bank.zip", archiveOf({{"bank-full.csv", bank}}, true, false));
        const DatasetPair k = load({{"source", "bank_marketing"}});
        QCOMPARE(k.train.classNames, (QStringList{"no", "yes"}));
        QCOMPARE(k.train.featureNames, (QStringList{"age", "job=admin.", "job=blue-collar", "balance"}));
    }
};

QTEST_GUILESS_MAIN(TestCatalogSources)
#include "tst_catalogsources.moc"
