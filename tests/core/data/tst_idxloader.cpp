#include <data/DataError.h>
#include <data/IdxLoader.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <zlib.h>
#include <ExpectDataError.h>

using namespace tb::data;
using tb::testsupport::expectError;

namespace {

QByteArray be32(quint32 v)
{
    QByteArray b(4, '\0');
    qToBigEndian(v, b.data());
    return b;
}

QByteArray imagesFile(quint32 count, quint32 rows, quint32 cols, const QByteArray& pixels)
{
    return be32(IdxLoader::imagesMagic) + be32(count) + be32(rows) + be32(cols) + pixels;
}

QByteArray labelsFile(const QByteArray& labels, quint32 count)
{
    return be32(IdxLoader::labelsMagic) + be32(count) + labels;
}
QByteArray labelsFile(const QByteArray& labels)
{
    return labelsFile(labels, quint32(labels.size()));
}

void writePlain(const QString& path, const QByteArray& data)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(data), qint64(data.size()));
}

void writeGz(const QString& path, const QByteArray& data)
{
    gzFile f = gzopen(QFile::encodeName(path).constData(), "wb");
    QVERIFY(f);
    QCOMPARE(gzwrite(f, data.constData(), unsigned(data.size())), int(data.size()));
    QCOMPARE(gzclose(f), Z_OK);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

/// Runs @p fn, expecting a DataError; returns it.
// Three 2×3 images whose pixels include 0 and 255.
const QByteArray pixels("\x00\x01\x02\x03\x04\xff"
                        "\x10\x20\x30\x40\x50\x60"
                        "\xff\xfe\xfd\x00\x00\x80",
                        18);
const QByteArray labels3("\x03\x00\x09", 3);

} // namespace

