#pragma once
/// @file DatasetFetcher.h
/// Downloads a catalogue entry's files into the cache: resumable, verified, atomic.

#include "DatasetCatalog.h"

#include <QHash>
#include <QString>
#include <atomic>
#include <functional>

namespace tb::data {

/// Progress of a fetch, for a progress bar.
struct FetchProgress {
    QString file;          ///< the file being transferred or checked
    QString phase;         ///< "download", "verify" or "wait" (another process holds the lock)
    qint64 fileDone = 0;   ///< bytes of this file so far (a resumed download counts its part)
    qint64 fileTotal = -1; ///< its size, −1 while unknown
    int fileIndex = 0;     ///< 0-based
    int fileCount = 0;
};

/// Downloads the files of a DatasetEntry, as scikit-learn's fetchers and torchvision's
/// download=True do, into DatasetCache:
///  - Qt Network, the system's proxy settings honoured (QNetworkProxyFactory::
///    setUseSystemConfiguration(true): http_proxy, https_proxy, no_proxy), redirects followed
///    when they do not go from https to http;
///  - every address of a file tried in order, or, with a mirror (Options::mirror, else
///    $TRAINBENCH_DATASETS_MIRROR), only MIRROR/ID/FILE;
///  - an interrupted transfer resumes where it stopped (HTTP Range), in this call (up to three
///    retries of an address that sent data) and in a later one (the part is kept under
///    DatasetCache::partialPath());
///  - a stall (no byte for Options::timeoutSeconds) or an address that does not answer is an
///    error naming the address;
///  - free disk space is checked before a transfer, against the published size or the
///    server's Content-Length;
///  - the checksum is verified before the file enters the cache; a mismatch deletes the
///    download and keeps nothing; a write failure (a full disk) deletes the part;
///  - the file enters the cache by an atomic rename, its stamp written after;
///  - one process at a time per entry (a lock file, DatasetCache::lockPath()): a second
///    process waits, then finds the files there and downloads nothing.
/// Entries without published checksums are fetched only with a checksum the user gives.
/// Blocking: runs a local event loop. Call from a thread that may run one (the main thread or
/// a QThread); one fetch per thread at a time; different threads may fetch different entries.
///
/// Test hook: $TRAINBENCH_DATASETS_FAIL_WRITE_AFTER=N makes the write of a download fail once
/// N bytes are written, as a full disk would ("No space left on device (simulated …)").
class DatasetFetcher {
public:
    struct Options {
        /// Base address replacing the published ones: MIRROR/ID/FILE. Empty: $TRAINBENCH_DATASETS_MIRROR,
        /// else the published addresses.
        QString mirror;
        /// Unverifiable entries: the SHA-256 per file name, or under "" one for a single-file entry.
        QHash<QString, QString> userChecksums;
        /// Seconds without a byte after which a transfer counts as stalled (> 0).
        double timeoutSeconds = 30;
        /// Called at most ten times a second per file, from the calling thread.
        std::function<void(const FetchProgress&)> progress;
        /// A line for people ("resuming … at 4.2 MiB", "waiting for another process …").
        std::function<void(const QString&)> message;
        /// Set to true (from any thread) to stop: the transfer is aborted, its part kept.
        const std::atomic<bool>* cancel = nullptr;
    };

    /// Fetches every file of @p entry not yet verified in the cache (a file placed by hand is
    /// verified instead of downloaded). True when all are verified; else false with @p error
    /// (names the file, each address tried and why, and for a missing network the exact path
    /// where a file fetched by hand is placed).
    static bool fetch(const DatasetEntry& entry, const Options& options, QString* error);

    /// The addresses fetch() tries for @p file with @p options, in order.
    static QStringList addresses(const DatasetEntry& entry, const DatasetFileInfo& file, const Options& options);
};

} // namespace tb::data
