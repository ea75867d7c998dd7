#pragma once
/// @file DataFile.h
/// Opening and reading the loaders' input files: regular files only, memory checked, gzip aware.

#include <QByteArray>
#include <QString>

#include <functional>
#include <string_view>

class QFile;

namespace tb::data {

/// How the loaders open their input. A data file must be a regular file (symbolic links are
/// followed): a FIFO would block the process in open() where no signal handler can help, and
/// /dev/zero or a terminal never ends. Opening never blocks. Every problem throws DataError
/// naming the file. Reentrant.
class DataFile {
public:
    /// Opens @p path for reading into @p file (which must not be open). Throws DataError when the
    /// file cannot be opened or is not a regular file ("… is a FIFO (named pipe), not a regular
    /// file").
    static void open(QFile& file, const QString& path);

    /// True when @p bytes start with the gzip magic number (0x1f 0x8b).
    static bool isGzip(const QByteArray& bytes);

    /// The whole content of @p path; a gzip file (recognised by its first two bytes, whatever
    /// its name) is decompressed. Before the bytes are read, and again whenever the decompressed
    /// data grows, MemoryBudget::require() checks that they fit: a gzip bomb or a file larger
    /// than the memory left is an error naming the file and the size, never an allocation
    /// failure. Throws DataError for a corrupt or truncated gzip stream too. With @p maxBytes ≥ 0
    /// only the first @p maxBytes (decompressed) bytes are read, e.g. for a preview.
    static QByteArray readAll(const QString& path, qint64 maxBytes = -1);

    /// Reads @p path (plain or gzip) in pieces of about @p chunkBytes and hands @p consume one
    /// piece of whole lines at a time (each ends with '\n', except perhaps the file's last), in
    /// order: a loader can parse a file far larger than the memory it may take. A line longer
    /// than @p chunkBytes makes the buffer grow to hold it (memory checked). Throws DataError as
    /// readAll() does; exceptions of @p consume pass through.
    static void forEachLines(const QString& path, const std::function<void(std::string_view)>& consume,
                             qint64 chunkBytes = qint64(4) << 20);
};

} // namespace tb::data