class TestIdxLoader : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

    void checkRoundTrip(const QString& images, const QString& labels)
    {
        int r = 0, c = 0;
        const Eigen::MatrixXd x = IdxLoader::readImages(images, &r, &c);
        QCOMPARE(r, 2);
        QCOMPARE(c, 3);
        QCOMPARE(x.rows(), Eigen::Index(3));
        QCOMPARE(x.cols(), Eigen::Index(6));
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 6; ++j)
                QCOMPARE(x(i, j), quint8(pixels[i * 6 + j]) / 255.0); // exact: same division
        QCOMPARE(x(0, 5), 1.0);
        QCOMPARE(x(0, 0), 0.0);
        QCOMPARE(IdxLoader::readLabels(labels), (std::vector<int>{3, 0, 9}));

        const Dataset d = IdxLoader::load(images, labels, {});
        QCOMPARE(d.task, tb::Task::Classification);
        QCOMPARE(d.rows(), Eigen::Index(3));
        QCOMPARE(d.outputs(), Eigen::Index(10));
        QCOMPARE(d.classNames.size(), 10);
        QCOMPARE(d.classNames[9], QString("9"));
        QCOMPARE(d.labels, (std::vector<int>{3, 0, 9}));
        QCOMPARE(d.y(0, 3), 1.0);
        QCOMPARE(d.y.sum(), 3.0);
        QCOMPARE(d.x, x);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void roundTripPlain()
    {
        writePlain(path("img"), imagesFile(3, 2, 3, pixels));
        writePlain(path("lab"), labelsFile(labels3));
        checkRoundTrip(path("img"), path("lab"));
    }

    void roundTripGzipDetectedByMagicNotName()
    {
        // gzip data under a plain name, and plain data under a .gz name.
        writeGz(path("img.idx"), imagesFile(3, 2, 3, pixels));
        writePlain(path("lab.gz"), labelsFile(labels3));
        checkRoundTrip(path("img.idx"), path("lab.gz"));
    }

    void largerGzipRoundTrip()
    {
        // Bigger than the reader's chunks and zlib's buffer, with a limit (random subset).
        const int n = 3000, side = 28;
        QByteArray px(n * side * side, '\0');
        QByteArray lab(n, '\0');
        for (int i = 0; i < n; ++i) {
            lab[i] = char(i % 10);
            for (int p = 0; p < side * side; ++p)
                px[i * side * side + p] = char((i * 7 + p * 13) & 0xff);
        }
        writeGz(path("big-img.gz"), imagesFile(n, side, side, px));
        writeGz(path("big-lab.gz"), labelsFile(lab));
        const Eigen::MatrixXd all = IdxLoader::readImages(path("big-img.gz"));
        QCOMPARE(all.rows(), Eigen::Index(n));
        QCOMPARE(all(2999, 783), double((2999 * 7 + 783 * 13) & 0xff) / 255.0);

        IdxLoader::Options o;
        o.limit = 100;
        o.seed = 5;
        const Dataset d = IdxLoader::load(path("big-img.gz"), path("big-lab.gz"), o);
        QCOMPARE(d.rows(), Eigen::Index(100));
        QVERIFY(d.description.contains("random 100 of 3000"));
        // Each subset row is an original row with its own label (label = row index mod 10,
        // and pixel 0 = 7·row mod 256 identifies the row).
        for (Eigen::Index i = 0; i < d.rows(); ++i) {
            bool found = false;
            for (int r = d.labels[std::size_t(i)]; r < n && !found; r += 10)
                found = d.x.row(i) == all.row(r);
            QVERIFY(found);
        }
        const Dataset again = IdxLoader::load(path("big-img.gz"), path("big-lab.gz"), o);
        QCOMPARE(again.x, d.x);
        o.seed = 6;
        QVERIFY(IdxLoader::load(path("big-img.gz"), path("big-lab.gz"), o).x != d.x);
        o.limit = 3001;
        const auto e = expectError([&] { IdxLoader::load(path("big-img.gz"), path("big-lab.gz"), o); });
        QCOMPARE(e.key(), QString("limit"));
        QVERIFY2(e.text().contains("3001") && e.text().contains("1..3000") && e.text().contains("big-img.gz"),
                 e.what());
    }

    void wrongMagic()
    {
        writePlain(path("labels-as-images"), labelsFile(labels3));
        const auto e = expectError([&] { IdxLoader::readImages(path("labels-as-images")); });
        QVERIFY2(e.text().startsWith(path("labels-as-images") + ": at byte offset 0: wrong magic number"), e.what());
        QVERIFY2(e.text().contains("expected 0x00000803") && e.text().contains("found 0x00000801"), e.what());
        QCOMPARE(e.value(), QString("0x00000801"));

        writeGz(path("text.gz"), "hello, this is not IDX");
        const auto t = expectError([&] { IdxLoader::readLabels(path("text.gz")); });
        QVERIFY2(t.text().contains("expected 0x00000801") && t.text().contains("not an IDX file"), t.what());
    }

    void truncatedPlain()
    {
        writePlain(path("short-img"), imagesFile(3, 2, 3, pixels.left(10)));
        const auto e = expectError([&] { IdxLoader::readImages(path("short-img")); });
        QVERIFY2(e.text().contains(path("short-img")), e.what());
        QVERIFY2(e.text().contains("truncated file: expected 18 bytes of pixel data from byte offset 16, got 10"),
                 e.what());
        QCOMPARE(e.byteOffset(), qint64(16));
    }

    void truncatedGzip()
    {
        writeGz(path("short-img.gz"), imagesFile(3, 2, 3, pixels.left(10)));
        const auto e = expectError([&] { IdxLoader::readImages(path("short-img.gz")); });
        QVERIFY2(e.text().contains("expected 18 bytes of pixel data from byte offset 16, got 10"), e.what());

        // A gzip archive cut in the middle (e.g. an interrupted download).
        QByteArray px(20000, '\0');
        for (int i = 0; i < px.size(); ++i)
            px[i] = char((i * 2654435761u) >> 24); // poorly compressible
        writeGz(path("full.gz"), imagesFile(25, 28, 28, px.left(25 * 784)));
        const QByteArray gz = readAll(path("full.gz"));
        writePlain(path("cut.gz"), gz.left(gz.size() / 2));
        const auto c = expectError([&] { IdxLoader::readImages(path("cut.gz")); });
        QVERIFY2(c.text().contains(path("cut.gz")) && c.text().contains("truncated file: expected 19600 bytes") &&
                     c.text().contains("gzip stream ends early"),
                 c.what());
    }

    void truncatedHeader()
    {
        writePlain(path("stub"), be32(IdxLoader::labelsMagic) + QByteArray("\x00\x00", 2));
        const auto e = expectError([&] { IdxLoader::readLabels(path("stub")); });
        QVERIFY2(e.text().contains("expected 4 bytes of header (dimension 1 of 1) from byte offset 4, got 2"),
                 e.what());
    }

    void trailingData()
    {
        writePlain(path("long-lab"), labelsFile(labels3 + "junk", 3));
        const auto e = expectError([&] { IdxLoader::readLabels(path("long-lab")); });
        QVERIFY2(e.text().contains("at byte offset 11") && e.text().contains("4 unexpected byte(s)"), e.what());
    }

    void labelCountMismatch()
    {
        writePlain(path("img3"), imagesFile(3, 2, 3, pixels));
        writePlain(path("lab2"), labelsFile(labels3.left(2)));
        const auto e = expectError([&] { IdxLoader::load(path("img3"), path("lab2"), {}); });
        QVERIFY2(e.text().contains(path("lab2")) && e.text().contains(path("img3")), e.what());
        QVERIFY2(e.text().contains("count mismatch: 2 labels here but 3 images"), e.what());
        QCOMPARE(e.byteOffset(), qint64(4));
    }

    void labelOutOfRange()
    {
        writePlain(path("lab-bad"), labelsFile(QByteArray("\x01\x0c\x02", 3)));
        const auto e = expectError([&] { IdxLoader::readLabels(path("lab-bad"), 10); });
        QVERIFY2(e.text().startsWith(path("lab-bad") + ": at byte offset 9: label 12 of item 1 is out of range 0..9"),
                 e.what());
        QCOMPARE(e.value(), QString("12"));
        // The same file is fine with 16 classes.
        QCOMPARE(IdxLoader::readLabels(path("lab-bad"), 16), (std::vector<int>{1, 12, 2}));
    }

    void brokenHeaderCannotForceAHugeAllocation()
    {
        // 2^31 images of 2^16×2^16 pixels: must be rejected from the header, not allocated.
        writePlain(path("huge"), be32(IdxLoader::imagesMagic) + be32(0x80000000u) + be32(65536) + be32(65536));
        const auto e = expectError([&] { IdxLoader::readImages(path("huge")); });
        QVERIFY2(e.text().contains("header announces more than"), e.what());
        // A gzip header's size cannot be confirmed before inflating: 745 GiB as doubles is refused
        // against the memory available (the limit set here makes that independent of the machine) …
        writeGz(path("huge.gz"), be32(IdxLoader::imagesMagic) + be32(100000) + be32(1000) + be32(1000));
        qputenv("TRAINBENCH_MEMORY_LIMIT", "4G");
        const auto g = expectError([&] { IdxLoader::readImages(path("huge.gz")); });
        QVERIFY2(g.text().startsWith(path("huge.gz") + ": 100000 images of 1000×1000 pixels as doubles needs 745 GiB, "
                                                        "but only 4.00 GiB is available"),
                 g.what());
        // … and a claim that fits is read as data arrives, so the cut-off stream is the error.
        writeGz(path("lying.gz"), be32(IdxLoader::imagesMagic) + be32(1000) + be32(100) + be32(100));
        const auto l = expectError([&] { IdxLoader::readImages(path("lying.gz")); });
        qunsetenv("TRAINBENCH_MEMORY_LIMIT");
        QVERIFY2(l.text().contains("expected 10000000 bytes") && l.text().contains("got 0"), l.what());
    }

    void missingFile()
    {
        const auto e = expectError([&] { IdxLoader::readImages(path("does-not-exist")); });
        QVERIFY2(e.text().startsWith(path("does-not-exist") + ": cannot open"), e.what());
    }

    void fashionMnistFullLoad()
    {
        const QString dir = IdxLoader::fashionMnistDir();
        if (dir.isEmpty())
            QSKIP("Fashion-MNIST not installed (/usr/share/datasets/fashion-mnist or $TRAINBENCH_FASHION_MNIST)");
        QElapsedTimer t;
        t.start();
        const DatasetPair p = IdxLoader::loadFashionMnist(dir);
        qInfo("Fashion-MNIST train+test loaded in %lld ms (reported, not asserted)", t.elapsed());
        QCOMPARE(p.train.rows(), Eigen::Index(60000));
        QCOMPARE(p.train.inputs(), Eigen::Index(784));
        QCOMPARE(p.test.rows(), Eigen::Index(10000));
        QCOMPARE(p.test.inputs(), Eigen::Index(784));
        QCOMPARE(p.train.classNames.size(), 10);
        QCOMPARE(p.train.classNames[9], QString("Ankle boot"));
        QCOMPARE(p.train.outputs(), Eigen::Index(10));
        QCOMPARE(p.train.x.minCoeff(), 0.0);
        QCOMPARE(p.train.x.maxCoeff(), 1.0);
        QVERIFY(p.test.x.minCoeff() >= 0.0 && p.test.x.maxCoeff() <= 1.0);
        // Fashion-MNIST is balanced: 6000 train and 1000 test images per class.
        for (auto c : p.train.classCounts())
            QCOMPARE(c, Eigen::Index(6000));
        for (auto c : p.test.classCounts())
            QCOMPARE(c, Eigen::Index(1000));
        QCOMPARE(p.train.description, QString("fashion-mnist train 60000×784"));
    }
};

QTEST_APPLESS_MAIN(TestIdxLoader)
#include "tst_idxloader.moc"
