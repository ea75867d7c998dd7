#include "CsvLoader.h"
#include "DataError.h"

#include <QTemporaryDir>
#include <clocale>
#include <QtTest>

using namespace tb::data;

namespace {

QString fixture(const QString& name)
{
    return QStringLiteral(TB_FIXTURES_DIR "/data/") + name;
}

CsvLoader::Options classify(const QString& target)
{
    CsvLoader::Options o;
    o.targets = {target};
    o.task = tb::Task::Classification;
    return o;
}

template <typename Fn>
DataError expectError(Fn fn)
{
    try {
        fn();
    } catch (const DataError& e) {
        return e;
    }
    return DataError({}, -1, -1, {}, {}, "NO ERROR THROWN");
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
