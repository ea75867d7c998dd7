// The data-set catalogue's sets (DatasetCatalog): one source per entry, named by its id
// ({"source": "mnist"}), read from the cache (DatasetCache) where `trainbench-cli datasets fetch`
// or a person put the published files. A set that is not there is an error naming the fetch
// command, the addresses and the path where a file fetched by hand goes.

#include <data/ArchiveReader.h>
#include <data/CsvLoader.h>
#include <data/DataError.h>
#include <data/DataFile.h>
#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/DatasetCache.h>
#include <data/DatasetCatalog.h>
#include "ImageFolderLimits.h"
#include <data/MemoryBudget.h>
#include <data/MissingValues.h>
#include <data/Splits.h>
#include <data/XlsxReader.h>

#include <QJsonArray>

namespace tb::data {
namespace {

QStringList strings(const QJsonValue& v)
{
    QStringList out;
    if (v.isString())
        out << v.toString();
    for (const QJsonValue& e : v.toArray())
        out << (e.isDouble() ? QString::number(qint64(e.toDouble())) : e.toString());
    return out;
}

QList<CsvLoader::Column> columns(const QJsonValue& v)
{
    QList<CsvLoader::Column> out;
    const QJsonArray a = v.isArray() ? v.toArray() : QJsonArray{v};
    for (const QJsonValue& e : a) {
        if (e.isDouble())
            out << CsvLoader::Column(int(e.toDouble()));
        else if (e.isString())
            out << CsvLoader::Column(e.toString());
    }
    return out;
}

/// A catalogue csv/xlsx recipe as CsvLoader options (the csv source's keys, docs/experiments.md).
CsvLoader::Options csvOptions(const DatasetEntry& e)
{
    const QJsonObject l = e.load;
    CsvLoader::Options o;
    o.task = e.task == u"regression" ? Task::Regression : Task::Classification;
    const QString delimiter = l.value(QStringLiteral("delimiter")).toString(QStringLiteral(","));
    o.delimiter = delimiter == u"whitespace" ? ' ' : delimiter.at(0).toLatin1();
    o.header = l.value(QStringLiteral("header")).toBool(true);
    o.skipRows = l.value(QStringLiteral("skip_rows")).toInt(0);
    o.columnNames = strings(l.value(QStringLiteral("columns")));
    o.targets = columns(l.value(QStringLiteral("target")));
    o.ignore = columns(l.value(QStringLiteral("ignore")));
    const QJsonValue categorical = l.value(QStringLiteral("categorical"));
    o.categoricalAuto = categorical.toString() == u"auto";
    if (!o.categoricalAuto)
        o.categorical = columns(categorical);
    const QString quote = l.value(QStringLiteral("quote")).toString(QStringLiteral("\""));
    o.quote = quote == u"none" ? '\0' : quote.at(0).toLatin1();
    const QString missing = l.value(QStringLiteral("missing")).toString(QStringLiteral("error"));
    o.missing = missing == u"drop"        ? CsvLoader::Options::Missing::Drop
                : missing == u"fill_mean" ? CsvLoader::Options::Missing::Keep
                                          : CsvLoader::Options::Missing::Error;
    o.missingValues = strings(l.value(QStringLiteral("missing_values")));
    o.labelSuffix = l.value(QStringLiteral("label_suffix")).toString();
    return o;
}

/// The bytes of a file as published, decompressed when it is a single gzip, bzip2 or xz stream.
QByteArray fileBytes(const QString& path)
{
    QFile f;
    DataFile::open(f, path);
    const QByteArray head = f.peek(6);
    f.close();
    const bool bzip2 = head.startsWith("BZh");
    const bool xz = head.startsWith(QByteArray("\xfd" "7zXZ", 5));
    return bzip2 || xz ? ArchiveReader::decompress(path) : DataFile::readAll(path);
}

/// The rows of @p members of the archive at @p path, one after the other (ailerons.data then
/// ailerons.test), or of the file itself.
QByteArray tableBytes(const QString& path, const QStringList& members, bool xlsx)
{
    if (members.isEmpty())
        return fileBytes(path);
    QByteArray out;
    for (const QString& m : members) {
        QByteArray part = ArchiveReader::member(path, m);
        if (xlsx)
            part = XlsxReader::sheetAsCsv(part, path + QLatin1Char(':') + m);
        if (!out.isEmpty() && !out.endsWith('\n'))
            out += '\n';
        out += part;
    }
    return out;
}

QString origin(const QString& path, const QStringList& members)
{
    return members.isEmpty() ? path : path + QLatin1Char(':') + members.join(QLatin1Char('+'));
}

/// CIFAR-10's binary version: records of one label byte and 3072 pixel bytes (1024 red, 1024
/// green, 1024 blue, row-major), 10000 per batch file.
Dataset cifarBatches(const QString& path, const QString& folder, const QStringList& batches, const QStringList& classes,
                     const QString& name)
{
    constexpr qsizetype kRecord = 1 + 3072;
    std::vector<QByteArray> parts;
    qint64 rows = 0;
    for (const QString& b : batches) {
        parts.push_back(ArchiveReader::member(path, folder + QLatin1Char('/') + b));
        if (parts.back().size() % kRecord != 0)
            throw DataError::inFile(path + QLatin1Char(':') + folder + QLatin1Char('/') + b,
                                    QStringLiteral("%1 bytes is not a whole number of %2-byte CIFAR-10 records")
                                        .arg(parts.back().size())
                                        .arg(kRecord));
        rows += parts.back().size() / kRecord;
    }
    MemoryBudget::require(MemoryBudget::bytesOf(std::uint64_t(rows), 3072 + std::uint64_t(classes.size())),
                          QStringLiteral("%1 images of 3072 inputs").arg(rows), path);
    Dataset d;
    d.task = Task::Classification;
    d.classNames = classes;
    d.x.resize(Eigen::Index(rows), 3072);
    d.labels.resize(std::size_t(rows));
    Eigen::Index i = 0;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(parts[p].constData());
        for (qsizetype r = 0; r < parts[p].size() / kRecord; ++r, ++i) {
            const unsigned char* rec = bytes + r * kRecord;
            if (rec[0] >= classes.size())
                throw DataError::atOffset(path + QLatin1Char(':') + folder + QLatin1Char('/') + batches[qsizetype(p)],
                                          r * kRecord, QStringLiteral("label"), QString::number(rec[0]),
                                          QStringLiteral("label %1 outside 0..%2").arg(rec[0]).arg(classes.size() - 1));
            d.labels[std::size_t(i)] = rec[0];
            for (int j = 0; j < 3072; ++j)
                d.x(i, j) = rec[1 + j] / 255.0;
        }
    }
    d.setOneHotFromLabels();
    d.description = QStringLiteral("%1 %2×3072").arg(name).arg(rows);
    return d;
}

/// A seeded random subset of @p limit rows (the idx sources' rule), or @p d itself.
Dataset limited(Dataset d, Eigen::Index limit, std::uint64_t seed, std::uint64_t stream, const QString& key,
                const QVariantMap& spec)
{
    if (limit < 0)
        return d;
    if (limit > d.rows())
        throw DataError::inSpec(QStringLiteral("dataset.") + key, QString::number(limit),
                                QStringLiteral("dataset.%1: %2 is more than the %3 rows of the set")
                                    .arg(key)
                                    .arg(spec.value(key).toLongLong())
                                    .arg(d.rows()));
    const auto rows = Rng(seed, stream).sampleIndices(d.rows(), limit);
    Dataset out = d.selectRows(rows);
    out.description += QStringLiteral(" (random %1 of %2)").arg(limit).arg(d.rows());
    return out;
}

class CatalogSource : public DataSourceProvider {
public:
    explicit CatalogSource(DatasetEntry entry) : m_entry(std::move(entry)) {}

