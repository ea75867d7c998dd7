#include "DatasetCache.h"

#include "DataError.h"
#include "MemoryBudget.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

namespace tb::data {
namespace {

QJsonObject readStamp(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.read(1 << 16)).object();
}

QString sizeText(qint64 bytes)
{
    return bytes >= 0 ? MemoryBudget::formatBytes(std::uint64_t(bytes)) : QStringLiteral("unknown size");
}

} // namespace

QString DatasetCache::root()
{
    const QString env = qEnvironmentVariable("TRAINBENCH_DATASETS_DIR");
    if (!env.isEmpty())
        return QDir::cleanPath(QDir(env).absolutePath());
    return QDir::cleanPath(QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
                           QStringLiteral("/trainbench/datasets"));
}

QString DatasetCache::folder(const DatasetEntry& entry)
{
    return root() + QLatin1Char('/') + entry.id;
}

QString DatasetCache::path(const DatasetEntry& entry, const DatasetFileInfo& file)
{
    return folder(entry) + QLatin1Char('/') + file.name;
}

QString DatasetCache::partialPath(const DatasetEntry& entry, const DatasetFileInfo& file)
{
    return root() + QStringLiteral("/.partial/") + entry.id + QLatin1Char('/') + file.name + QStringLiteral(".part");
}

QString DatasetCache::stampPath(const DatasetEntry& entry, const DatasetFileInfo& file)
{
    return folder(entry) + QStringLiteral("/.") + file.name + QStringLiteral(".verified");
}

QString DatasetCache::lockPath(const DatasetEntry& entry)
{
    return root() + QStringLiteral("/.locks/") + entry.id + QStringLiteral(".lock");
}

DatasetCache::FileState DatasetCache::fileState(const DatasetEntry& entry, const DatasetFileInfo& file)
{
    FileState s;
    const QFileInfo fi(path(entry, file));
    if (!fi.isFile())
        return s;
    s.bytes = fi.size();
    s.state = State::Unverified;
    const QJsonObject stamp = readStamp(stampPath(entry, file));
    const QString checksum = stamp.value(QStringLiteral("checksum")).toString();
    const bool user = stamp.value(QStringLiteral("user_checksum")).toBool();
    // The stamp holds for this very file (size, time) and for the checksum it must have now: the
    // catalogue's, or for an unverifiable entry the one the user gave.
    const bool sameFile = qint64(stamp.value(QStringLiteral("size")).toDouble(-1)) == fi.size() &&
                          qint64(stamp.value(QStringLiteral("mtime_ms")).toDouble(-1)) ==
                              fi.lastModified().toMSecsSinceEpoch();
    const bool sameChecksum = file.checksum.isEmpty() ? user && !checksum.isEmpty()
                                                      : checksum == file.algorithm + QLatin1Char(':') + file.checksum;
    if (sameFile && sameChecksum) {
        s.state = State::Verified;
        s.checksum = checksum;
        s.userChecksum = user;
    }
    return s;
}

DatasetCache::State DatasetCache::state(const DatasetEntry& entry)
{
    int verified = 0, present = 0;
    for (const DatasetFileInfo& f : entry.files) {
        const FileState s = fileState(entry, f);
        verified += s.state == State::Verified ? 1 : 0;
        present += s.state != State::Missing ? 1 : 0;
    }
    if (verified == entry.files.size())
        return State::Verified;
    return present == 0 ? State::Missing : State::Unverified;
}

qint64 DatasetCache::bytesOnDisk(const DatasetEntry& entry)
{
    qint64 total = 0;
    for (const DatasetFileInfo& f : entry.files) {
        total += QFileInfo(path(entry, f)).isFile() ? QFileInfo(path(entry, f)).size() : 0;
        total += QFileInfo(partialPath(entry, f)).isFile() ? QFileInfo(partialPath(entry, f)).size() : 0;
    }
    return total;
}

QString DatasetCache::expectedChecksum(const DatasetEntry& entry, const DatasetFileInfo& file, const QString& userChecksum,
                                       QString* algorithm, QString* error)
{
    if (!file.checksum.isEmpty()) {
        *algorithm = file.algorithm;
        if (!userChecksum.isEmpty() && userChecksum.toLower() != file.checksum) {
            if (error)
                *error = QStringLiteral("%1: the checksum given (%2) differs from the catalogue's %3 %4 (published in %5); "
                                        "the catalogue's is used, give none")
                             .arg(file.name, userChecksum, file.algorithm, file.checksum, entry.checksumSource);
            return {};
        }
        return file.checksum;
    }
    const QString given = userChecksum.toLower();
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
    if (given.isEmpty()) {
        if (error)
            *error = QStringLiteral("%1 has no published checksum (%2), so its files cannot be verified: give a SHA-256 you "
                                    "trust with --sha256 (`trainbench-cli datasets fetch %1 --sha256 HEX`)")
                         .arg(entry.id, entry.unverifiable);
        return {};
    }
    if (!hex.match(given).hasMatch()) {
        if (error)
            *error = QStringLiteral("--sha256: expected 64 hex digits, got \"%1\"").arg(userChecksum);
        return {};
    }
    *algorithm = QStringLiteral("sha256");
    return given;
}

