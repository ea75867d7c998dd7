#include "DataError.h"
#include "LibsvmLoader.h"

#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <ExpectDataError.h>

using namespace tb::data;
using tb::testsupport::expectError;

namespace {

QString fixture(const QString& name)
{
    return QStringLiteral(TB_FIXTURES_DIR "/data/") + name;
}

} // namespace

class TestLibsvmLoader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sparseRowsMadeDense()
    {
        const Dataset d = LibsvmLoader::load(fixture("small.libsvm"), {});
        QCOMPARE(d.rows(), Eigen::Index(4)); // comment and blank lines skipped
        QCOMPARE(d.inputs(), Eigen::Index(4));
        Eigen::MatrixXd expected(4, 4);
        expected << 0.5, 0, 1.5, 0, //
            0, 2, 0, -0.1,          //
            1, 1, 1, 1,             //
            0, 0, 0, 3;
        QCOMPARE(d.x, expected);
        // "+1" and "1" are one class; classes sorted numerically.
        QCOMPARE(d.classNames, QStringList({"-1", "1"}));
        QCOMPARE(d.labels, (std::vector<int>{1, 0, 1, 0}));
        QCOMPARE(d.y(0, 1), 1.0);
    }

    void givenWidthAndTrainingClasses()
    {
        LibsvmLoader::Options o;
        o.features = 6;
        o.classNames = {"1", "-1"};
        const Dataset t = LibsvmLoader::load(fixture("small_test.libsvm"), o);
        QCOMPARE(t.inputs(), Eigen::Index(6));
        QCOMPARE(t.x(0, 1), 0.25);
        QCOMPARE(t.x(1, 3), 2.0);
        QCOMPARE(t.labels, (std::vector<int>{0, 1}));

        o.features = 4;
        const QString f = fixture("wide_test.libsvm");
        const auto e = expectError([&] { LibsvmLoader::load(f, o); });
        QVERIFY2(e.text().startsWith(f + ":2: bad token \"6:2\": index 6 exceeds the 4 features expected"), e.what());
    }

    void regression()
    {
        LibsvmLoader::Options o;
        o.task = tb::Task::Regression;
        const Dataset d = LibsvmLoader::load(fixture("small_regression.libsvm"), o);
        QCOMPARE(d.outputs(), Eigen::Index(1));
        QCOMPARE(d.y(0, 0), 2.5);
        QCOMPARE(d.y(1, 0), -0.5);
        QCOMPARE(d.x(1, 1), 1.0);
        QCOMPARE(d.x(1, 0), 0.0);
    }

    void badToken()
    {
        const QString f = fixture("broken_token.libsvm");
        const auto e = expectError([&] { LibsvmLoader::load(f, {}); });
        QCOMPARE(e.text(), f + ":2: bad token \"oops\" (token 3): expected index:value");
        QCOMPARE(e.value(), QString("oops"));
    }

    void nonIncreasingAndZeroIndex()
    {
        const QString f = fixture("broken_index_order.libsvm");
        const auto e = expectError([&] { LibsvmLoader::load(f, {}); });
        QCOMPARE(e.text(), f + ":3: bad token \"2:1\": index 2 does not increase (previous 3)");
        const QString z = fixture("broken_zero_index.libsvm");
        const auto g = expectError([&] { LibsvmLoader::load(z, {}); });
        QVERIFY2(g.text().startsWith(z + ":1: bad token \"0:0.5\": index 0 must be ≥ 1"), g.what());
    }

    void badValues()
    {
        const QString f = fixture("broken_value.libsvm");
        const auto e = expectError([&] { LibsvmLoader::load(f, {}); });
        QCOMPARE(e.text(), f + ":4: bad value in token \"2:zz\": \"zz\" is not a number");
        const QString n = fixture("broken_value_nan.libsvm");
        const auto g = expectError([&] { LibsvmLoader::load(n, {}); });
        QVERIFY2(g.text().startsWith(n + ":1: bad value in token \"1:nan\": \"nan\" is not a finite number"), g.what());
    }

    void unseenTestLabel()
    {
        LibsvmLoader::Options o;
        o.classNames = {"-1"};
        const QString f = fixture("small_test.libsvm");
        const auto e = expectError([&] { LibsvmLoader::load(f, o); });
        QCOMPARE(e.text(), f + ":1: label \"1\" is not one of the training classes (-1)");
    }

    void smallFileCannotAskForHugeMemory()
    {
        // The 520-byte file of the issue: 40 lines of "0 67108864:1" are 40 × 2^26 doubles, 20 GiB.
        // Refused before anything is allocated, against the memory the process may still take
        // (capped here so that the test means the same on any machine).
        QTemporaryDir dir;
        QFile f(dir.filePath("wide.libsvm"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (int i = 0; i < 40; ++i)
            f.write("0 67108864:1\n");
        f.close();
        QCOMPARE(f.size(), qint64(520));
        qputenv("TRAINBENCH_MEMORY_LIMIT", "1G");
        const auto e = expectError([&] { LibsvmLoader::load(f.fileName(), {}); });
        qunsetenv("TRAINBENCH_MEMORY_LIMIT");
        QCOMPARE(e.text(), f.fileName() + ": a dense 40×67108864 matrix of doubles (the largest index sets the width) "
                                          "needs 20.0 GiB, but only 1.00 GiB is available to this process "
                                          "(TRAINBENCH_MEMORY_LIMIT=1G)");
    }

    void gzipAndFifo()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("pipe.libsvm");
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        QVERIFY(expectError([&] { LibsvmLoader::load(fifo, {}); }).text().contains("is a FIFO (named pipe)"));
    }
};

QTEST_APPLESS_MAIN(TestLibsvmLoader)
#include "tst_libsvmloader.moc"
