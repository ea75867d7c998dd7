#include "DatasetFetcher.h"

#include "DatasetCache.h"
#include "MemoryBudget.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QNetworkAccessManager>
#include <QNetworkProxyFactory>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QStorageInfo>
#include <QTimer>
#include <QUrl>

#include <cerrno>
#include <optional>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace tb::data {
namespace {

QString bytes(qint64 n)
{
    return n >= 0 ? MemoryBudget::formatBytes(std::uint64_t(n)) : QStringLiteral("an unknown size");
}

/// What one transfer from one address came to.
struct Attempt {
    bool ok = false;           ///< the part file holds the whole file (still to be verified)
    bool madeProgress = false; ///< bytes arrived before it failed: resuming is worth a try
    bool fatal = false;        ///< no other address or retry can help (disk, cancel)
    QString error;
};

/// Free bytes where the cache lives; −1 when unknown.
qint64 freeBytes()
{
    QString dir = DatasetCache::root();
    while (!QFileInfo(dir).exists() && dir.contains(QLatin1Char('/')))
        dir = QFileInfo(dir).absolutePath();
    const QStorageInfo s(dir);
    return s.isValid() ? s.bytesAvailable() : -1;
}

/// Refuses a transfer of @p need bytes that the disk cannot hold (1 MiB kept free).
QString diskProblem(qint64 need, const QString& what)
{
    const qint64 free = freeBytes();
    if (need <= 0 || free < 0 || need + (qint64(1) << 20) <= free)
        return {};
    return QStringLiteral("not enough disk space for %1: it needs %2, but only %3 is free at %4 (set "
                          "$TRAINBENCH_DATASETS_DIR to a folder on a larger disk)")
        .arg(what, bytes(need), bytes(free), DatasetCache::root());
}

/// $TRAINBENCH_DATASETS_FAIL_WRITE_AFTER: bytes after which writes fail as on a full disk; −1: never.
qint64 failWriteAfter()
{
    bool ok = false;
    const qint64 n = qEnvironmentVariable("TRAINBENCH_DATASETS_FAIL_WRITE_AFTER").toLongLong(&ok);
    return ok && n >= 0 ? n : -1;
}

/// One transfer of one file from one address into its part file, resumed where a part is kept:
/// the request, the response's status checked as it begins, the body written as it arrives, and
/// what it came to. One use: run() once.
class Transfer {
public:
    Transfer(QNetworkAccessManager& nam, const QUrl& url, const QString& partPath, qint64 publishedSize,
             const DatasetFetcher::Options& o, const std::function<void(qint64, qint64)>& progress)
        : m_nam(nam), m_url(url), m_partPath(partPath), m_published(publishedSize), m_o(o),
          m_progress(progress), m_part(partPath), m_total(publishedSize), m_failAfter(failWriteAfter())
    {
    }

    Attempt run()
    {
        QDir().mkpath(QFileInfo(m_partPath).absolutePath());
        if (keptPartIsWhole()) {
            m_a.ok = true; // complete already; the checksum decides
            return m_a;
        }
        const auto [error, errorText] = exchange();
        if (m_part.isOpen()) {
            m_part.flush();
            ::fsync(m_part.handle());
            m_part.close();
        }
        return outcome(error, errorText);
    }

private:
    // The part kept from an earlier transfer: resumed from its end, removed when it is longer than
    // the file can be; true when it already holds the whole published file.
    bool keptPartIsWhole()
    {
        m_have = QFileInfo(m_partPath).isFile() ? QFileInfo(m_partPath).size() : 0;
        if (m_published > 0 && m_have > m_published) {
            QFile::remove(m_partPath); // longer than the file can be: not a part of it
            m_have = 0;
        }
        return m_published > 0 && m_have == m_published;
    }

