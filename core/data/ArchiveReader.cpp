#include "ArchiveReader.h"

#include "DataError.h"
#include "DataFile.h"
#include "MemoryBudget.h"

#include <QFile>

#include <archive.h>
#include <archive_entry.h>

#include <memory>

namespace tb::data {
namespace {

using Archive = std::unique_ptr<archive, decltype(&archive_read_free)>;

QString why(archive* a)
{
    const char* s = archive_error_string(a);
    return s ? QString::fromUtf8(s) : QStringLiteral("unknown libarchive error");
}

/// An archive reader over @p path or @p bytes; @p raw: a single compressed stream (no container).
Archive open(const QString& name, const QString* path, const QByteArray* bytes, bool raw)
{
    Archive a(archive_read_new(), &archive_read_free);
    if (!a)
        throw DataError::inFile(name, QStringLiteral("cannot start libarchive"));
    archive_read_support_filter_all(a.get());
    if (raw) {
        archive_read_support_format_raw(a.get());
    } else {
        archive_read_support_format_tar(a.get());
        archive_read_support_format_gnutar(a.get());
        archive_read_support_format_zip(a.get());
    }
    int r = ARCHIVE_OK;
    if (path) {
        // DataFile::open refuses FIFOs and devices without blocking; libarchive then reads the fd.
        QFile probe;
        DataFile::open(probe, *path);
        probe.close();
        r = archive_read_open_filename(a.get(), QFile::encodeName(*path).constData(), 1 << 16);
    } else {
        r = archive_read_open_memory(a.get(), bytes->constData(), std::size_t(bytes->size()));
    }
    if (r != ARCHIVE_OK)
        throw DataError::inFile(name, QStringLiteral("not a readable archive: %1").arg(why(a.get())));
    return a;
}

/// Reads the current entry's data; @p declared < 0 when unknown.
QByteArray readData(archive* a, const QString& name, qint64 declared)
{
    QByteArray out;
    if (declared > 0) {
        MemoryBudget::require(std::uint64_t(declared), QStringLiteral("extracting %1").arg(name), name);
        out.reserve(qsizetype(declared));
    }
    char buffer[1 << 16];
    for (;;) {
        const la_ssize_t n = archive_read_data(a, buffer, sizeof buffer);
        if (n < 0)
            throw DataError::atOffset(name, out.size(), {}, {}, QStringLiteral("corrupt data: %1").arg(why(a)));
        if (n == 0)
            break;
        if (out.size() + n > out.capacity()) {
            const qint64 next = std::max<qint64>(qint64(out.size()) + n, qint64(out.capacity()) * 2);
            MemoryBudget::require(std::uint64_t(next),
                                  QStringLiteral("extracting %1 (%2 so far)")
                                      .arg(name, MemoryBudget::formatBytes(std::uint64_t(out.size()))),
                                  name);
            out.reserve(qsizetype(next));
        }
        out.append(buffer, qsizetype(n));
    }
    return out;
}

QByteArray findMember(archive* a, const QString& archiveName, const QString& wanted)
{
    archive_entry* e = nullptr;
    QStringList seen;
    for (;;) {
        const int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN)
            throw DataError::inFile(archiveName, QStringLiteral("corrupt archive: %1").arg(why(a)));
        if (archive_entry_filetype(e) != AE_IFREG)
            continue;
        const QString name = QString::fromUtf8(archive_entry_pathname_utf8(e) ? archive_entry_pathname_utf8(e)
                                                                               : archive_entry_pathname(e));
        if (name == wanted || (name.startsWith(QStringLiteral("./")) && name.mid(2) == wanted))
            return readData(a, archiveName + QStringLiteral(": ") + wanted,
                            archive_entry_size_is_set(e) ? qint64(archive_entry_size(e)) : -1);
        seen << name;
        archive_read_data_skip(a);
    }
    if (seen.size() > 20)
        seen = seen.mid(0, 20) << QStringLiteral("…");
    throw DataError::inFile(archiveName, QStringLiteral("no member \"%1\" in the archive (it holds: %2)")
                                             .arg(wanted, seen.isEmpty() ? QStringLiteral("no files")
                                                                         : seen.join(QStringLiteral(", "))));
}

} // namespace

QStringList ArchiveReader::members(const QString& path)
{
    Archive a = open(path, &path, nullptr, false);
    QStringList out;
    archive_entry* e = nullptr;
    for (;;) {
        const int r = archive_read_next_header(a.get(), &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN)
            throw DataError::inFile(path, QStringLiteral("corrupt archive: %1").arg(why(a.get())));
        if (archive_entry_filetype(e) == AE_IFREG)
            out << QString::fromUtf8(archive_entry_pathname(e));
        archive_read_data_skip(a.get());
    }
    return out;
}

QByteArray ArchiveReader::member(const QString& path, const QString& member)
{
    Archive a = open(path, &path, nullptr, false);
    return findMember(a.get(), path, member);
}

QByteArray ArchiveReader::member(const QByteArray& archiveBytes, const QString& name, const QString& member)
{
    Archive a = open(name, nullptr, &archiveBytes, false);
    return findMember(a.get(), name, member);
}

QByteArray ArchiveReader::decompress(const QString& path)
{
    Archive a = open(path, &path, nullptr, true);
    archive_entry* e = nullptr;
    const int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF)
        return {};
    if (r < ARCHIVE_WARN)
        throw DataError::inFile(path, QStringLiteral("corrupt compressed file: %1").arg(why(a.get())));
    return readData(a.get(), path, -1);
}

} // namespace tb::data
