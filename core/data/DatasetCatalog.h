#pragma once
/// @file DatasetCatalog.h
/// The named public data sets Trainbench can download: their addresses, checksums (and where
/// each checksum is published), sizes, licences, tasks and splits, and how to read them.

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace tb::data {

/// One file of a catalogue entry, as it is published.
struct DatasetFileInfo {
    QString name;      ///< its name in the cache folder, e.g. "train-images-idx3-ubyte.gz"
    QStringList urls;  ///< where it is published, tried in order (http or https)
    QString algorithm; ///< "sha256" or "md5"; empty when no checksum is published (unverifiable)
    QString checksum;  ///< lower-case hex digest; empty when unverifiable
    qint64 size = -1;  ///< exact size in bytes as published, or −1 when not published
    qint64 approxSize = -1; ///< an approximate size for people and the disk check, when size is −1
    /// size when known, else approxSize (may be −1).
    qint64 expectedSize() const { return size >= 0 ? size : approxSize; }
};

/// One named data set.
struct DatasetEntry {
    QString id;          ///< its name: the value of "source" and of `trainbench-cli datasets fetch ID`
    QString title;       ///< e.g. "MNIST handwritten digits"
    QString description; ///< one sentence: what the rows and the target are
    QString task;        ///< "classification" or "regression"
    QString papers;      ///< which of the four papers use it, and where
    QString homepage;    ///< the data set's page
    QString licence;     ///< its licence or terms, in words
    QString licenceUrl;  ///< where they are stated
    /// Where every checksum of the entry is published (repository, file, field), or empty for
    /// an unverifiable entry.
    QString checksumSource;
    /// Why an entry has no checksum (then fetching it needs a checksum the user gives).
    QString unverifiable;
    /// "published": the set's own train/test files (the host's test_fraction does not apply);
    /// "random": a seeded share of all rows is held out.
    QString split;
    double testFraction = 0.2; ///< "random": the default share held out (the paper's, where known)
    QString splitNote;         ///< the papers' split in words
    qint64 rows = 0;           ///< rows in all (train + test), as published
    int features = 0;          ///< input columns as Trainbench reads them (after one-hot encoding)
    int classes = 0;           ///< classification: number of classes
    QList<DatasetFileInfo> files;
    /// How the files are read: "format" ("idx", "cifar10", "csv", "xlsx") and its keys
    /// (docs/experiments.md, "The data-set catalogue").
    QJsonObject load;
    QString origin; ///< "built in", or the catalogue file that added it

    bool verifiable() const { return !files.isEmpty() && !files.first().checksum.isEmpty(); }
    /// The sum of the files' expected sizes; −1 when one of them is unknown.
    qint64 totalSize() const;
    const DatasetFileInfo* file(const QString& name) const;
};

/// The catalogue: the built-in entries (one table, in DatasetCatalog.cpp) and those of a
/// catalogue file named by $TRAINBENCH_DATASETS_CATALOG (a JSON array of entries in the same
/// form; an entry with a built-in id replaces it, and says so in its origin). All functions
/// are thread-safe; the catalogue is read once per process.
class DatasetCatalog {
public:
    /// Every entry, built-in first, in table order.
    static const QList<DatasetEntry>& entries();
    /// The entry @p id, or nullptr.
    static const DatasetEntry* find(const QString& id);
    /// The ids of entries(), in order.
    static QStringList ids();
    /// Problems found in $TRAINBENCH_DATASETS_CATALOG (its entries with a problem are left
    /// out); empty when it is unset or fine.
    static QStringList problems();

    /// The built-in table as JSON (an array of entries).
    static QByteArray builtInJson();

    /// Parses a catalogue (a JSON array of entries) read from @p origin. Every entry is checked:
    /// id ([a-z0-9_-]+), title, task, licence, files with well-formed http(s) addresses, a
    /// checksum of the algorithm's length in hex with the place it is published — or a reason
    /// why there is none —, sizes, split and the load recipe (its format known, every file it
    /// names among the entry's files). An entry with a problem is left out and the problem,
    /// naming the entry and key, appended to @p problems.
    static QList<DatasetEntry> parse(const QByteArray& json, const QString& origin, QStringList* problems);

    /// The entry as JSON, in the form parse() reads.
    static QJsonObject toJson(const DatasetEntry& entry);
};

} // namespace tb::data
