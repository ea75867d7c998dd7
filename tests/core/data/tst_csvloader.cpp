#include <data/CsvLoader.h>
#include <data/DataError.h>

#include <QFileInfo>
#include <QTemporaryDir>
#include <zlib.h>
#include <cmath>
#include <sys/stat.h>
#include <clocale>
#include <QtTest>
#include <ExpectDataError.h>

using namespace tb::data;
using tb::testsupport::expectError;

namespace {

QString fixture(const QString& name)
{
    return QStringLiteral(TB_FIXTURES_DIR "/data/") + name;
}

QString sklearn(const QString& name)
{
    return QStringLiteral(TB_FIXTURES_DIR "/data/sklearn/") + name;
}

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(f.fileName()));
    return f.fileName();
}

CsvLoader::Options classify(const QString& target)
{
    CsvLoader::Options o;
    o.targets = {target};
    o.task = tb::Task::Classification;
    return o;
}

} // namespace

class TestCsvLoader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void classificationWithSortedClasses()
    {
        const Dataset d = CsvLoader::load(fixture("iris_small.csv"), classify("species"));
        QCOMPARE(d.rows(), Eigen::Index(12));
        QCOMPARE(d.inputs(), Eigen::Index(4));
        QCOMPARE(d.outputs(), Eigen::Index(3));
        QCOMPARE(d.classNames, QStringList({"setosa", "versicolor", "virginica"}));
        QCOMPARE(d.featureNames, QStringList({"sepal_length", "sepal_width", "petal_length", "petal_width"}));
        QCOMPARE(d.labels[0], 0);
        QCOMPARE(d.labels[3], 1);
        QCOMPARE(d.labels[6], 2);
        QCOMPARE(d.x(3, 2), 4.7);
        QCOMPARE(d.y(6, 2), 1.0);
        QCOMPARE(d.y.sum(), 12.0);
    }

    void testFileMapsThroughTrainingClasses()
    {
        auto o = classify("species");
        o.classNames = {"virginica", "versicolor", "setosa"}; // deliberately not sorted
        const Dataset t = CsvLoader::load(fixture("iris_small_test.csv"), o);
        QCOMPARE(t.classNames, o.classNames);
        QCOMPARE(t.labels, (std::vector<int>{2, 1, 0}));

        const auto e = expectError([&] { CsvLoader::load(fixture("iris_unseen_label.csv"), o); });
        QVERIFY2(e.text().startsWith(fixture("iris_unseen_label.csv") + ":3: column 'species': label \"iris-nova\" "
                                                                        "is not one of the training classes"),
                 e.what());
    }

    void quotedFields()
    {
        // BOM, CRLF, quoted header names with commas and doubled quotes, a quoted number, a
        // padded unquoted number, a blank line and a label spanning two lines.
        const Dataset d = CsvLoader::load(fixture("quoted.csv"), classify("label \"name\""));
        QCOMPARE(d.featureNames, QStringList({"x, first", "x2"}));
        QCOMPARE(d.rows(), Eigen::Index(5));
        QCOMPARE(d.x(0, 0), 1.5);
        QCOMPARE(d.x(0, 1), 2.0);
        QCOMPARE(d.x(1, 0), 3.0);
        QCOMPARE(d.x(1, 1), 4.0);
        QCOMPARE(d.x(4, 1), 10.0);
        QCOMPARE(d.classNames, QStringList({"a", "b, c", "multi\nline", "say \"hi\""}));
        QCOMPARE(d.labels, (std::vector<int>{0, 1, 3, 2, 0}));
    }

    void numericLabelsSortNumerically()
    {
        // Text order would be "10" < "2" < "9"; numeric labels sort as numbers.
        QTemporaryDir dir;
        QFile f(dir.filePath("digits.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("a,digit\n1,10\n2,9\n3,2\n4,10\n");
        f.close();
        const Dataset d = CsvLoader::load(f.fileName(), classify("digit"));
        QCOMPARE(d.classNames, QStringList({"2", "9", "10"}));
        QCOMPARE(d.labels, (std::vector<int>{2, 1, 0, 2}));
    }

    void regressionWithTwoTargets()
    {
        CsvLoader::Options o;
        o.targets = {"y2", "y1"};
        o.task = tb::Task::Regression;
        const Dataset d = CsvLoader::load(fixture("regression.csv"), o);
        QCOMPARE(d.task, tb::Task::Regression);
        QCOMPARE(d.outputs(), Eigen::Index(2));
        QCOMPARE(d.y(1, 0), -3.0); // targets in the order asked for
        QCOMPARE(d.y(1, 1), 3.0);
        QCOMPARE(d.x(3, 0), 3.5);  // "+3.5"
        QCOMPARE(d.x(3, 1), 42.5); // "4.25e1"
        QVERIFY(d.labels.empty() && d.classNames.isEmpty());
    }

    void parsingIgnoresTheProcessLocale()
    {
        // Under a comma-decimal C locale, strtod would read "3.5" as 3; from_chars must not.
        const char* found = nullptr;
        for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"})
            if ((found = std::setlocale(LC_NUMERIC, name)))
                break;
        if (!found)
            QSKIP("no comma-decimal locale installed");
        CsvLoader::Options o;
        o.targets = {"y1"};
        o.task = tb::Task::Regression;
        const Dataset d = CsvLoader::load(fixture("regression.csv"), o);
        std::setlocale(LC_NUMERIC, "C");
        QCOMPARE(d.x(3, 0), 3.5);
    }

    void nonNumericValue()
    {
        const QString f = fixture("broken_nonnumeric.csv");
        const auto e = expectError([&] { CsvLoader::load(f, classify("species")); });
        QCOMPARE(e.text(), f + ":14: column 'petal_width': \"abc\" is not a number");
        QCOMPARE(e.line(), qint64(14));
        QCOMPARE(e.key(), QString("petal_width"));
        QCOMPARE(e.value(), QString("abc"));
    }

    void raggedRow()
    {
        const QString f = fixture("broken_ragged.csv");
        const auto e = expectError([&] { CsvLoader::load(f, classify("label")); });
        QCOMPARE(e.text(), f + ":4: expected 4 fields (as in the header), got 3");
    }

    void missingValues()
    {
        const QString f = fixture("broken_missing.csv");
        const auto e = expectError([&] { CsvLoader::load(f, classify("label")); });
        QVERIFY2(e.text().startsWith(f + ":3: column 'b': missing value \"\""), e.what());
        const QString na = fixture("broken_missing_na.csv");
        const auto n = expectError([&] { CsvLoader::load(na, classify("label")); });
        QVERIFY2(n.text().startsWith(na + ":4: column 'c': missing value \"NA\""), n.what());
    }

    void nanAndInfRejected()
    {
        const QString f = fixture("broken_nan.csv");
        const auto e = expectError([&] { CsvLoader::load(f, classify("label")); });
        QVERIFY2(e.text().startsWith(f + ":3: column 'c': \"NaN\" is not a finite number"), e.what());
        const QString i = fixture("broken_inf.csv");
        const auto g = expectError([&] { CsvLoader::load(i, classify("label")); });
        QVERIFY2(g.text().startsWith(i + ":4: column 'a': \"-inf\" is not a finite number"), g.what());
    }

    void unterminatedQuote()
    {
        const QString f = fixture("broken_unterminated_quote.csv");
        const auto e = expectError([&] { CsvLoader::load(f, classify("label")); });
        QVERIFY2(e.text().startsWith(f + ":3: quoted field never closes"), e.what());
    }

    void linesCountedThroughMultiLineFields()
    {
        // Line 2–3 is one record with a quoted line break, line 4 is blank, line 5 is bad.
        const QString f = fixture("broken_after_multiline.csv");
        const auto e = expectError([&] { CsvLoader::load(f, classify("label")); });
        QCOMPARE(e.text(), f + ":5: column 'a': \"x\" is not a number");
    }

    // ---- scikit-learn's raw files (tests/fixtures/data/sklearn: their exact layouts, few rows)

    void sklearnRawFilesLoadWithTheirOptions_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("skipRows");
        QTest::addColumn<bool>("header");
        QTest::addColumn<QString>("target"); // a name, or a number: a 0-based column index
        QTest::addColumn<bool>("regression");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("inputs");
        QTest::addColumn<int>("outputs");
        QTest::addColumn<double>("x00");
        QTest::addColumn<double>("firstTarget"); // regression: y(0, 0); classification: class of row 0
        QTest::newRow("iris") << "iris.csv" << 1 << false << "-1" << false << 12 << 4 << 3 << 5.1 << 0.0;
        QTest::newRow("wine") << "wine_data.csv" << 1 << false << "13" << false << 9 << 13 << 3 << 14.23 << 0.0;
        QTest::newRow("breast cancer") << "breast_cancer.csv" << 1 << false << "-1" << false << 6 << 30 << 2 << 17.99 << 0.0;
        QTest::newRow("digits (gzip)") << "digits.csv.gz" << 0 << false << "64" << false << 30 << 64 << 10 << 0.0 << 0.0;
        QTest::newRow("boston") << "boston_house_prices.csv" << 1 << true << "MEDV" << true << 6 << 13 << 1 << 0.00632 << 24.0;
    }

    void sklearnRawFilesLoadWithTheirOptions()
    {
        QFETCH(QString, file);
        QFETCH(int, skipRows);
        QFETCH(bool, header);
        QFETCH(QString, target);
        QFETCH(bool, regression);
        QFETCH(int, rows);
        QFETCH(int, inputs);
        QFETCH(int, outputs);
        QFETCH(double, x00);
        QFETCH(double, firstTarget);
        CsvLoader::Options o;
        bool isIndex = false;
        const int index = target.toInt(&isIndex);
        o.targets = {isIndex ? CsvLoader::Column(index) : CsvLoader::Column(target)};
        o.task = regression ? tb::Task::Regression : tb::Task::Classification;
        o.skipRows = skipRows;
        o.header = header;
        const Dataset d = CsvLoader::load(sklearn(file), o);
        QCOMPARE(d.rows(), Eigen::Index(rows));
        QCOMPARE(d.inputs(), Eigen::Index(inputs));
        QCOMPARE(d.outputs(), Eigen::Index(outputs));
        QCOMPARE(d.x(0, 0), x00);
        if (regression) {
            QCOMPARE(d.y(0, 0), firstTarget);
        } else {
            QCOMPARE(d.classNames.value(d.labels[0]).toDouble(), firstTarget);
            for (const Eigen::Index c : d.classCounts())
                QVERIFY(c > 0);
        }
        if (!header)
            QCOMPARE(d.featureNames.first(), QStringLiteral("0")); // columns named by position
    }

    void targetsInTheirOwnWhitespaceSeparatedFile()
    {
        // diabetes: both files gzip, whitespace-separated, no header; targets row by row.
        CsvLoader::Options o;
        o.task = tb::Task::Regression;
        o.delimiter = ' ';
        o.header = false;
        o.targetFile = sklearn("diabetes_target.csv.gz");
        const Dataset d = CsvLoader::load(sklearn("diabetes_data_raw.csv.gz"), o);
        QCOMPARE(d.rows(), Eigen::Index(8));
        QCOMPARE(d.inputs(), Eigen::Index(10));
        QCOMPARE(d.outputs(), Eigen::Index(1));
        QCOMPARE(d.x(0, 0), 59.0);
        QCOMPARE(d.x(0, 8), 4.8598);
        QCOMPARE(d.x(7, 7), 4.55);
        QCOMPARE(d.y(0, 0), 151.0); // "1.510000000000000000e+02"
        QCOMPARE(d.y(7, 0), 63.0);
        QVERIFY2(d.description.contains("diabetes_target.csv.gz"), qPrintable(d.description));

        // A target file of another length is an error naming both files.
        QTemporaryDir dir;
        const QString shortTargets = write(dir, "short.txt", "1\n2\n3\n");
        o.targetFile = shortTargets;
        const auto e = expectError([&] { CsvLoader::load(sklearn("diabetes_data_raw.csv.gz"), o); });
        QVERIFY2(e.text().startsWith(shortTargets + ": 3 rows of targets for the 8 rows of " + sklearn("diabetes_data_raw.csv.gz")),
                 e.what());
    }

    void countRowReadAsHeaderIsExplained()
    {
        // Boston without skip_rows: the count row "6,13" becomes a two-column header.
        CsvLoader::Options o;
        o.targets = {"MEDV"};
        o.task = tb::Task::Regression;
        const QString boston = sklearn("boston_house_prices.csv");
        const auto e = expectError([&] { CsvLoader::load(boston, o); });
        QVERIFY2(e.text().startsWith(boston + ":1: the header row holds only numbers (6, 13): it looks like data.") &&
                     e.text().contains("if it starts with a count row, set \"skip_rows\""),
                 e.what());
        // Iris without options: its count row has names too, and the rows have as many fields.
        auto iris = classify("species");
        const auto i = expectError([&] { CsvLoader::load(sklearn("iris.csv"), iris); });
        QVERIFY2(i.text().contains("\"skip_rows\": 1 skips it"), i.what());
    }

    void headerOfNumbersIsData()
    {
        const QString digits = sklearn("digits.csv.gz");
        CsvLoader::Options o;
        o.targets = {64};
        const auto e = expectError([&] { CsvLoader::load(digits, o); });
        QVERIFY2(e.text().startsWith(digits + ":1: the header row holds only numbers (0.0, 0.0, 0.0, 0.0, 0.0, 0.0): it "
                                              "looks like data. If the file has no header, set \"header\": false"),
                 e.what());
    }

    void delimitersAndColumnIndexes()
    {
        QTemporaryDir dir;
        CsvLoader::Options o;
        o.task = tb::Task::Regression;
        o.header = false;
        o.targets = {-1};
        // Whitespace: runs of spaces and tabs, leading and trailing ones ignored, as numpy.loadtxt.
        o.delimiter = ' ';
        Dataset d = CsvLoader::load(write(dir, "ws.txt", "  1  2\t 3 \n\n4 5 6\t\n"), o);
        QCOMPARE(d.rows(), Eigen::Index(2));
        QCOMPARE(d.x(1, 1), 5.0);
        QCOMPARE(d.y(1, 0), 6.0);
        o.delimiter = '\t';
        d = CsvLoader::load(write(dir, "tab.tsv", "1\t2\t3\n4\t5\t6\n"), o);
        QCOMPARE(d.x(1, 0), 4.0);
        o.delimiter = ';';
        o.targets = {0};
        d = CsvLoader::load(write(dir, "semi.csv", "1;2;3\n4;5;6\n"), o);
        QCOMPARE(d.y(1, 0), 4.0);
        QCOMPARE(d.featureNames, QStringList({"1", "2"}));
        o.targets = {3};
        const auto e = expectError([&] { CsvLoader::load(dir.filePath("semi.csv"), o); });
        QVERIFY2(e.text().startsWith(dir.filePath("semi.csv") + ":1: target column 3 is outside the file's 3 columns "
                                                                "(0 to 2, or -1 for the last)"),
                 e.what());
        // Skipped lines still count: errors name the line of the file as it is.
        o.targets = {2};
        o.skipRows = 2;
        const auto bad = expectError([&] { CsvLoader::load(write(dir, "skip.csv", "# made by hand\n# 2 rows\n1;2;3\n4;x;6\n"), o); });
        QVERIFY2(bad.text().startsWith(dir.filePath("skip.csv") + ":4: column '1': \"x\" is not a number"), bad.what());
        o.skipRows = 9;
        QVERIFY(expectError([&] { CsvLoader::load(dir.filePath("skip.csv"), o); }).text().contains("nothing left after skipping 4 line(s)"));
    }

    void invalidUtf8LabelsAreRejected()
    {
        // Two different invalid labels once collapsed into one class ("\ufffd") and trained at
        // "100 %": reject them with their line and bytes.
        QTemporaryDir dir;
        const QString f = write(dir, "latin1.csv", QByteArray("x,label\n1,caf\xe9\n2,caf\xe8\n"));
        const auto e = expectError([&] { CsvLoader::load(f, classify("label")); });
        QCOMPARE(e.text(), f + ":2: column 'label': label \"caf\\xe9\" is not valid UTF-8 text (byte 4); labels that "
                               "differ only in such bytes would be one class. Save the file as UTF-8");
        QCOMPARE(e.line(), qint64(2));
        // Valid UTF-8 labels load as such.
        const Dataset d = CsvLoader::load(write(dir, "utf8.csv", "x,label\n1,café\n2,cafè\n"), classify("label"));
        QCOMPARE(d.classNames, QStringList({"cafè", "café"})); // code-point order
    }

    void nulBytesAreShownNotCutOff()
    {
        QTemporaryDir dir;
        const QString f = write(dir, "nul.csv", QByteArray("a,y\n1,2\n3\0" "4,5\n", 15));
        const auto e = expectError([&] { CsvLoader::load(f, classify("y")); });
        // A NUL byte makes it no text file (issue 49, item 5): refused with where it is, and what()
        // — a C string, which a raw NUL would end — says so whole.
        const QString what = QString::fromUtf8(e.what());
        QCOMPARE(what, f + ": at byte offset 9: not a text file (a NUL byte, on line 3); a CSV source reads text "
                           "(images in IDX files take the \"idx\" source, LIBSVM files \"libsvm\")");
    }

    void onlyRegularFilesAreRead()
    {
        // A FIFO would block open() for ever (no signal gets the process out); /dev/zero never ends.
        QTemporaryDir dir;
        const QString fifo = dir.filePath("pipe.csv");
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        const auto e = expectError([&] { CsvLoader::load(fifo, classify("y")); });
        QCOMPARE(e.text(), fifo + ": is a FIFO (named pipe), not a regular file; data must be read from a file on disk");
        const auto z = expectError([&] { CsvLoader::load("/dev/zero", classify("y")); });
        QVERIFY2(z.text().startsWith("/dev/zero: is a character device, not a regular file"), z.what());
        const auto d = expectError([&] { CsvLoader::load(dir.path(), classify("y")); });
        QVERIFY2(d.text().contains("is a folder"), d.what());
    }

    void memoryIsCheckedBeforeReading()
    {
        QTemporaryDir dir;
        QByteArray big = "a,y\n";
        while (big.size() < 8000)
            big += "1.5,2.5\n";
        const QString f = write(dir, "big.csv", big);
        qputenv("TRAINBENCH_MEMORY_LIMIT", "4K");
        const auto e = expectError([&] { CsvLoader::load(f, classify("y")); });
        qunsetenv("TRAINBENCH_MEMORY_LIMIT");
        QVERIFY2(e.text().startsWith(f + ": reading the whole file needs 7.82 KiB, but only 4.00 KiB is available to this "
                                         "process (TRAINBENCH_MEMORY_LIMIT=4K)"),
                 e.what());
        QCOMPARE(CsvLoader::load(f, classify("y")).rows(), Eigen::Index(1000)); // without the cap it loads
    }

    void aCompressedFileIsBoundedByTheLimitAsItExpands()
    {
        // Issue 50, item 3: a 290 KiB gzip file that expands to 300 MB (one line, no end) under a
        // 32 MiB cap: refused as it inflates, naming the file and what it had read, in a short
        // message — not grown until the kernel kills the process, not the line echoed.
        QTemporaryDir dir;
        const QString f = dir.filePath("bomb.csv.gz");
        gzFile gz = gzopen(QFile::encodeName(f).constData(), "wb9");
        QVERIFY(gz);
        const QByteArray chunk = QByteArray("a,").repeated(500000);
        for (int i = 0; i < 300; ++i)
            QCOMPARE(gzwrite(gz, chunk.constData(), unsigned(chunk.size())), int(chunk.size()));
        QCOMPARE(gzclose(gz), Z_OK);
        QVERIFY(QFileInfo(f).size() < 2 * 1024 * 1024);
        qputenv("TRAINBENCH_MEMORY_LIMIT", "32M");
        const auto e = expectError([&] { CsvLoader::load(f, classify("y")); });
        qunsetenv("TRAINBENCH_MEMORY_LIMIT");
        QVERIFY2(e.text().startsWith(f + ": decompressing the gzip file (") &&
                     e.text().contains("but only 32.0 MiB is available to this process (TRAINBENCH_MEMORY_LIMIT=32M)"),
                 e.what());
        QVERIFY2(e.text().size() < 400, e.what());
    }

    void brokenGzipIsAnError()
    {
        QTemporaryDir dir;
        QFile in(sklearn("digits.csv.gz"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray gz = in.readAll();
        const QString cut = write(dir, "cut.csv.gz", gz.left(gz.size() / 2));
        CsvLoader::Options o;
        o.header = false;
        o.targets = {64};
        const auto e = expectError([&] { CsvLoader::load(cut, o); });
        QVERIFY2(e.text().startsWith(cut + ": at byte offset") &&
                     (e.text().contains("truncated gzip file") || e.text().contains("corrupt gzip data")),
                 e.what());
    }

    void previewShowsTheFirstRecords()
    {
        CsvLoader::Options o;
        o.skipRows = 1;
        const auto rows = CsvLoader::previewRows(sklearn("boston_house_prices.csv"), o, 3);
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows[0].first(), QStringLiteral("CRIM"));
        QCOMPARE(rows[1].last(), QStringLiteral("24"));
        o.skipRows = 0;
        o.delimiter = ' ';
        const auto gz = CsvLoader::previewRows(sklearn("diabetes_data_raw.csv.gz"), o, 100);
        QCOMPARE(gz.size(), 8);
        QCOMPARE(gz[0].size(), 10);
    }

    void categoricalColumnsAreOneHot()
    {
        const QByteArray csv = "id,colour,size,price\n1,red,3,10\n2,blue,4,11\n3,red,5,12\n4,green,6,13\n";
        CsvLoader::Options o;
        o.targets = {"price"};
        o.task = tb::Task::Regression;
        o.ignore = {"id"};
        o.categoricalAuto = true;
        CsvLoader::Report report;
        const Dataset d = CsvLoader::parse(csv, "shop.csv", o, &report);
        QCOMPARE(d.featureNames, QStringList({"colour=blue", "colour=green", "colour=red", "size"}));
        QCOMPARE(d.x.row(0), (Eigen::RowVector4d(0, 0, 1, 3)));
        QCOMPARE(d.x.row(3), (Eigen::RowVector4d(0, 1, 0, 6)));
        QCOMPARE(report.categoricalColumns, QStringList{"colour"});
        QCOMPARE(report.ignoredColumns, QStringList{"id"});
        QCOMPARE(report.categories.value("colour"), QStringList({"blue", "green", "red"}));
        QVERIFY2(d.description.contains("1 column one-hot"), qPrintable(d.description));
        // Named categorical columns may hold numbers; a test file takes the training categories,
        // and a category the training file lacks becomes all zeros.
        o.categoricalAuto = false;
        o.categorical = {"size", "colour"};
        o.categories = report.categories;
        o.categories.insert("size", {"3", "4"});
        CsvLoader::Report testReport;
        const Dataset t = CsvLoader::parse("id,colour,size,price\n9,purple,4,1\n", "test.csv", o, &testReport);
        QCOMPARE(t.featureNames, QStringList({"colour=blue", "colour=green", "colour=red", "size=3", "size=4"}));
        QCOMPARE(t.x.row(0), (Eigen::Matrix<double, 1, 5>() << 0, 0, 0, 0, 1).finished());
        QCOMPARE(testReport.unseenCategories, 1);
        // Without categorical, text in a feature is an error as before.
        CsvLoader::Options plain;
        plain.targets = {"price"};
        plain.task = tb::Task::Regression;
        const DataError e = expectError([&] { CsvLoader::parse(csv, "shop.csv", plain); });
        QVERIFY2(e.text().startsWith("shop.csv:2: column 'colour'"), e.what());
    }

    // Issue 49, item 5: a CSV source pointed at a binary file gave, with a header, an error whose
    // long escaped line widened the panel, and without one a misleading "no feature columns".
    // A NUL byte in the first 64 KiB is refused at once, naming its byte and line, quoting none.
    void aBinaryFileIsRefusedAsNotText()
    {
        QByteArray junk = "a,b,y\n1,2,0\n";
        for (int i = 0; i < 5000; ++i)
            junk.append(char((i * 37) % 256));
        CsvLoader::Options o = classify("y");
        const DataError e = expectError([&] { CsvLoader::parse(junk, "image.bin", o); });
        QVERIFY2(e.text().contains("at byte offset 12: not a text file (a NUL byte, on line 3)"), e.what());
        QVERIFY2(e.text().size() < 300, e.what());
        CsvLoader::Options noHeader;
        noHeader.task = tb::Task::Regression;
        noHeader.header = false;
        noHeader.targets = {-1};
        const DataError f = expectError([&] { CsvLoader::parse(junk.mid(12), "image.bin", noHeader); });
        QVERIFY2(f.text().contains("not a text file") && !f.text().contains("no feature columns"), f.what());
        // Text stays text: the same rows without the junk load.
        QCOMPARE(CsvLoader::parse("a,b,y\n1,2,0\n3,4,1\n", "ok.csv", o).rows(), 2);
    }

    void aWrongDelimiterOrQuoteIsSuggested()
    {
        // A ';' file read with the default ',': its header is one column holding two ';'.
        CsvLoader::Options o = classify("y");
        const QByteArray semi = "a;b;y\n1;2;0\n3;4;1\n";
        const DataError s = expectError([&] { CsvLoader::parse(semi, "semi.csv", o); });
        QVERIFY2(s.text().startsWith("semi.csv:1: target column 'y' not found; columns are: a;b;y (line 1 reads as "
                                     "one column, \"a;b;y\", which holds 2 × ';': \"delimiter\": \";\" splits it "
                                     "into 3 columns)"),
                 s.what());
        o.delimiter = ';';
        QCOMPARE(CsvLoader::parse(semi, "semi.csv", o).featureNames, QStringList({"a", "b"}));
        // A tab-separated file without a header, read with ',': the last column is the only one,
        // so no feature is left; the hint names the tab as JSON writes it.
        CsvLoader::Options r;
        r.task = tb::Task::Regression;
        r.header = false;
        r.targets = {-1};
        const DataError t = expectError([&] { CsvLoader::parse("1\t2\t0.5\n3\t4\t1.5\n", "nohead.tsv", r); });
        QVERIFY2(t.text().contains("no feature columns") &&
                     t.text().contains("\"delimiter\": \"\\t\" splits it into 3 columns"),
                 t.what());
        // Every name in single quotes, read with the default double quote.
        CsvLoader::Options q = classify("Survived");
        q.delimiter = '\t';
        const QByteArray tsv = "'name'\t'Survived'\n'x'\t1\n'y'\t0\n";
        const DataError n = expectError([&] { CsvLoader::parse(tsv, "titanic.tsv", q); });
        QVERIFY2(n.text().contains("(every column name on line 1 is in single quotes, as 'name': \"quote\": \"'\" "
                                   "reads them without)"),
                 n.what());
        // A column that is simply misspelt gets no such hint.
        const DataError m = expectError([&] { CsvLoader::parse("a,b,y\n1,2,0\n", "typo.csv", classify("z")); });
        QVERIFY2(!m.text().contains("delimiter") && !m.text().contains("quote"), m.what());
    }

    void anotherQuoteCharacter()
    {
        const QByteArray tsv = "'name'\t'Survived'\t'x'\n'Braund, Mr. Owen'\t0\t1.5\n'O''Brien'\t1\t2.5\n";
        CsvLoader::Options o = classify("Survived");
        o.delimiter = '\t';
        o.quote = '\'';
        o.ignore = {"name"};
        const Dataset d = CsvLoader::parse(tsv, "titanic.tsv", o);
        QCOMPARE(d.featureNames, QStringList{"x"});
        QCOMPARE(d.classNames, QStringList({"0", "1"}));
        // No quoting at all: the quotes are part of the names.
        o.quote = '\0';
        o.targets = {"'Survived'"};
        o.ignore = {"'name'"};
        QCOMPARE(CsvLoader::parse(tsv, "titanic.tsv", o).featureNames, QStringList{"'x'"});
        // A quoted field that never closes names the quote character.
        o.quote = '\'';
        o.targets = {"Survived"};
        o.ignore = {};
        const DataError e = expectError([&] { CsvLoader::parse("'a'\t'Survived'\n'x\t1\n", "bad.tsv", o); });
        QVERIFY2(e.text().contains("quoted field never closes (missing ''')"), e.what());
    }

    void missingValuePolicies()
    {
        const QByteArray csv = "a,b,y\n1,2,10\n?,3,11\n4,NA,12\n5,6,\n7,8,14\n";
        CsvLoader::Options o;
        o.targets = {"y"};
        o.task = tb::Task::Regression;
        o.missingValues = {"?"};
        DataError e = expectError([&] { CsvLoader::parse(csv, "m.csv", o); });
        QVERIFY2(e.text().startsWith("m.csv:3: column 'a': missing value \"?\""), e.what());
        o.missing = CsvLoader::Options::Missing::Drop;
        CsvLoader::Report report;
        const Dataset d = CsvLoader::parse(csv, "m.csv", o, &report);
        QCOMPARE(d.rows(), 2);
        QCOMPARE(report.rowsDropped, 3);
        QVERIFY2(d.description.contains("3 rows with missing values dropped"), qPrintable(d.description));
        // Keep: features become NaN for the caller to fill; a missing target stays an error.
        o.missing = CsvLoader::Options::Missing::Keep;
        e = expectError([&] { CsvLoader::parse(csv, "m.csv", o); });
        QVERIFY2(e.text().startsWith("m.csv:5: column 'y': missing target \"\" (a target cannot be filled"), e.what());
        const Dataset k = CsvLoader::parse("a,b,y\n1,2,10\n?,3,11\n4,NA,12\n", "m.csv", o, &report);
        QVERIFY(std::isnan(k.x(1, 0)) && std::isnan(k.x(2, 1)));
        QCOMPARE(report.missingKept, 2);
        // Drop cannot go with a target file (the files would no longer line up).
        QTemporaryDir dir;
        o.missing = CsvLoader::Options::Missing::Drop;
        o.targets = {};
        o.targetFile = write(dir, "t.csv", "y\n1\n");
        e = expectError([&] { CsvLoader::load(write(dir, "x.csv", "a\n1\n"), o); });
        QVERIFY2(e.text().contains("cannot drop rows when the targets are in a file"), e.what());
    }

    void columnNamesForAFileWithoutHeader()
    {
        CsvLoader::Options o = classify("income");
        o.header = false;
        o.columnNames = {"age", "income"};
        o.labelSuffix = ".";
        const Dataset d = CsvLoader::parse("39, <=50K.\n50, >50K\n", "adult.test", o);
        QCOMPARE(d.featureNames, QStringList{"age"});
        QCOMPARE(d.classNames, QStringList({"<=50K", ">50K"}));
        o.columnNames = {"age"};
        DataError e = expectError([&] { CsvLoader::parse("39, <=50K.\n", "adult.test", o); });
        QVERIFY2(e.text().contains("1 column names are given for a file whose first row has 2 fields"), e.what());
        o.columnNames = {"age", "income"};
        o.ignore = {"income"};
        e = expectError([&] { CsvLoader::parse("39, <=50K.\n", "adult.test", o); });
        QVERIFY2(e.text().contains("target column 'income' is also ignored"), e.what());
    }

    void unknownTargetAndBadOptions()
    {
        const QString f = fixture("iris_small.csv");
        const auto e = expectError([&] { CsvLoader::load(f, classify("Species")); });
        QVERIFY2(e.text().startsWith(f + ":1: target column 'Species' not found; columns are: sepal_length"), e.what());
        auto two = classify("species");
        two.targets << "petal_width";
        QVERIFY(expectError([&] { CsvLoader::load(f, two); }).text().contains("exactly one target column"));
        const auto m = expectError([&] { CsvLoader::load(fixture("no-such-file.csv"), classify("y")); });
        QVERIFY2(m.text().startsWith(fixture("no-such-file.csv") + ": cannot open"), m.what());
    }
};

QTEST_APPLESS_MAIN(TestCsvLoader)
#include "tst_csvloader.moc"
