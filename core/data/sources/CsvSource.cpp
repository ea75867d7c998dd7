// A delimited text file (comma, semicolon, tab, bar or whitespace; plain or gzip), with or without
// a header row, its targets in columns or in a file of their own; categories one-hot encoded,
// columns ignored, another quote character and a missing-value policy on request.

#include <data/CsvLoader.h>
#include <data/DataError.h>
#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/MissingValues.h>
#include <data/Splits.h>
#include <data/TextParsing.h>

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

QList<CsvLoader::Column> columnsOf(const QVariant& v)
{
    auto column = [](const QVariant& e) {
        return e.typeId() == QMetaType::QString ? CsvLoader::Column(e.toString()) : CsvLoader::Column(int(e.toLongLong()));
    };
    if (!v.isValid())
        return {};
    if (v.typeId() != QMetaType::QVariantList)
        return {column(v)};
    QList<CsvLoader::Column> out;
    for (const QVariant& e : v.toList())
        out << column(e);
    return out;
}

QString columnsText(const QVariant& v)
{
    QStringList out;
    for (const CsvLoader::Column& c : columnsOf(v))
        out << (c.byIndex ? QString::number(c.index) : detail::printable(c.name));
    return out.join(QStringLiteral(", "));
}

/// "categorical": the bare string "auto" means every column that holds text.
bool categoricalAuto(const QVariantMap& spec)
{
    const QVariant v = spec.value(QStringLiteral("categorical"));
    return v.typeId() == QMetaType::QString && v.toString() == u"auto";
}

