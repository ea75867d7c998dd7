#include "DataFile.h"

#include "DataError.h"
#include "MemoryBudget.h"

#include <QFile>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tb::data {
namespace {

QString kindOf(mode_t mode)
{
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO (named pipe)");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    if (S_ISDIR(mode))
        return QStringLiteral("a folder");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    return QStringLiteral("not a regular file");
}

} // namespace

void DataFile::open(QFile& file, const QString& path)
{
    // O_NONBLOCK: opening a FIFO without a writer would block until one appears. It changes
    // nothing for a regular file, and is cleared before the file is read.
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        throw DataError::inFile(
            path, QStringLiteral("cannot open: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw DataError::inFile(
            path, QStringLiteral("cannot examine: %1").arg(QString::fromLocal8Bit(std::strerror(err))));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw DataError::inFile(
            path, QStringLiteral("is %1, not a regular file; data must be read from a file on disk")
                      .arg(kindOf(st.st_mode)));
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        throw DataError::inFile(path, QStringLiteral("cannot open: %1").arg(file.errorString()));
    }
}

bool DataFile::isGzip(const QByteArray& bytes)
{
    return bytes.size() >= 2 && quint8(bytes[0]) == 0x1f && quint8(bytes[1]) == 0x8b;
}

QByteArray DataFile::readAll(const QString& path, qint64 maxBytes)
{
    QFile file;
    open(file, path);
    const qint64 size = maxBytes >= 0 ? std::min(maxBytes, file.size()) : file.size();
    char head[2] = {0, 0};
    const bool gz = file.peek(head, 2) == 2 && isGzip(QByteArray(head, 2));
    if (!gz) {
        MemoryBudget::require(std::uint64_t(size), QStringLiteral("reading the whole file"), path);
        QByteArray bytes = file.read(size);
        if (bytes.size() != size)
            throw DataError::inFile(path, QStringLiteral("read %1 of %2 bytes: %3")
                                              .arg(bytes.size())
                                              .arg(size)
                                              .arg(file.errorString()));
        return bytes;
    }
    // gzip: inflate in steps, growing the buffer only after checking the memory for it.
    const int fd = ::dup(file.handle());
    if (fd < 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
        if (fd >= 0)
            ::close(fd);
        throw DataError::inFile(
            path, QStringLiteral("cannot read: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
    }
    gzFile gzf = gzdopen(fd, "rb");
    if (!gzf) {
        ::close(fd);
        throw DataError::inFile(path, QStringLiteral("cannot open the gzip stream"));
    }
    gzbuffer(gzf, 1 << 20);
    QByteArray out;
    qint64 have = 0;
    try {
        for (;;) {
            if (maxBytes >= 0 && have >= maxBytes)
                break;
            if (have == out.size()) {
                const qint64 grow = std::max<qint64>(qint64(1) << 20, out.size());
                MemoryBudget::require(std::uint64_t(out.size() + grow),
                                      QStringLiteral("decompressing the gzip file (%1 so far)")
                                          .arg(MemoryBudget::formatBytes(std::uint64_t(have))),
                                      path);
                out.resize(out.size() + grow);
            }
            qint64 room = out.size() - have;
            if (maxBytes >= 0)
                room = std::min(room, maxBytes - have);
            const unsigned step = unsigned(std::min<qint64>(room, qint64(1) << 30));
            const int got = gzread(gzf, out.data() + have, step);
            if (got < 0) {
                int code = Z_OK;
                const char* msg = gzerror(gzf, &code);
                throw DataError::atOffset(path, have, {}, {},
                                          QStringLiteral("corrupt gzip data: %1")
                                              .arg(QString::fromUtf8(msg ? msg : "unknown zlib error")));
            }
            if (got == 0)
                break;
            have += got;
        }
        // gzread() returns 0 at the end, also of a cut-off stream: zlib then reports Z_BUF_ERROR.
        int code = Z_OK;
        gzerror(gzf, &code);
        if (code == Z_BUF_ERROR && (maxBytes < 0 || have < maxBytes))
            throw DataError::atOffset(
                path, have, {}, {},
                QStringLiteral("truncated gzip file: the compressed stream ends after %1 bytes of data")
                    .arg(have));
    } catch (...) {
        gzclose(gzf);
        throw;
    }
    gzclose(gzf);
    out.resize(have);
    return out;
}

void DataFile::forEachLines(const QString& path, const std::function<void(std::string_view)>& consume,
                            qint64 chunkBytes)
{
    QFile file;
    open(file, path);
    // zlib reads a file that is not gzip as it is ("transparent" mode): one reader for both.
    const int fd = ::dup(file.handle());
    if (fd < 0) {
        throw DataError::inFile(
            path, QStringLiteral("cannot read: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
    }
    gzFile gzf = gzdopen(fd, "rb");
    if (!gzf) {
        ::close(fd);
        throw DataError::inFile(path, QStringLiteral("cannot open the file for reading"));
    }
    gzbuffer(gzf, 1 << 20);
    chunkBytes = std::max<qint64>(chunkBytes, 1 << 12);
    QByteArray buffer;
    qint64 total = 0; // bytes handed over so far, for messages
    try {
        MemoryBudget::require(std::uint64_t(chunkBytes), QStringLiteral("a read buffer"), path);
        buffer.resize(chunkBytes);
        qint64 have = 0; // bytes in buffer, the first of them a line's start
        for (;;) {
            if (have == buffer.size()) {
                // One line fills the buffer: grow it.
                MemoryBudget::require(std::uint64_t(buffer.size()) * 2,
                                      QStringLiteral("a line of more than %1").arg(MemoryBudget::formatBytes(std::uint64_t(have))),
                                      path);
                buffer.resize(buffer.size() * 2);
            }
            const unsigned step = unsigned(std::min<qint64>(buffer.size() - have, qint64(1) << 30));
            const int got = gzread(gzf, buffer.data() + have, step);
            if (got < 0) {
                int code = Z_OK;
                const char* msg = gzerror(gzf, &code);
                throw DataError::atOffset(path, total + have, {}, {},
                                          QStringLiteral("corrupt gzip data: %1")
                                              .arg(QString::fromUtf8(msg ? msg : "unknown zlib error")));
            }
            if (got == 0) {
                int code = Z_OK;
                gzerror(gzf, &code);
                if (code == Z_BUF_ERROR)
                    throw DataError::atOffset(
                        path, total + have, {}, {},
                        QStringLiteral("truncated gzip file: the compressed stream ends after %1 bytes of data")
                            .arg(total + have));
                if (have > 0)
                    consume(std::string_view(buffer.constData(), std::size_t(have)));
                break;
            }
            have += got;
            // Hand over the whole lines; keep the last, unfinished one for the next read.
            const std::string_view view(buffer.constData(), std::size_t(have));
            const std::size_t lastNewline = view.rfind('\n');
            if (lastNewline == std::string_view::npos)
                continue;
            const std::size_t whole = lastNewline + 1;
            consume(view.substr(0, whole));
            std::memmove(buffer.data(), buffer.constData() + whole, std::size_t(have) - whole);
            have -= qint64(whole);
            total += qint64(whole);
        }
    } catch (...) {
        gzclose(gzf);
        throw;
    }
    gzclose(gzf);
}

} // namespace tb::data