    DataSourceInfo info() const override
    {
        DataSourceInfo i;
        i.id = m_entry.id;
        i.label = m_entry.title + QStringLiteral(" (catalogue)");
        i.description = m_entry.description +
                        QStringLiteral(" Fetched once with `trainbench-cli datasets fetch %1`.").arg(m_entry.id);
        i.task = m_entry.task == u"regression" ? Task::Regression : Task::Classification;
        i.order = 90;
        if (published()) {
            i.testSet = DataSourceInfo::TestSet::Own;
            idx::addLimitKeys(i.params,
                              QStringLiteral("Use a random subset of this many training rows (drawn with the seed); "
                                             "absent: all."),
                              QStringLiteral("Use a random subset of this many test rows; absent: all."));
        } else {
            i.testSet = DataSourceInfo::TestSet::Split;
            i.testFraction = m_entry.testFraction;
        }
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataMemoryNeed memoryNeed(const QVariantMap&) const override
    {
        // The published shape: the inputs and the one-hot outputs, and their train/test copies.
        const double columns = double(m_entry.features) + double(std::max(1, m_entry.classes));
        return {double(MemoryBudget::bytesOf(std::uint64_t(m_entry.rows), std::uint64_t(columns) * 2)),
                QStringLiteral("loading %1 (%2 rows × %3 columns)").arg(m_entry.id).arg(m_entry.rows).arg(columns),
                QStringLiteral("source")};
    }

    DataTables load(const DataRequest& r) const override
    {
        const QString format = m_entry.load.value(QStringLiteral("format")).toString();
        if (format == u"idx")
            return loadIdx(r);
        if (format == u"cifar10")
            return loadCifar(r);
        return loadTable(r, format == u"xlsx");
    }

    QString describe(const QVariantMap& spec) const override
    {
        return m_entry.title + QStringLiteral(" (catalogue \"%1\")").arg(m_entry.id) + idx::describeLimits(spec);
    }

private:
    bool published() const { return m_entry.split == u"published"; }

    QString file(const char* key) const
    {
        const QString name = m_entry.load.value(QLatin1String(key)).toString();
        return DatasetCache::require(m_entry, *m_entry.file(name));
    }

    DataTables loadIdx(const DataRequest& r) const
    {
        IdxLoader::Options o;
        for (int c = 0; c < 10; ++c)
            o.classNames << QString::number(c);
        o.seed = r.seed;
        o.limit = idx::limit(r.spec, QStringLiteral("train_limit"));
        o.stream = Rng::TrainSubset;
        o.name = m_entry.id + QStringLiteral(" train");
        DataTables t;
        t.trainOrigin = file("train_images");
        t.testOrigin = file("test_images");
        t.train = idx::load(t.trainOrigin, file("train_labels"), o, QStringLiteral("train_limit"), r.spec);
        o.limit = idx::limit(r.spec, QStringLiteral("test_limit"));
        o.stream = Rng::TestSubset;
        o.name = m_entry.id + QStringLiteral(" test");
        t.test = idx::load(t.testOrigin, file("test_labels"), o, QStringLiteral("test_limit"), r.spec);
        return t;
    }

    DataTables loadCifar(const DataRequest& r) const
    {
        const QString path = file("file");
        const QString folder = m_entry.load.value(QStringLiteral("folder")).toString();
        QStringList classes;
        try {
            for (const QByteArray& line : ArchiveReader::member(path, folder + QStringLiteral("/batches.meta.txt")).split('\n'))
                if (!line.trimmed().isEmpty())
                    classes << QString::fromUtf8(line.trimmed());
        } catch (const DataError&) {
            classes.clear();
        }
        if (classes.size() != 10)
            classes = QStringList{"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
        DataTables t;
        t.trainOrigin = path;
        t.testOrigin = path;
        QStringList batches;
        for (int b = 1; b <= 5; ++b)
            batches << QStringLiteral("data_batch_%1.bin").arg(b);
        t.train = limited(cifarBatches(path, folder, batches, classes, QStringLiteral("cifar10 train")),
                          idx::limit(r.spec, QStringLiteral("train_limit")), r.seed, Rng::TrainSubset,
                          QStringLiteral("train_limit"), r.spec);
        t.test = limited(cifarBatches(path, folder, {QStringLiteral("test_batch.bin")}, classes,
                                      QStringLiteral("cifar10 test")),
                         idx::limit(r.spec, QStringLiteral("test_limit")), r.seed, Rng::TestSubset,
                         QStringLiteral("test_limit"), r.spec);
        return t;
    }

    DataTables loadTable(const DataRequest& r, bool xlsx) const
    {
        CsvLoader::Options o = csvOptions(m_entry);
        const QStringList members = strings(m_entry.load.value(QStringLiteral("members")));
        const QString path = file("file");
        DataTables t;
        t.trainOrigin = origin(path, members);
        CsvLoader::Report report;
        Dataset train = CsvLoader::parse(tableBytes(path, members, xlsx), t.trainOrigin, o, &report);
        train.description = m_entry.id + QStringLiteral(" ") + train.description;
        const bool fill = o.missing == CsvLoader::Options::Missing::Keep;
        if (published()) {
            const QString testPath = file("test_file");
            const QStringList testMembers = strings(m_entry.load.value(QStringLiteral("test_members")));
            t.testOrigin = origin(testPath, testMembers);
            o.skipRows = m_entry.load.value(QStringLiteral("test_skip_rows")).toInt(o.skipRows);
            o.classNames = train.classNames;
            o.categories = report.categories; // encoded as the training file
            Dataset test = CsvLoader::parse(tableBytes(testPath, testMembers, xlsx), t.testOrigin, o);
            test.description = m_entry.id + QStringLiteral(" ") + test.description;
            DatasetPair p{limited(std::move(train), idx::limit(r.spec, QStringLiteral("train_limit")), r.seed,
                                  Rng::TrainSubset, QStringLiteral("train_limit"), r.spec),
                          limited(std::move(test), idx::limit(r.spec, QStringLiteral("test_limit")), r.seed,
                                  Rng::TestSubset, QStringLiteral("test_limit"), r.spec),
                          {}, {}};
            if (fill)
                MissingValues::fillWithTrainingMeans(p, t.trainOrigin);
            t.train = std::move(p.train);
            t.test = std::move(p.test);
            return t;
        }
        if (fill) {
            // Fill with the means of the training rows only: split as the host would.
            DatasetPair p = splitTrainTest(train, r.spec.value(QStringLiteral("test_fraction")).toDouble(), r.seed);
            MissingValues::fillWithTrainingMeans(p, t.trainOrigin);
            t.train = std::move(p.train);
            t.test = std::move(p.test);
            return t;
        }
        t.train = std::move(train);
        return t;
    }

    DatasetEntry m_entry;
};

// One source per catalogue entry, registered when the library loads (the catalogue is read then:
// $TRAINBENCH_DATASETS_CATALOG must be set before the process starts).
[[maybe_unused]] const bool registered = [] {
    for (const DatasetEntry& e : DatasetCatalog::entries())
        DataSourceRegistry::addBuiltIn(std::make_shared<CatalogSource>(e));
    return true;
}();

} // namespace
} // namespace tb::data
