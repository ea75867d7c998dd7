// A delimited text file (comma, semicolon, tab, bar or whitespace; plain or gzip), with or without
// a header row, its targets in columns or in a file of their own.

#include "CsvLoader.h"
#include "DataError.h"
#include "DataKeys.h"
#include "DataSourceRegistry.h"
#include "TextParsing.h"

#include <QFileInfo>

namespace tb::data {
namespace {

const QString kFilter =
    QStringLiteral("Delimited text (*.csv *.tsv *.txt *.dat *.csv.gz *.txt.gz *.gz);;All files (*)");

QList<CsvLoader::Column> targetsOf(const QVariantMap& spec)
{
    auto column = [](const QVariant& v) {
        return v.typeId() == QMetaType::QString ? CsvLoader::Column(v.toString()) : CsvLoader::Column(int(v.toLongLong()));
    };
    const QVariant t = spec.value(QStringLiteral("target"));
    if (!t.isValid())
        return {};
    if (t.typeId() != QMetaType::QVariantList)
        return {column(t)};
    QList<CsvLoader::Column> out;
    for (const QVariant& e : t.toList())
        out << column(e);
    return out;
}

QString targetsText(const QVariantMap& spec)
{
    QStringList out;
    for (const CsvLoader::Column& c : targetsOf(spec))
        out << (c.byIndex ? QStringLiteral("column %1").arg(c.index) : detail::printable(c.name));
    return out.join(QStringLiteral(", "));
}

/// Puts the test file's feature columns in the training file's order (matched by header
/// name), or throws if the two files do not have the same feature columns.
void alignColumns(const Dataset& train, Dataset& test, const QString& trainName, const QString& testName,
                  const QString& what)
{
    if (test.featureNames == train.featureNames)
        return;
    QStringList missing;
    QStringList extra;
    for (const auto& f : train.featureNames)
        if (!test.featureNames.contains(f))
            missing << f;
    for (const auto& f : test.featureNames)
        if (!train.featureNames.contains(f))
            extra << f;
    if (!missing.isEmpty() || !extra.isEmpty()) {
        QString detail;
        if (!missing.isEmpty())
            detail += QStringLiteral("; missing here: %1").arg(missing.join(", "));
        if (!extra.isEmpty())
            detail += QStringLiteral("; not in train: %1").arg(extra.join(", "));
        throw DataError::atLine(testName, 1, {}, {},
                                QStringLiteral("train and %5 features differ: train %1 has %2 feature columns, "
                                               "%5 has %3%4")
                                    .arg(trainName)
                                    .arg(train.inputs())
                                    .arg(test.inputs())
                                    .arg(detail, what));
    }
    Eigen::MatrixXd x(test.rows(), test.inputs());
    for (Eigen::Index j = 0; j < x.cols(); ++j)
        x.col(j) = test.x.col(test.featureNames.indexOf(train.featureNames[qsizetype(j)]));
    test.x = std::move(x);
    test.featureNames = train.featureNames;
}

class CsvSource : public DataSourceProvider {
public:
    DataSourceInfo info() const override
    {
        const QStringList tasks{QStringLiteral("classification"), QStringLiteral("regression")};
        DataSourceInfo i;
        i.id = QStringLiteral("csv");
        i.label = QStringLiteral("CSV file");
        i.description = QStringLiteral("A delimited text file (comma, semicolon, tab or whitespace), plain or gzip, "
                                       "with or without a header row.");
        i.testSet = DataSourceInfo::TestSet::OwnOrSplit;
        i.testKey = QStringLiteral("test_file");
        i.validationKey = QStringLiteral("validation_file");
        i.order = 70;
        i.params.add(DataKeys::path(QStringLiteral("file"), QStringLiteral("File"), true, kFilter,
                                    QStringLiteral("The data file; gzip is recognised by its content.")));
        i.params.add(DataKeys::choice(QStringLiteral("delimiter"), QStringLiteral("Delimiter"),
                                      {QStringLiteral(","), QStringLiteral(";"), QStringLiteral("\t"), QStringLiteral("|"),
                                       QStringLiteral("whitespace")},
                                      {QStringLiteral("comma ,"), QStringLiteral("semicolon ;"), QStringLiteral("tab"),
                                       QStringLiteral("bar |"), QStringLiteral("whitespace")},
                                      QStringLiteral(","),
                                      QStringLiteral("What separates the fields of a row (whitespace: as numpy.loadtxt).")));
        i.params.add(DataKeys::boolean(QStringLiteral("header"), QStringLiteral("Header row"), true,
                                       QStringLiteral("The first row (after skip_rows) names the columns; false: columns "
                                                      "are named by position, 0, 1, 2, …")));
        i.params.add(DataKeys::integer(QStringLiteral("skip_rows"), QStringLiteral("Skip rows"), 0, 1e9, 0,
                                       QStringLiteral("Lines skipped at the start of the file, e.g. 1 for the count row "
                                                      "of scikit-learn's raw files (\"150,4,setosa,…\").")));
        i.params.add(DataKeys::columns(QStringLiteral("target"), QStringLiteral("Target"),
                                       QStringLiteral("Target column: its header name, or its 0-based position (−1: the "
                                                      "last column); a list for multi-output regression. With "
                                                      "target_file: columns of that file (absent: all of them)."))
                         .requiredKey(QStringLiteral("target_file")));
        i.params.add(DataKeys::path(QStringLiteral("target_file"), QStringLiteral("Target file"), false, kFilter,
                                    QStringLiteral("Targets in a file of their own, one row per data row, read with the "
                                                   "same delimiter, header and skip_rows (e.g. diabetes_target.csv.gz)."))
                         .absentMeans(QStringLiteral("none: the target is a column of the file")));
        i.params.add(DataKeys::choice(QStringLiteral("task"), QStringLiteral("Task"), tasks, tasks, QVariant(),
                                      QStringLiteral("Classification: the target holds class names; regression: numbers."))
                         .requiredKey());
        i.params.add(DataKeys::path(QStringLiteral("test_file"), QStringLiteral("Test file"), false, kFilter,
                                    QStringLiteral("A separate test set with the same columns (matched by name).")));
        i.params.add(DataKeys::path(QStringLiteral("test_target_file"), QStringLiteral("Test target file"), false, kFilter,
                                    QStringLiteral("The test set's targets, when target_file holds the training targets.")));
        i.params.add(DataKeys::path(QStringLiteral("validation_file"), QStringLiteral("Validation file"), false, kFilter,
                                    QStringLiteral("A validation set with the same columns (matched by name), instead of "
                                                   "validation_fraction.")));
        i.params.add(DataKeys::path(QStringLiteral("validation_target_file"), QStringLiteral("Validation target file"),
                                    false, kFilter,
                                    QStringLiteral("The validation set's targets, when target_file holds the training "
                                                   "targets.")));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    std::pair<QString, QString> conflict(const QVariantMap& spec) const override
    {
        auto has = [&](const char* key) { return spec.contains(QLatin1String(key)); };
        const QVariant target = spec.value(QStringLiteral("target"));
        if (spec.value(QStringLiteral("task")).toString() == u"classification" &&
            target.typeId() == QMetaType::QVariantList && target.toList().size() != 1)
            return {QStringLiteral("target"), QStringLiteral("classification takes exactly one target column, got %1")
                                                  .arg(target.toList().size())};
        if (has("test_target_file") && !(has("target_file") && has("test_file")))
            return {QStringLiteral("test_target_file"),
                    QStringLiteral("only used with target_file and test_file (the test set's own targets)")};
        if (has("target_file") && has("test_file") && !has("test_target_file"))
            return {QStringLiteral("test_target_file"),
                    QStringLiteral("missing: with target_file, the test_file needs its targets in test_target_file")};
        if (has("validation_target_file") && !(has("target_file") && has("validation_file")))
            return {QStringLiteral("validation_target_file"),
                    QStringLiteral("only used with target_file and validation_file (the validation set's own targets)")};
        if (has("target_file") && has("validation_file") && !has("validation_target_file"))
            return {QStringLiteral("validation_target_file"),
                    QStringLiteral("missing: with target_file, the validation_file needs its targets in "
                                   "validation_target_file")};
        return {};
    }

    DataTables load(const DataRequest& r) const override
    {
        CsvLoader::Options o;
        o.targets = targetsOf(r.spec);
        o.task = r.spec.value(QStringLiteral("task")).toString() == u"regression" ? Task::Regression
                                                                                  : Task::Classification;
        const QString delimiter = r.spec.value(QStringLiteral("delimiter")).toString();
        o.delimiter = delimiter == u"whitespace" ? ' ' : delimiter.at(0).toLatin1();
        o.header = r.spec.value(QStringLiteral("header")).toBool();
        o.skipRows = int(r.spec.value(QStringLiteral("skip_rows")).toLongLong());
        if (r.spec.contains(QStringLiteral("target_file")))
            o.targetFile = r.path(QStringLiteral("target_file"));
        DataTables t;
        t.trainOrigin = r.path(QStringLiteral("file"));
        Dataset train = CsvLoader::load(t.trainOrigin, o);
        // Another file of the same columns (test or validation), matched to the training file's.
        auto other = [&](const QString& fileKey, const QString& targetKey, QString& origin, const QString& what) {
            CsvLoader::Options oo = o;
            origin = r.path(fileKey);
            oo.classNames = train.classNames;
            if (r.spec.contains(targetKey))
                oo.targetFile = r.path(targetKey);
            Dataset d = CsvLoader::load(origin, oo);
            alignColumns(train, d, t.trainOrigin, origin, what);
            return d;
        };
        if (r.spec.contains(QStringLiteral("test_file")))
            t.test = other(QStringLiteral("test_file"), QStringLiteral("test_target_file"), t.testOrigin,
                           QStringLiteral("test"));
        if (r.spec.contains(QStringLiteral("validation_file")))
            t.validation = other(QStringLiteral("validation_file"), QStringLiteral("validation_target_file"),
                                 t.validationOrigin, QStringLiteral("validation"));
        t.train = std::move(train);
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        auto fileName = [&](const char* key) { return QFileInfo(spec.value(QLatin1String(key)).toString()).fileName(); };
        return QStringLiteral("CSV %1 → %2 (%3)")
            .arg(fileName("file"),
                 spec.contains(QStringLiteral("target_file"))
                     ? fileName("target_file") +
                           (spec.contains(QStringLiteral("target")) ? QStringLiteral(" ") + targetsText(spec) : QString())
                     : targetsText(spec),
                 spec.value(QStringLiteral("task")).toString());
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::CsvSource)