/// The options of the csv source's keys (and of the catalogue's csv recipes, which use the same keys).
void applyKeys(const QVariantMap& spec, CsvLoader::Options& o)
{
    o.ignore = columnsOf(spec.value(QStringLiteral("ignore")));
    o.categoricalAuto = categoricalAuto(spec);
    if (!o.categoricalAuto)
        o.categorical = columnsOf(spec.value(QStringLiteral("categorical")));
    const QString quote = spec.value(QStringLiteral("quote"), QStringLiteral("\"")).toString();
    o.quote = quote == u"none" ? '\0' : quote.at(0).toLatin1();
    const QString missing = spec.value(QStringLiteral("missing"), QStringLiteral("error")).toString();
    o.missing = missing == u"drop"        ? CsvLoader::Options::Missing::Drop
                : missing == u"fill_mean" ? CsvLoader::Options::Missing::Keep
                                          : CsvLoader::Options::Missing::Error;
    for (const CsvLoader::Column& c : columnsOf(spec.value(QStringLiteral("missing_values"))))
        o.missingValues << (c.byIndex ? QString::number(c.index) : c.name);
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

/// ", ignoring id, categorical auto, quote ', missing: drop": the options that change what is read.
QString describeOptions(const QVariantMap& spec)
{
    QString text;
    if (spec.contains(QStringLiteral("ignore")))
        text += QStringLiteral(", ignoring %1").arg(columnsText(spec.value(QStringLiteral("ignore"))));
    if (categoricalAuto(spec))
        text += QStringLiteral(", categorical: auto (one-hot)");
    else if (spec.contains(QStringLiteral("categorical")))
        text += QStringLiteral(", categorical: %1 (one-hot)").arg(columnsText(spec.value(QStringLiteral("categorical"))));
    const QString quote = spec.value(QStringLiteral("quote"), QStringLiteral("\"")).toString();
    if (quote != u"\"")
        text += quote == u"none" ? QStringLiteral(", no quoting") : QStringLiteral(", quote %1").arg(quote);
    const QString missing = spec.value(QStringLiteral("missing"), QStringLiteral("error")).toString();
    if (missing == u"drop")
        text += QStringLiteral(", rows with missing values dropped");
    else if (missing == u"fill_mean")
        text += QStringLiteral(", missing values filled with the training mean");
    if (spec.contains(QStringLiteral("missing_values")))
        text += QStringLiteral(" (missing: %1)").arg(columnsText(spec.value(QStringLiteral("missing_values"))));
    return text;
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
        i.params.add(DataKeys::columns(QStringLiteral("ignore"), QStringLiteral("Ignore columns"),
                                       QStringLiteral("Columns left out: an id or a name column (names or 0-based "
                                                      "positions)."))
                         .absentMeans(QStringLiteral("none")));
        i.params.add(DataKeys::columns(QStringLiteral("categorical"), QStringLiteral("Categorical columns"),
                                       QStringLiteral("Columns of categories, one-hot encoded into one 0/1 input per "
                                                      "category (\"column=value\", categories of the training file in "
                                                      "sorted order; a test value of another category is all zeros). "
                                                      "\"auto\": every column holding text."))
                         .absentMeans(QStringLiteral("none: every feature must be a number")));
        i.params.add(DataKeys::choice(QStringLiteral("quote"), QStringLiteral("Quote"),
                                      {QStringLiteral("\""), QStringLiteral("'"), QStringLiteral("none")},
                                      {QStringLiteral("double \""), QStringLiteral("single '"), QStringLiteral("none")},
                                      QStringLiteral("\""),
                                      QStringLiteral("The character quoting fields (a quote inside is written twice); "
                                                     "none: fields are taken as they are.")));
        i.params.add(DataKeys::choice(QStringLiteral("missing"), QStringLiteral("Missing values"),
                                      {QStringLiteral("error"), QStringLiteral("drop"), QStringLiteral("fill_mean")},
                                      {QStringLiteral("error"), QStringLiteral("drop the row"),
                                       QStringLiteral("fill with the training mean")},
                                      QStringLiteral("error"),
                                      QStringLiteral("What a missing value (empty, NA, N/A or one of missing_values) does: "
                                                     "an error naming file, line and column; drop its row; or fill a "
                                                     "feature with its column's mean over the training rows (a missing "
                                                     "target is then an error).")));
        i.params.add(DataKeys::columns(QStringLiteral("missing_values"), QStringLiteral("Missing spellings"),
                                       QStringLiteral("Further spellings of a missing value, e.g. \"?\" (Adult) or "
                                                      "-999."))
                         .absentMeans(QStringLiteral("only empty, NA and N/A")));
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
        if (has("target_file") && spec.value(QStringLiteral("missing")).toString() == u"drop")
            return {QStringLiteral("missing"),
                    QStringLiteral("\"drop\" cannot go with target_file: the two files would no longer line up")};
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
        applyKeys(r.spec, o);
        if (r.spec.contains(QStringLiteral("target_file")))
            o.targetFile = r.path(QStringLiteral("target_file"));
        DataTables t;
        t.trainOrigin = r.path(QStringLiteral("file"));
        CsvLoader::Report report;
        Dataset train = CsvLoader::load(t.trainOrigin, o, &report);
        const bool fill = o.missing == CsvLoader::Options::Missing::Keep;
        // Another file of the same columns (test or validation), matched to the training file's and
        // encoded as it is (its classes, its categories).
        auto other = [&](const QString& fileKey, const QString& targetKey, QString& origin, const QString& what) {
            CsvLoader::Options oo = o;
            origin = r.path(fileKey);
            oo.classNames = train.classNames;
            oo.categories = report.categories;
            if (r.spec.contains(targetKey))
                oo.targetFile = r.path(targetKey);
            Dataset d = CsvLoader::load(origin, oo);
            alignColumns(train, d, t.trainOrigin, origin, what);
            return d;
        };
        std::optional<Dataset> validation;
        if (r.spec.contains(QStringLiteral("validation_file")))
            validation = other(QStringLiteral("validation_file"), QStringLiteral("validation_target_file"),
                               t.validationOrigin, QStringLiteral("validation"));
        // Missing values filled with the training rows' means: in the validation file too.
        auto keepValidation = [&](const Dataset& filledTrain) {
            if (!validation)
                return;
            if (fill) {
                DatasetPair v{filledTrain, std::move(*validation), {}, {}};
                MissingValues::fillWithTrainingMeans(v, t.trainOrigin);
                validation = std::move(v.test);
            }
            t.validation = std::move(*validation);
        };
        if (r.spec.contains(QStringLiteral("test_file"))) {
            Dataset test = other(QStringLiteral("test_file"), QStringLiteral("test_target_file"), t.testOrigin,
                                 QStringLiteral("test"));
            DatasetPair p{std::move(train), std::move(test), {}, {}};
            if (fill)
                MissingValues::fillWithTrainingMeans(p, t.trainOrigin);
            keepValidation(p.train);
            t.train = std::move(p.train);
            t.test = std::move(p.test);
            return t;
        }
        if (fill) {
            // The means of the training rows only: split here as the host would (same function,
            // fraction and seed), so that no test row's value is in a training row.
            if (train.rows() < 2)
                throw DataError::inFile(t.trainOrigin, QStringLiteral("cannot split %1 row(s) into train and test "
                                                                      "(dataset.test_fraction)")
                                                           .arg(train.rows()));
            DatasetPair p = splitTrainTest(train, r.spec.value(QStringLiteral("test_fraction")).toDouble(), r.seed);
            MissingValues::fillWithTrainingMeans(p, t.trainOrigin);
            keepValidation(p.train);
            t.train = std::move(p.train);
            t.test = std::move(p.test);
            return t;
        }
        keepValidation(train);
        t.train = std::move(train);
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        auto fileName = [&](const char* key) { return QFileInfo(spec.value(QLatin1String(key)).toString()).fileName(); };
        QString text = QStringLiteral("CSV %1 → %2 (%3)")
                           .arg(fileName("file"),
                                spec.contains(QStringLiteral("target_file"))
                                    ? fileName("target_file") + (spec.contains(QStringLiteral("target"))
                                                                     ? QStringLiteral(" ") + targetsText(spec)
                                                                     : QString())
                                    : targetsText(spec),
                                spec.value(QStringLiteral("task")).toString());
        return text + describeOptions(spec);
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::CsvSource)
