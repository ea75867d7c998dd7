#include <data/DataError.h>
#include <data/DataFile.h>
#include <data/LibsvmLoader.h>
#include <data/LibsvmWriter.h>
#include <data/SparseTextGenerator.h>

#include <QProcess>
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
        // Made dense, it is refused before anything is allocated, against the memory the process
        // may still take (capped here so that the test means the same on any machine).
        QTemporaryDir dir;
        QFile f(dir.filePath("wide.libsvm"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (int i = 0; i < 40; ++i)
            f.write("0 67108864:1\n");
        f.close();
        QCOMPARE(f.size(), qint64(520));
        qputenv("TRAINBENCH_MEMORY_LIMIT", "1G");
        LibsvmLoader::Options dense;
        dense.storage = LibsvmLoader::Storage::Dense;
        const auto e = expectError([&] { LibsvmLoader::load(f.fileName(), dense); });
        // Left to choose, the loader keeps it sparse: 40 non-zeros, a few hundred bytes.
        const Dataset d = LibsvmLoader::load(f.fileName(), {});
        qunsetenv("TRAINBENCH_MEMORY_LIMIT");
        QCOMPARE(e.text(), f.fileName() + ": a dense 40×67108864 matrix of doubles (the largest index sets the width) "
                                          "needs 20.0 GiB, but only 1.00 GiB is available to this process "
                                          "(TRAINBENCH_MEMORY_LIMIT=1G)");
        QVERIFY(d.isSparse());
        QCOMPARE(d.inputs(), Eigen::Index(67108864));
        QCOMPARE(d.xSparse.nonZeros(), Eigen::Index(40));
        QCOMPARE(d.x.rows(), Eigen::Index(40)); // n×0: rows() is the same either way
        QCOMPARE(d.x.cols(), Eigen::Index(0));
        QCOMPARE(d.xSparse.coeff(39, 67108863), 1.0);
    }

    void sparseStorageHoldsTheSameValues()
    {
        LibsvmLoader::Options o;
        o.storage = LibsvmLoader::Storage::Sparse;
        const Dataset s = LibsvmLoader::load(fixture("small.libsvm"), o);
        o.storage = LibsvmLoader::Storage::Dense;
        const Dataset d = LibsvmLoader::load(fixture("small.libsvm"), o);
        QVERIFY(s.isSparse());
        QVERIFY(!d.isSparse());
        QVERIFY(s.xSparse.isCompressed());
        QCOMPARE(s.rows(), d.rows());
        QCOMPARE(s.inputs(), d.inputs());
        QCOMPARE(Eigen::MatrixXd(s.xSparse), d.x);
        QCOMPARE(s.labels, d.labels);
        QCOMPARE(s.y, d.y);
        QVERIFY2(s.description.contains("sparse"), qPrintable(s.description));
        // Explicit zeros are not stored: "3:0" is no entry.
        o.storage = LibsvmLoader::Storage::Sparse;
        const Dataset z = LibsvmLoader::parse("1 1:2 3:0 4:1\n0 2:0\n", "z.libsvm", o);
        QCOMPARE(z.xSparse.nonZeros(), Eigen::Index(2));
        QCOMPARE(z.inputs(), Eigen::Index(4));
        QCOMPARE(z.rows(), Eigen::Index(2));
    }

    void automaticStorageFollowsSizeAndDensity()
    {
        // Small data stays dense as it always was (its results unchanged); a text corpus's
        // shape goes sparse.
        QCOMPARE(LibsvmLoader::automaticStorage(32561, 123, 451592), LibsvmLoader::Storage::Dense); // a9a
        QCOMPARE(LibsvmLoader::automaticStorage(581012, 54, 7000000), LibsvmLoader::Storage::Dense); // covtype: 22 % dense
        QCOMPARE(LibsvmLoader::automaticStorage(20242, 47236, 1498952), LibsvmLoader::Storage::Sparse); // rcv1
        QCOMPARE(LibsvmLoader::automaticStorage(2000, 4000, 8000000), LibsvmLoader::Storage::Dense); // 61 MiB
    }

    void sparseRowProblemsNameTheLine()
    {
        LibsvmLoader::Options o;
        o.storage = LibsvmLoader::Storage::Sparse;
        auto problem = [&](const QByteArray& bytes) {
            return expectError([&] { LibsvmLoader::parse(bytes, "t.libsvm", o); }).text();
        };
        QCOMPARE(problem("1 1:1\n0 2:1 2:3\n"), QString("t.libsvm:2: bad token \"2:3\": index 2 appears twice on the line"));
        QCOMPARE(problem("1 1:1\n\n0 5:1 3:3\n"), QString("t.libsvm:3: bad token \"3:3\": index 3 does not increase (previous 5)"));
        QCOMPARE(problem("1 2147483648:1\n"),
                 QString("t.libsvm:1: bad token \"2147483648:1\": index 2147483648 overflows 32 bits: a row's indices go "
                         "up to 2147483647 (LIBLINEAR's and LIBSVM's limit too)"));
        QCOMPARE(problem("1 1:1\n1 99999999999999999999999:1\n"),
                 QString("t.libsvm:2: bad token \"99999999999999999999999:1\": index 99999999999999999999999 overflows "
                         "32 bits: a row's indices go up to 2147483647 (LIBLINEAR's and LIBSVM's limit too)"));
        o.features = 10;
        QCOMPARE(problem("1 1:1\n1 11:1\n"), QString("t.libsvm:2: bad token \"11:1\": index 11 exceeds the 10 features expected"));
        o.features = 2147483648LL;
        QVERIFY(problem("1 1:1\n").contains("feature count 2147483648 outside 0..2147483647"));
        // The largest index a row holds loads.
        o.features = 0;
        const Dataset wide = LibsvmLoader::parse("1 2147483647:1.5\n", "w.libsvm", o);
        QCOMPARE(wide.inputs(), Eigen::Index(2147483647));
        QCOMPARE(wide.xSparse.coeff(0, 2147483646), 1.5);
    }

    void gzipIsReadInPiecesTwice()
    {
        // Lines that straddle the reader's pieces, through gzip: the same rows as the bytes.
        QByteArray text;
        for (int i = 0; i < 3000; ++i)
            text += QByteArray::number(i % 2) + " " + QByteArray::number(1 + i % 7) + ":" + QByteArray::number(i) +
                    " 9:0.5\n";
        QTemporaryDir dir;
        const QString plain = dir.filePath("p.libsvm");
        QFile f(plain);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        QVERIFY(QProcess::execute("gzip", {"-k", plain}) == 0);
        LibsvmLoader::Options o;
        o.storage = LibsvmLoader::Storage::Sparse;
        const Dataset a = LibsvmLoader::load(plain + ".gz", o);
        const Dataset b = LibsvmLoader::parse(text, "p.libsvm", o);
        QCOMPARE(a.rows(), Eigen::Index(3000));
        QCOMPARE(Eigen::MatrixXd(a.xSparse), Eigen::MatrixXd(b.xSparse));
        QCOMPARE(a.labels, b.labels);
    }

    void writtenFilesReadBackTheSameDoubles()
    {
        // A generated corpus written by LibsvmWriter (full precision) and read back, sparse.
        SparseTextGenerator::Spec spec;
        spec.rows = 200;
        spec.features = 100000;
        spec.wordsPerRow = 20;
        spec.classes = 3;
        const Dataset a = SparseTextGenerator::generate(spec);
        QTemporaryDir dir;
        const QString path = dir.filePath("corpus.libsvm");
        LibsvmWriter::write(a, path);
        LibsvmLoader::Options o;
        o.features = spec.features;
        o.classNames = {"0", "1", "2"};
        const Dataset b = LibsvmLoader::load(path, o);
        QVERIFY(b.isSparse()); // auto: 200 × 100000 doubles would be 153 MiB
        QCOMPARE(b.xSparse.nonZeros(), a.xSparse.nonZeros());
        QVERIFY((b.xSparse - a.xSparse).norm() == 0.0);
        QCOMPARE(b.labels, a.labels);
        // Dense sets too; an unwritable path is an error naming it, and nothing is left there.
        LibsvmWriter::write(a.densified(), dir.filePath("dense.libsvm"));
        QCOMPARE(DataFile::readAll(dir.filePath("dense.libsvm")), DataFile::readAll(path));
        const QString bad = dir.filePath("no/such/folder/x.libsvm");
        QVERIFY(expectError([&] { LibsvmWriter::write(a, bad); }).text().startsWith(bad + ": cannot write"));
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
