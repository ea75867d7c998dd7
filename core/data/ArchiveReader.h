#pragma once
/// @file ArchiveReader.h
/// Members of tar and zip archives and single compressed files (gzip, bzip2, xz), read into
/// memory with libarchive.

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace tb::data {

/// Reads what the catalogue's files come in: tar (plain, .tar.gz/.tgz, .tar.bz2, .tar.xz), zip,
/// and a single file compressed with gzip, bzip2 or xz. Formats and filters are recognised by
/// content (libarchive), never by name. The memory a member needs is checked (MemoryBudget)
/// before it is read, from its declared size and again while it grows, so an archive bomb is
/// an error naming the archive, never an allocation failure. Every problem throws DataError
/// naming the archive (and the member). Reentrant.
class ArchiveReader {
public:
    /// The regular files of the archive at @p path, in archive order.
    static QStringList members(const QString& path);

    /// The content of member @p member (its path inside the archive, e.g.
    /// "CaliforniaHousing/cal_housing.data"). Throws DataError when it is not there (the
    /// message lists the members).
    static QByteArray member(const QString& path, const QString& member);

    /// The content of @p member of an archive held in @p archive (e.g. a zip inside a zip);
    /// @p name names it in messages.
    static QByteArray member(const QByteArray& archive, const QString& name, const QString& member);

    /// The decompressed content of a single compressed file (gzip, bzip2 or xz); a file that is
    /// not compressed is returned as it is.
    static QByteArray decompress(const QString& path);
};

} // namespace tb::data