    QNetworkRequest request() const
    {
        QNetworkRequest request(m_url);
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                             QNetworkRequest::NoLessSafeRedirectPolicy);
        request.setTransferTimeout(int(std::max(1.0, m_o.timeoutSeconds * 1000)));
        request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("trainbench-datasets/1"));
        // The bytes as published: no transparent decompression, so offsets and checksums hold.
        request.setRawHeader("Accept-Encoding", "identity");
        if (m_have > 0) {
            request.setRawHeader("Range", "bytes=" + QByteArray::number(m_have) + "-");
            if (m_o.message)
                m_o.message(QStringLiteral("resuming %1 at %2").arg(m_url.toString(), bytes(m_have)));
        }
        return request;
    }

    // The request and its reply, until it finishes or is cancelled (polled every 100 ms); the
    // reply's error and its text.
    std::pair<QNetworkReply::NetworkError, QString> exchange()
    {
        m_reply = m_nam.get(request());
        QEventLoop loop;
        m_sinceProgress.start();
        QObject::connect(m_reply, &QNetworkReply::readyRead, &loop, [this] { write(); });
        QObject::connect(m_reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer poll;
        QObject::connect(&poll, &QTimer::timeout, &loop, [this] {
            if (m_o.cancel && m_o.cancel->load())
                stop(QStringLiteral("cancelled; the partial download is kept and resumes next time"), true);
        });
        poll.start(100);
        if (!m_reply->isFinished())
            loop.exec();
        poll.stop();
        if (m_a.error.isEmpty() && m_reply->error() == QNetworkReply::NoError)
            write(); // what arrived with finished()
        const QNetworkReply::NetworkError error = m_reply->error();
        const QString errorText = m_reply->errorString();
        m_reply->deleteLater();
        return {error, errorText};
    }

    // Ends the transfer with @p why (the first reason given is kept).
    void stop(const QString& why, bool fatal)
    {
        if (m_a.error.isEmpty()) {
            m_a.error = why;
            m_a.fatal = fatal;
        }
        m_reply->abort();
    }

    // The response's status decides what the body is: the rest of the file (206), all of it (200:
    // a server that ignores Range, or a first request), or an error. Then the size and the disk
    // are checked and the part is opened. False when the transfer stops.
    bool begin()
    {
        m_started = true;
        const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QString reason = m_reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString();
        if (status == 206 && m_have > 0) {
            if (!acceptRange())
                return false;
        } else if (status == 200 || (status == 0 && m_url.scheme() == u"file")) {
            if (m_have > 0 && m_o.message)
                m_o.message(
                    QStringLiteral("%1 does not resume transfers; starting over").arg(m_url.toString()));
            m_have = 0;
            const QVariant length = m_reply->header(QNetworkRequest::ContentLengthHeader);
            if (length.isValid())
                m_total = length.toLongLong();
        } else if (status == 416) {
            QFile::remove(m_partPath); // the part is no prefix of this file
            stop(QStringLiteral("%1: HTTP 416 %2 for the kept part; starting over")
                     .arg(m_url.toString(), reason),
                 false);
            m_a.madeProgress = true;
            return false;
        } else {
            stop(QStringLiteral("%1: HTTP %2 %3").arg(m_url.toString()).arg(status).arg(reason), false);
            return false;
        }
        if (m_published > 0 && m_total > 0 && m_total != m_published) {
            stop(QStringLiteral("%1 sends %2 bytes, but the file is published with %3 bytes: not this file")
                     .arg(m_url.toString())
                     .arg(m_total)
                     .arg(m_published),
                 false);
            return false;
        }
        if (const QString disk =
                diskProblem(m_total > 0 ? m_total - m_have : -1, QFileInfo(m_partPath).completeBaseName());
            !disk.isEmpty()) {
            stop(disk, true);
            return false;
        }
        if (!m_part.open(m_have > 0 ? QIODevice::WriteOnly | QIODevice::Append
                                    : QIODevice::WriteOnly | QIODevice::Truncate)) {
            stop(QStringLiteral("cannot write %1: %2").arg(m_partPath, m_part.errorString()), true);
            return false;
        }
        return true;
    }

    // A 206 must answer the range asked for (from the kept part's end); its total, when given, is
    // the file's size. Another range: the part is removed and the transfer starts over.
    bool acceptRange()
    {
        static const QRegularExpression range(QStringLiteral("^bytes (\\d+)-(\\d+)/(\\d+|\\*)$"));
        const auto m = range.match(QString::fromLatin1(m_reply->rawHeader("Content-Range")).trimmed());
        if (!m.hasMatch() || m.captured(1).toLongLong() != m_have) {
            QFile::remove(m_partPath); // an answer to another range: start again from 0
            stop(QStringLiteral("%1 answered the resume with another range (%2); starting over")
                     .arg(m_url.toString(), QString::fromLatin1(m_reply->rawHeader("Content-Range"))),
                 false);
            m_a.madeProgress = true;
            return false;
        }
        if (m.captured(3) != u"*")
            m_total = m.captured(3).toLongLong();
        return true;
    }

    // What has arrived, appended to the part; a write that fails (or the simulated full disk of
    // $TRAINBENCH_DATASETS_FAIL_WRITE_AFTER) removes the part and stops.
    void write()
    {
        if (!m_a.error.isEmpty())
            return;
        if (!m_started && !begin())
            return;
        const QByteArray data = m_reply->readAll();
        if (data.isEmpty())
            return;
        qint64 n = data.size();
        QString failure;
        if (m_failAfter >= 0 && m_have + m_written + n > m_failAfter) {
            n = std::max<qint64>(0, m_failAfter - m_have - m_written);
            failure = QStringLiteral("No space left on device (simulated by $TRAINBENCH_DATASETS_FAIL_WRITE_AFTER)");
        }
        if (n > 0 && m_part.write(data.constData(), n) != n)
            failure = m_part.errorString();
        else if (n > 0 && !m_part.flush())
            failure = m_part.errorString();
        if (!failure.isEmpty()) {
            m_part.close();
            QFile::remove(m_partPath); // a part that could not be written is no use to a resume
            stop(QStringLiteral("cannot write %1: %2; the partial download was removed")
                     .arg(m_partPath, failure),
                 true);
            return;
        }
        m_written += n;
        m_a.madeProgress = true;
        if (m_progress && m_sinceProgress.elapsed() >= 100) {
            m_sinceProgress.restart();
            m_progress(m_have + m_written, m_total);
        }
    }

    // What the transfer came to, once the reply ended with @p error.
    Attempt outcome(QNetworkReply::NetworkError error, const QString& errorText)
    {
        if (!m_a.error.isEmpty())
            return m_a;
        if (error != QNetworkReply::NoError) {
            if (error == QNetworkReply::OperationCanceledError || error == QNetworkReply::TimeoutError)
                m_a.error = QStringLiteral("%1: no data for %2 s (the transfer stalled); %3")
                                .arg(m_url.toString())
                                .arg(m_o.timeoutSeconds)
                                .arg(m_written > 0 || m_have > 0
                                         ? QStringLiteral("the part received is kept and resumes")
                                         : QStringLiteral("nothing was received"));
            else
                m_a.error = QStringLiteral("%1: %2").arg(m_url.toString(), errorText);
            return m_a;
        }
        if (!m_started && !begin()) // an empty body
            return m_a;
        const qint64 got = QFileInfo(m_partPath).size();
        if (m_total > 0 && got < m_total) {
            m_a.error = QStringLiteral("%1: the transfer ended after %2 of %3 bytes")
                            .arg(m_url.toString())
                            .arg(got)
                            .arg(m_total);
            return m_a;
        }
        m_a.ok = true;
        return m_a;
    }

    QNetworkAccessManager& m_nam;
    const QUrl m_url;
    const QString m_partPath;
    const qint64 m_published;
    const DatasetFetcher::Options& m_o;
    const std::function<void(qint64, qint64)>& m_progress;
    QFile m_part;
    Attempt m_a;
    qint64 m_have = 0;    ///< bytes of the part kept, where the body continues
    qint64 m_total = -1;  ///< the file's size, once known (−1 or 0: unknown)
    qint64 m_written = 0; ///< bytes of the body written
    bool m_started = false;
    const qint64 m_failAfter;
    QNetworkReply* m_reply = nullptr;
    QElapsedTimer m_sinceProgress;
};

