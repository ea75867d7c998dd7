#pragma once
/// @file DatasetCache.h
/// Where the catalogue's files are kept on disk, and whether each is there and verified.

#include "DatasetCatalog.h"

#include <QString>
#include <functional>

namespace tb::data {

/// The cache folder of the data-set catalogue.
///
/// Layout under root(): `ID/FILE` holds a file exactly as published, and `ID/.FILE.verified` a
/// stamp saying its checksum was checked (the checksum, the file's size and modification time:
/// a file changed since is checked again). Files arrive there only by an atomic rename after
/// their checksum matched (DatasetFetcher), or by hand — a file placed by hand is checked on
/// first use and refused when it does not match. `.partial/ID/FILE.part` holds an interrupted
/// download, kept only to resume it (never read as data); `.locks/ID.lock` serialises processes
/// fetching the same set. All functions are reentrant; several processes may use one cache.
class DatasetCache {
public:
    /// $TRAINBENCH_DATASETS_DIR when set, else QStandardPaths::GenericCacheLocation +
    /// "/trainbench/datasets" (~/.cache/trainbench/datasets on Linux).
    static QString root();
    /// root()/ID.
    static QString folder(const DatasetEntry& entry);
    /// root()/ID/FILE: where the file is kept — and where a file fetched by hand goes.
    static QString path(const DatasetEntry& entry, const DatasetFileInfo& file);
    /// root()/.partial/ID/FILE.part.
    static QString partialPath(const DatasetEntry& entry, const DatasetFileInfo& file);
    /// root()/ID/.FILE.verified.
    static QString stampPath(const DatasetEntry& entry, const DatasetFileInfo& file);
    /// root()/.locks/ID.lock.
    static QString lockPath(const DatasetEntry& entry);

    enum class State {
        Missing,    ///< not in the cache
        Unverified, ///< present, not (or no longer) checked: placed by hand, or changed since
        Verified    ///< present and its checksum matched
    };
    struct FileState {
        State state = State::Missing;
        qint64 bytes = 0;      ///< its size on disk (0 when missing)
        QString checksum;      ///< Verified: the checksum that matched ("sha256:…" / "md5:…")
        bool userChecksum = false; ///< Verified against a checksum the user gave (unverifiable entry)
    };
    /// The state of @p file, from the stamp (no hashing).
    static FileState fileState(const DatasetEntry& entry, const DatasetFileInfo& file);
    /// Verified when every file is; Missing when none is present; else Unverified.
    static State state(const DatasetEntry& entry);
    /// Bytes of the entry's files on disk (and of its partial downloads).
    static qint64 bytesOnDisk(const DatasetEntry& entry);

    /// The checksum @p file must have: the catalogue's, or for an unverifiable entry
    /// @p userChecksum ("sha256" hex, 64 digits). Empty (with @p error) when there is none.
    static QString expectedChecksum(const DatasetEntry& entry, const DatasetFileInfo& file, const QString& userChecksum,
                                    QString* algorithm, QString* error);

    /// The hex digest (@p algorithm "sha256" or "md5") of the file at @p path; @p progress
    /// (bytes hashed) is called every few MiB and may return false to stop (then the result is
    /// empty). Empty with @p error when the file cannot be read.
    static QString hashFile(const QString& path, const QString& algorithm, QString* error,
                            const std::function<bool(qint64)>& progress = {});

    /// Checks @p file in the cache against its checksum (see expectedChecksum()) and records
    /// the stamp when it matches. A file that does not match is left where it is (it may be
    /// the user's) and false is returned with @p error naming both checksums and where the
    /// expected one is published.
    static bool verify(const DatasetEntry& entry, const DatasetFileInfo& file, const QString& userChecksum,
                       QString* error, const std::function<bool(qint64)>& progress = {});

    /// Records that the file at path() matched @p checksum ("sha256:…"). False with @p error
    /// when the stamp cannot be written.
    static bool writeStamp(const DatasetEntry& entry, const DatasetFileInfo& file, const QString& checksum,
                           bool userChecksum, QString* error);

    /// The path of @p file, ready to read: verified (a file placed by hand is verified now).
    /// Throws DataError when the file is missing — the message names the fetch command, each
    /// address and the exact path where a file fetched by hand must be placed — or does not
    /// match its checksum.
    static QString require(const DatasetEntry& entry, const DatasetFileInfo& file);

    /// Removes the entry's folder, partial downloads and lock file. False with @p error when
    /// something could not be removed.
    static bool remove(const DatasetEntry& entry, QString* error);

    /// The hint for a file that is not in the cache: the command, the addresses and the path.
    static QString missingHint(const DatasetEntry& entry, const DatasetFileInfo& file);
};

} // namespace tb::data
