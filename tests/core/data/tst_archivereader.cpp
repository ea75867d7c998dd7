// ArchiveReader on archives the test writes with libarchive: tar with gzip, bzip2 and xz, zip,
// single compressed files, a member inside a zip held in memory; and its errors (a missing
// member, a corrupt or truncated archive, a member larger than the memory allowed).

#include <data/ArchiveReader.h>
#include <data/DataError.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <archive.h>
#include <archive_entry.h>

using namespace tb::data;

namespace {

enum class Filter { None, Gzip, Bzip2, Xz };

/// An archive (tar, zip, or raw: one compressed stream) of @p members, in memory.
QByteArray write(const QList<QPair<QString, QByteArray>>& members, const char* format, Filter filter)
{
    archive* a = archive_write_new();
    if (qstrcmp(format, "zip") == 0)
        archive_write_set_format_zip(a);
    else if (qstrcmp(format, "raw") == 0)
        archive_write_set_format_raw(a);
    else
        archive_write_set_format_pax_restricted(a);
    switch (filter) {
    case Filter::Gzip: archive_write_add_filter_gzip(a); break;
    case Filter::Bzip2: archive_write_add_filter_bzip2(a); break;
    case Filter::Xz: archive_write_add_filter_xz(a); break;
    case Filter::None: break;
    }
    QByteArray out(16 << 20, '\0');
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

QByteArray text(int lines)
{
    QByteArray b;
    for (int i = 0; i < lines; ++i)
        b += QByteArray::number(i) + "," + QByteArray::number(i * i) + "\n";
    return b;
}

} // namespace

class TestArchiveReader : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString save(const QString& name, const QByteArray& bytes)
    {
        const QString p = m_dir.filePath(name);
        QFile f(p);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(p));
        return p;
    }

private Q_SLOTS:
    void tarWithEachCompression_data()
    {
        QTest::addColumn<int>("filter");
        QTest::newRow("tar") << int(Filter::None);
        QTest::newRow("tar.gz") << int(Filter::Gzip);
        QTest::newRow("tar.bz2") << int(Filter::Bzip2);
        QTest::newRow("tar.xz") << int(Filter::Xz);
    }
    void tarWithEachCompression()
    {
        QFETCH(int, filter);
        const QByteArray a = text(1000), b = text(7);
        const QString p = save(QStringLiteral("t%1.tar").arg(filter),
                               write({{"Set/a.data", a}, {"Set/b.test", b}}, "tar", Filter(filter)));
        QCOMPARE(ArchiveReader::members(p), (QStringList{"Set/a.data", "Set/b.test"}));
        QCOMPARE(ArchiveReader::member(p, "Set/b.test"), b);
        QCOMPARE(ArchiveReader::member(p, "Set/a.data"), a);
    }

    void zipAndAZipInsideAZip()
    {
        const QByteArray inner = write({{"xl/worksheets/sheet1.xml", "<x/>"}}, "zip", Filter::None);
        const QString p = save("outer.zip", write({{"CCPP/Readme.txt", "hi"}, {"CCPP/book.xlsx", inner}}, "zip", Filter::None));
        QCOMPARE(ArchiveReader::member(p, "CCPP/book.xlsx"), inner);
        QCOMPARE(ArchiveReader::member(ArchiveReader::member(p, "CCPP/book.xlsx"), "book", "xl/worksheets/sheet1.xml"),
                 QByteArray("<x/>"));
    }

    void singleCompressedFiles_data()
    {
        QTest::addColumn<int>("filter");
        QTest::newRow("gz") << int(Filter::Gzip);
        QTest::newRow("bz2") << int(Filter::Bzip2);
        QTest::newRow("xz") << int(Filter::Xz);
    }
    void singleCompressedFiles()
    {
        QFETCH(int, filter);
        const QByteArray data = text(5000);
        const QString p = save(QStringLiteral("one%1").arg(filter), write({{"data", data}}, "raw", Filter(filter)));
        QCOMPARE(ArchiveReader::decompress(p), data);
    }

    void errorsNameTheArchive()
    {
        const QString p = save("e.tar.gz", write({{"a.csv", text(10)}}, "tar", Filter::Gzip));
        try {
            ArchiveReader::member(p, "b.csv");
            QFAIL("a missing member was found");
        } catch (const DataError& e) {
            QVERIFY2(e.text() == p + ": no member \"b.csv\" in the archive (it holds: a.csv)", e.what());
        }
        QByteArray cut = write({{"a.csv", text(20000)}}, "tar", Filter::Gzip);
        cut.truncate(cut.size() / 2);
        const QString t = save("cut.tar.gz", cut);
        QVERIFY_THROWS_EXCEPTION(DataError, ArchiveReader::member(t, "a.csv"));
        const QString junk = save("junk.zip", QByteArray("PK\x03\x04 this is no zip at all", 28));
        try {
            ArchiveReader::member(junk, "a.csv");
            QFAIL("junk was read");
        } catch (const DataError& e) {
            QVERIFY2(e.text().startsWith(junk + ": "), e.what());
        }
    }

    void aMemberLargerThanTheMemoryAllowedIsRefused()
    {
        const QString p = save("big.tar.xz", write({{"big.csv", QByteArray(8 << 20, 'x')}}, "tar", Filter::Xz));
        qputenv("TRAINBENCH_MEMORY_LIMIT", "1M");
        try {
            ArchiveReader::member(p, "big.csv");
            qunsetenv("TRAINBENCH_MEMORY_LIMIT");
            QFAIL("an 8 MiB member fitted in 1 MiB");
        } catch (const DataError& e) {
            qunsetenv("TRAINBENCH_MEMORY_LIMIT");
            QVERIFY2(e.text().contains("big.csv") && e.text().contains("available"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestArchiveReader)
#include "tst_archivereader.moc"