Attempt download(QNetworkAccessManager& nam, const QUrl& url, const QString& partPath, qint64 publishedSize,
                 const DatasetFetcher::Options& o, const std::function<void(qint64, qint64)>& progress)
{
    return Transfer(nam, url, partPath, publishedSize, o, progress).run();
}

} // namespace

QStringList DatasetFetcher::addresses(const DatasetEntry& entry, const DatasetFileInfo& file, const Options& options)
{
    QString mirror = options.mirror.isEmpty() ? qEnvironmentVariable("TRAINBENCH_DATASETS_MIRROR") : options.mirror;
    if (mirror.isEmpty())
        return file.urls;
    while (mirror.endsWith(QLatin1Char('/')))
        mirror.chop(1);
    return {mirror + QLatin1Char('/') + entry.id + QLatin1Char('/') + file.name};
}

namespace {

/// Takes @p lock on @p entry's fetch, waiting for another process that holds it (announced once,
/// cancellable); the reason it could not, or empty once held.
QString waitForLock(QLockFile& lock, const DatasetEntry& entry, const DatasetFetcher::Options& o)
{
    lock.setStaleLockTime(0); // a lock is stale only when its process is gone
    bool announced = false;
    while (!lock.tryLock(200)) {
        if (lock.error() == QLockFile::PermissionError || lock.error() == QLockFile::UnknownError)
            return QStringLiteral("cannot create the lock file %1").arg(DatasetCache::lockPath(entry));
        if (o.cancel && o.cancel->load())
            return QStringLiteral("cancelled while waiting for another process fetching %1").arg(entry.id);
        if (!announced) {
            announced = true;
            qint64 pid = 0;
            QString host, app;
            lock.getLockInfo(&pid, &host, &app);
            if (o.message)
                o.message(QStringLiteral("another process (pid %1) is fetching %2; waiting for it").arg(pid).arg(entry.id));
            if (o.progress)
                o.progress(FetchProgress{entry.files.first().name, QStringLiteral("wait"), 0, -1, 0, int(entry.files.size())});
        }
    }
    return {};
}

} // namespace