QString DatasetCache::hashFile(const QString& path, const QString& algorithm, QString* error,
                               const std::function<bool(qint64)>& progress)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("%1: cannot read: %2").arg(path, f.errorString());
        return {};
    }
    QCryptographicHash h(algorithm == u"md5" ? QCryptographicHash::Md5 : QCryptographicHash::Sha256);
    QByteArray buffer(1 << 20, Qt::Uninitialized);
    qint64 done = 0;
    for (;;) {
        const qint64 got = f.read(buffer.data(), buffer.size());
        if (got < 0) {
            if (error)
                *error = QStringLiteral("%1: read error: %2").arg(path, f.errorString());
            return {};
        }
        if (got == 0)
            break;
        h.addData(QByteArrayView(buffer.constData(), got));
        done += got;
        if (progress && (done % (qint64(8) << 20)) < got && !progress(done)) {
            if (error)
                *error = QStringLiteral("%1: checksum stopped").arg(path);
            return {};
        }
    }
    return QString::fromLatin1(h.result().toHex());
}

bool DatasetCache::writeStamp(const DatasetEntry& entry, const DatasetFileInfo& file, const QString& checksum,
                              bool userChecksum, QString* error)
{
    const QFileInfo fi(path(entry, file));
    QSaveFile f(stampPath(entry, file));
    const QJsonObject o{{"checksum", checksum},
                        {"user_checksum", userChecksum},
                        {"size", double(fi.size())},
                        {"mtime_ms", double(fi.lastModified().toMSecsSinceEpoch())}};
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson(QJsonDocument::Compact)) < 0 || !f.commit()) {
        if (error)
            *error = QStringLiteral("%1: cannot write: %2").arg(stampPath(entry, file), f.errorString());
        return false;
    }
    return true;
}

bool DatasetCache::verify(const DatasetEntry& entry, const DatasetFileInfo& file, const QString& userChecksum,
                          QString* error, const std::function<bool(qint64)>& progress)
{
    QString algorithm;
    const QString expected = expectedChecksum(entry, file, userChecksum, &algorithm, error);
    if (expected.isEmpty())
        return false;
    const QString p = path(entry, file);
    if (!QFileInfo(p).isFile()) {
        if (error)
            *error = missingHint(entry, file);
        return false;
    }
    const QString got = hashFile(p, algorithm, error, progress);
    if (got.isEmpty())
        return false;
    if (got != expected) {
        if (error)
            *error = QStringLiteral("%1: its %2 is %3, but %4 is expected (%5); the file was not used. Remove it "
                                    "(`trainbench-cli datasets remove %6`) and fetch it again")
                         .arg(p, algorithm, got, expected,
                              file.checksum.isEmpty() ? QStringLiteral("the checksum you gave")
                                                      : QStringLiteral("published in ") + entry.checksumSource,
                              entry.id);
        return false;
    }
    return writeStamp(entry, file, algorithm + QLatin1Char(':') + got, file.checksum.isEmpty(), error);
}

QString DatasetCache::missingHint(const DatasetEntry& entry, const DatasetFileInfo& file)
{
    QStringList urls;
    for (const QString& u : file.urls)
        urls << u;
    return QStringLiteral("%1 (%2, %3) is not in the data-set cache. Fetch it with `trainbench-cli datasets fetch %2`%4, or "
                          "download %5 by hand and place it at %6 (it is verified on first use)")
        .arg(file.name, entry.id, sizeText(file.expectedSize()),
             entry.verifiable() ? QString() : QStringLiteral(" --sha256 HEX (no checksum is published)"),
             urls.join(QStringLiteral(" or ")), path(entry, file));
}

QString DatasetCache::require(const DatasetEntry& entry, const DatasetFileInfo& file)
{
    const FileState s = fileState(entry, file);
    if (s.state == State::Verified)
        return path(entry, file);
    if (s.state == State::Missing)
        throw DataError::inFile(path(entry, file), missingHint(entry, file));
    // Present but not (or no longer) verified: placed by hand, or changed since.
    if (!entry.verifiable())
        throw DataError::inFile(path(entry, file),
                                QStringLiteral("%1 has no published checksum; check the file yourself and record its SHA-256 "
                                               "with `trainbench-cli datasets verify %1 --sha256 HEX`")
                                    .arg(entry.id));
    QString error;
    if (!verify(entry, file, {}, &error)) {
        const QString prefix = path(entry, file) + QStringLiteral(": ");
        throw DataError::inFile(path(entry, file), error.startsWith(prefix) ? error.mid(prefix.size()) : error);
    }
    return path(entry, file);
}

bool DatasetCache::remove(const DatasetEntry& entry, QString* error)
{
    // Not while another process fetches the set: its rename would bring the files back.
    QDir().mkpath(QFileInfo(lockPath(entry)).absolutePath());
    QLockFile lock(lockPath(entry));
    lock.setStaleLockTime(0);
    if (!lock.tryLock(0)) {
        qint64 pid = 0;
        QString host, app;
        lock.getLockInfo(&pid, &host, &app);
        if (error)
            *error = QStringLiteral("%1 is being fetched by another process (pid %2); try again when it is done")
                         .arg(entry.id)
                         .arg(pid);
        return false;
    }
    QStringList failed;
    for (const QString& dir : {folder(entry), root() + QStringLiteral("/.partial/") + entry.id})
        if (QFileInfo(dir).exists() && !QDir(dir).removeRecursively())
            failed << dir;
    if (!failed.isEmpty()) {
        if (error)
            *error = QStringLiteral("could not remove %1").arg(failed.join(QStringLiteral(", ")));
        return false;
    }
    return true;
}

} // namespace tb::data