bool DatasetFetcher::fetch(const DatasetEntry& entry, const Options& o, QString* error)
{
    auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        // No empty folders left behind either (rmdir removes only empty ones).
        QDir().rmdir(DatasetCache::root() + QStringLiteral("/.partial/") + entry.id);
        QDir().rmdir(DatasetCache::root() + QStringLiteral("/.partial"));
        return false;
    };
    // The checksums first: an unverifiable entry without one is refused before anything moves.
    QStringList expected, algorithms;
    for (const DatasetFileInfo& f : entry.files) {
        QString algorithm, problem;
        const QString user = o.userChecksums.value(f.name, entry.files.size() == 1 ? o.userChecksums.value(QString()) : QString());
        const QString sum = DatasetCache::expectedChecksum(entry, f, user, &algorithm, &problem);
        if (sum.isEmpty())
            return fail(problem);
        expected << sum;
        algorithms << algorithm;
    }
    // Files already there: verified ones are skipped, those placed by hand are checked now.
    auto pending = [&]() -> std::optional<QList<int>> {
        QList<int> out;
        for (int i = 0; i < entry.files.size(); ++i) {
            const DatasetFileInfo& f = entry.files[i];
            const DatasetCache::FileState s = DatasetCache::fileState(entry, f);
            if (s.state == DatasetCache::State::Verified && s.checksum == algorithms[i] + QLatin1Char(':') + expected[i])
                continue;
            if (s.state != DatasetCache::State::Missing) {
                QString problem;
                if (o.message)
                    o.message(QStringLiteral("verifying %1 (found in the cache)").arg(DatasetCache::path(entry, f)));
                if (!DatasetCache::verify(entry, f, f.checksum.isEmpty() ? expected[i] : QString(), &problem))
                    return fail(problem), std::nullopt;
                continue;
            }
            out << i;
        }
        return out;
    };
    auto todo = pending();
    if (!todo)
        return false;
    if (todo->isEmpty())
        return true;

    // One process at a time per entry; a second one waits, then finds the files there.
    if (!QDir().mkpath(QFileInfo(DatasetCache::lockPath(entry)).absolutePath()))
        return fail(QStringLiteral("cannot create the cache folder %1").arg(DatasetCache::root()));
    QLockFile lock(DatasetCache::lockPath(entry));
    if (const QString why = waitForLock(lock, entry, o); !why.isEmpty())
        return fail(why);
    todo = pending();
    if (!todo)
        return false;

    QNetworkProxyFactory::setUseSystemConfiguration(true);
    QNetworkAccessManager nam;
    for (int i : *todo) {
        const DatasetFileInfo& f = entry.files[i];
        const QString part = DatasetCache::partialPath(entry, f);
        const QString final = DatasetCache::path(entry, f);
        const qint64 kept = QFileInfo(part).isFile() ? QFileInfo(part).size() : 0;
        if (const QString disk = diskProblem(f.expectedSize() > 0 ? f.expectedSize() - kept : -1, f.name); !disk.isEmpty())
            return fail(QStringLiteral("%1: %2").arg(entry.id, disk));
        auto report = [&](qint64 done, qint64 total) {
            if (o.progress)
                o.progress(FetchProgress{f.name, QStringLiteral("download"), done, total, i, int(entry.files.size())});
        };
        QStringList tried;
        bool ok = false;
        const QStringList urls = addresses(entry, f, o);
        for (const QString& address : urls) {
            const QUrl url(address);
            for (int retry = 0; retry <= 3 && !ok; ++retry) {
                const Attempt a = download(nam, url, part, f.size, o, report);
                if (a.ok) {
                    ok = true;
                    break;
                }
                tried << a.error;
                if (a.fatal)
                    return fail(QStringLiteral("%1: %2").arg(f.name, a.error));
                if (!a.madeProgress)
                    break; // this address gives nothing: the next one
                if (o.message && retry < 3)
                    o.message(QStringLiteral("%1; retrying").arg(a.error));
            }
            if (ok)
                break;
        }
        if (!ok)
            return fail(QStringLiteral("could not fetch %1 of %2:\n  %3\nWith no network, download %4 by hand and place it "
                                       "at %5; it is verified on first use (or by `trainbench-cli datasets verify %2`)%6")
                            .arg(f.name, entry.id, tried.join(QStringLiteral("\n  ")), f.urls.join(QStringLiteral(" or ")),
                                 final,
                                 QFileInfo(part).isFile()
                                     ? QStringLiteral(". The %1 received so far are kept in %2 and resume next time")
                                           .arg(bytes(QFileInfo(part).size()), part)
                                     : QString()));
        // Verified before it enters the cache; a file that does not match is deleted.
        report(QFileInfo(part).size(), QFileInfo(part).size());
        if (o.progress)
            o.progress(FetchProgress{f.name, QStringLiteral("verify"), 0, QFileInfo(part).size(), i, int(entry.files.size())});
        QString problem;
        const QString got = DatasetCache::hashFile(part, algorithms[i], &problem);
        if (got.isEmpty()) {
            QFile::remove(part);
            return fail(problem);
        }
        if (got != expected[i]) {
            const qint64 size = QFileInfo(part).size();
            QFile::remove(part);
            return fail(QStringLiteral("%1 of %2: checksum mismatch: the %3 bytes received from %4 have %5 %6, but %7 is "
                                       "expected (%8). The download was deleted; nothing was kept in the cache")
                            .arg(f.name, entry.id)
                            .arg(size)
                            .arg(urls.join(QStringLiteral(" / ")), algorithms[i], got, expected[i],
                                 f.checksum.isEmpty() ? QStringLiteral("the checksum you gave")
                                                      : QStringLiteral("published in ") + entry.checksumSource));
        }
        if (!QDir().mkpath(DatasetCache::folder(entry)))
            return fail(QStringLiteral("cannot create %1").arg(DatasetCache::folder(entry)));
        QFile::remove(final); // only a file that failed its check can be there; it is replaced
        if (::rename(QFile::encodeName(part).constData(), QFile::encodeName(final).constData()) != 0) {
            const QString why = QString::fromLocal8Bit(std::strerror(errno));
            QFile::remove(part);
            return fail(QStringLiteral("cannot move %1 to %2: %3").arg(part, final, why));
        }
        if (!DatasetCache::writeStamp(entry, f, algorithms[i] + QLatin1Char(':') + got, f.checksum.isEmpty(), &problem))
            return fail(problem);
    }
    return true;
}

} // namespace tb::data
