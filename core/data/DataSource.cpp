#include "DataSource.h"

#include "ClassSubset.h"
#include "CsvLoader.h"
#include "DataError.h"
#include "DataSourceSchema.h"
#include "MemoryBudget.h"
#include "Generators.h"
#include "IdxLoader.h"
#include "LibsvmLoader.h"
#include "MinMaxScaler.h"
#include "MvGenerator.h"
#include "RandomFeatureOption.h"
#include "Splits.h"
#include "Standardiser.h"
#include "TextParsing.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace tb::data {
namespace {

/// A JSON value as it would be written in the file, shortened, for messages.
QString shown(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double:
        return QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest);
    case QJsonValue::String:
        return detail::quoted(v.toString());
    case QJsonValue::Array:
    case QJsonValue::Object: {
        QString s = detail::printable(QString::fromUtf8(v.isArray() ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                                                    : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact)));
        if (s.size() > 60)
            s = s.left(59) + QChar(0x2026);
        return s;
    }
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

/// A spec problem: thrown inside this file, turned into DataError or a validate() message.
struct SpecProblem {
    QString key;   // without the "dataset." prefix
    QString value; // as shown
    QString message;
    QString text() const { return QStringLiteral("dataset.%1: %2").arg(detail::printable(key), message); }
    DataError error() const { return DataError::inSpec(QStringLiteral("dataset.") + key, value, text()); }
};

[[noreturn]] void problem(const QString& key, const QJsonValue& v, const QString& message)
{
    throw SpecProblem{key, shown(v), message};
}

QString quotedList(const QStringList& items)
{
    QStringList q;
    for (const auto& i : items)
        q << QLatin1Char('"') + i + QLatin1Char('"');
    return q.join(QStringLiteral(", "));
}

/// Levenshtein distance, for "did you mean" on a mistyped key.
int editDistance(const QString& a, const QString& b)
{
    std::vector<int> row(std::size_t(b.size()) + 1);
    for (std::size_t j = 0; j < row.size(); ++j)
        row[j] = int(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = int(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int up = row[std::size_t(j)];
            row[std::size_t(j)] = std::min({up + 1, row[std::size_t(j) - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row.back();
}

bool isGeneratorWithNoise(const QString& source)
{
    const DataSourceInfo* info = DataSourceSchema::source(source);
    return info && !info->noiseKey.isEmpty();
}

bool isClassificationSpec(const DataSourceInfo& info, const QJsonObject& spec)
{
    if (!info.task.isEmpty())
        return info.task == u"classification";
    return spec.value(QStringLiteral("task")).toString() == u"classification";
}

/// Throws SpecProblem for the first problem of @p spec.
void check(const QJsonObject& spec)
{
    const QJsonValue src = spec.value(QStringLiteral("source"));
    const QStringList names = DataSourceSchema::ids();
    if (src.isUndefined())
        problem(QStringLiteral("source"), src, QStringLiteral("missing; expected one of %1").arg(quotedList(names)));
    const DataSourceInfo* info = src.isString() ? DataSourceSchema::source(src.toString()) : nullptr;
    if (!info)
        problem(QStringLiteral("source"), src,
                QStringLiteral("expected one of %1, got %2").arg(quotedList(names), shown(src)));

    for (auto it = spec.begin(); it != spec.end(); ++it) {
        if (it.key() == u"source")
            continue;
        const DataParam* p = info->param(it.key());
        if (!p) {
            QStringList known{QStringLiteral("source")};
            QString closest;
            int best = 3; // suggest only near misses (one or two edits)
            for (const DataParam& q : info->params) {
                known << q.key;
                if (const int d = editDistance(it.key(), q.key); d < best) {
                    best = d;
                    closest = q.key;
                }
            }
            problem(it.key(), it.value(),
                    QStringLiteral("unknown key for source \"%1\"%2 (known: %3)")
                        .arg(info->id,
                             closest.isEmpty() ? QString() : QStringLiteral("; did you mean \"%1\"?").arg(closest),
                             known.join(QStringLiteral(", "))));
        }
        if (const QString message = p->check(it.value()); !message.isEmpty())
            problem(it.key(), it.value(), message);
    }
    auto has = [&](const char* key) { return spec.contains(QLatin1String(key)); };
    if (info->param(QStringLiteral("test_file")) && info->param(QStringLiteral("test_fraction"))) {
        if (has("test_file") && has("test_fraction"))
            problem(QStringLiteral("test_fraction"), spec.value(QStringLiteral("test_fraction")),
                    QStringLiteral("give either test_file or test_fraction, not both"));
        if (!has("test_file") && !has("test_fraction"))
            problem(QStringLiteral("test_file"), QJsonValue(QJsonValue::Undefined),
                    QStringLiteral("missing; give test_file (a separate test set) or test_fraction (a random split)"));
    }
    for (const DataParam& p : info->params) {
        if (p.required && !spec.contains(p.key))
            problem(p.key, QJsonValue(QJsonValue::Undefined),
                    QStringLiteral("missing (required for source \"%1\")").arg(info->id));
        if (!p.requiredUnless.isEmpty() && !spec.contains(p.key) && !spec.contains(p.requiredUnless))
            problem(p.key, QJsonValue(QJsonValue::Undefined),
                    QStringLiteral("missing; give %1 or %2").arg(p.key, p.requiredUnless));
    }
    const bool classification = isClassificationSpec(*info, spec);
    if (classification && spec.value(QStringLiteral("standardise_targets")).toBool())
        problem(QStringLiteral("standardise_targets"), spec.value(QStringLiteral("standardise_targets")),
                QStringLiteral("only a regression has targets to standardise; this data set is a classification"));
    if (spec.value(QStringLiteral("min_max_scale")).toBool()) {
        if (classification)
            problem(QStringLiteral("min_max_scale"), spec.value(QStringLiteral("min_max_scale")),
                    QStringLiteral("only for a regression; this data set is a classification (use standardise)"));
        for (const char* other : {"standardise", "standardise_targets"})
            if (spec.value(QLatin1String(other)).toBool())
                problem(QStringLiteral("min_max_scale"), spec.value(QStringLiteral("min_max_scale")),
                        QStringLiteral("give either min_max_scale or %1, not both").arg(QLatin1String(other)));
    }
    if (const auto [key, message] = RandomFeatureOption::conflict(spec); !key.isEmpty())
        problem(key, spec.value(key), message);
    if (info->id == u"csv") {
        const QJsonValue target = spec.value(QStringLiteral("target"));
        if (classification && target.isArray() && target.toArray().size() != 1)
            problem(QStringLiteral("target"), target,
                    QStringLiteral("classification takes exactly one target column, got %1").arg(target.toArray().size()));
        if (has("test_target_file") && !(has("target_file") && has("test_file")))
            problem(QStringLiteral("test_target_file"), spec.value(QStringLiteral("test_target_file")),
                    QStringLiteral("only used with target_file and test_file (the test set's own targets)"));
        if (has("target_file") && has("test_file") && !has("test_target_file"))
            problem(QStringLiteral("test_target_file"), QJsonValue(QJsonValue::Undefined),
                    QStringLiteral("missing: with target_file, the test_file needs its targets in test_target_file"));
    }
}

std::uint64_t seedValue(const QJsonValue& v)
{
    if (v.isString())
        return v.toString().toULongLong();
    return std::uint64_t(v.toDouble());
}

QString resolve(const QString& baseDir, const QString& path)
{
    if (QFileInfo(path).isAbsolute())
        return QDir::cleanPath(path);
    return QDir::cleanPath(QDir(baseDir.isEmpty() ? QDir::currentPath() : baseDir).filePath(path));
}

QString shape(const Dataset& d)
{
    return QStringLiteral("%1×%2 → %3").arg(d.rows()).arg(d.inputs()).arg(d.outputs());
}

/// First non-finite entry of @p d, as an error naming @p where.
void requireFinite(const Dataset& d, const QString& where)
{
    for (const Eigen::MatrixXd* m : {&d.x, &d.y}) {
        if (m->allFinite())
            continue;
        for (Eigen::Index j = 0; j < m->cols(); ++j)
            for (Eigen::Index i = 0; i < m->rows(); ++i)
                if (!std::isfinite((*m)(i, j)))
                    throw DataError::inFile(where, QStringLiteral("%1(%2, %3) = %4 is not finite")
                                                       .arg(m == &d.x ? QStringLiteral("x") : QStringLiteral("y"))
                                                       .arg(i)
                                                       .arg(j)
                                                       .arg((*m)(i, j)));
    }
}

double number(const QJsonObject& spec, const char* key, double fallback)
{
    return spec.value(QLatin1String(key)).toDouble(fallback);
}

QList<CsvLoader::Column> targetsOf(const QJsonObject& spec)
{
    auto column = [](const QJsonValue& v) {
        return v.isString() ? CsvLoader::Column(v.toString()) : CsvLoader::Column(int(v.toDouble()));
    };
    const QJsonValue t = spec.value(QStringLiteral("target"));
    if (t.isUndefined())
        return {};
    if (!t.isArray())
        return {column(t)};
    QList<CsvLoader::Column> out;
    for (const auto& e : t.toArray())
        out << column(e);
    return out;
}

QString targetsText(const QJsonObject& spec)
{
    QStringList out;
    for (const CsvLoader::Column& c : targetsOf(spec))
        out << (c.byIndex ? QStringLiteral("column %1").arg(c.index) : detail::printable(c.name));
    return out.join(QStringLiteral(", "));
}

tb::Task taskOf(const QJsonObject& spec)
{
    return spec.value(QStringLiteral("task")).toString() == u"regression" ? tb::Task::Regression
                                                                         : tb::Task::Classification;
}

/// Re-raises an IdxLoader "limit" error under the spec key that set the limit.
template <typename Fn>
auto withLimitKey(const QString& key, const QJsonObject& spec, Fn fn)
{
    try {
        return fn();
    } catch (const DataError& e) {
        if (e.key() != u"limit")
            throw;
        throw DataError(e.file(), -1, -1, QStringLiteral("dataset.") + key, shown(spec.value(key)),
                        QStringLiteral("dataset.%1: %2").arg(key, e.message()));
    }
}

DatasetPair generate(const QJsonObject& spec, const QString& s, std::optional<double> sigma, std::uint64_t seed)
{
    if (s != u"bpls-toy") {
        // The set, then its train and test copies: twice rows × (inputs + outputs) doubles.
        const double samples = number(spec, "samples", s == u"friedman1" ? 1000 : 400);
        const double columns = s == u"friedman1" ? number(spec, "features", 10) + 1 : 2 + 2;
        MemoryBudget::require(MemoryBudget::bytesOf(std::uint64_t(samples), std::uint64_t(columns) * 2),
                              QStringLiteral("generating %1 samples × %2 columns (and their train/test split)")
                                  .arg(samples, 0, 'f', 0)
                                  .arg(columns, 0, 'f', 0),
                              {}, QStringLiteral("dataset.samples"));
    }
    try {
        if (s == u"bpls-toy") {
            const auto f = spec.value(QStringLiteral("function")).toString() == u"linear"
                               ? BplsToyFunction::Linear
                               : BplsToyFunction::Nonlinear;
            return Generators::bplsToy(f, sigma.value_or(number(spec, "sigma", 0.0)), seed);
        }
        const double fraction = number(spec, "test_fraction", 0.3);
        Dataset all;
        if (s == u"friedman1") {
            all = Generators::friedman1(Eigen::Index(number(spec, "samples", 1000)),
                                        Eigen::Index(number(spec, "features", 10)),
                                        sigma.value_or(number(spec, "noise", 1.0)), seed);
        } else {
            const auto n = Eigen::Index(number(spec, "samples", 400));
            const double noise = sigma.value_or(number(spec, "noise", 0.1));
            if (s == u"moons")
                all = Generators::moons(n, noise, seed);
            else if (s == u"circles")
                all = Generators::circles(n, noise, seed);
            else if (s == u"spirals")
                all = Generators::spirals(n, noise, seed);
            else
                all = Generators::xorQuadrants(n, noise, seed);
        }
        return splitTrainTest(all, fraction, seed);
    } catch (const std::invalid_argument& e) {
        throw DataError::inSpec(QStringLiteral("dataset"), {},
                                QStringLiteral("dataset: %1 generator: %2").arg(s, QString::fromUtf8(e.what())));
    }
}

/// The Mv set (MvGenerator), split with the seed.
DatasetPair generateMv(const QJsonObject& spec, std::uint64_t seed)
{
    const double samples = number(spec, "samples", double(MvGenerator::kPaperRows));
    MemoryBudget::require(MemoryBudget::bytesOf(std::uint64_t(samples), std::uint64_t(MvGenerator::kInputs + 1) * 2),
                          QStringLiteral("generating %1 Mv samples × %2 columns (and their train/test split)")
                              .arg(samples, 0, 'f', 0)
                              .arg(MvGenerator::kInputs + 1),
                          {}, QStringLiteral("dataset.samples"));
    try {
        return splitTrainTest(MvGenerator::generate(Eigen::Index(samples), seed), number(spec, "test_fraction", 0.2),
                              seed);
    } catch (const std::invalid_argument& e) {
        throw DataError::inSpec(QStringLiteral("dataset"), {},
                                QStringLiteral("dataset: mv generator: %1").arg(QString::fromUtf8(e.what())));
    }
}

/// Puts the test file's feature columns in the training file's order (matched by header
/// name), or throws if the two files do not have the same feature columns.
void alignColumns(const Dataset& train, Dataset& test, const QString& trainName, const QString& testName)
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
                                QStringLiteral("train and test features differ: train %1 has %2 feature columns, "
                                               "test has %3%4")
                                    .arg(trainName)
                                    .arg(train.inputs())
                                    .arg(test.inputs())
                                    .arg(detail));
    }
    Eigen::MatrixXd x(test.rows(), test.inputs());
    for (Eigen::Index j = 0; j < x.cols(); ++j)
        x.col(j) = test.x.col(test.featureNames.indexOf(train.featureNames[qsizetype(j)]));
    test.x = std::move(x);
    test.featureNames = train.featureNames;
}

// dataset.keep_classes: the classes named (or indexed) by @p v, in that order (ClassSubset).
DatasetPair keepClasses(const DatasetPair& p, const QJsonValue& v)
{
    const QString text = QString::fromUtf8(QJsonDocument(v.isArray() ? v.toArray() : QJsonArray{v}).toJson(QJsonDocument::Compact));
    auto fail = [&](const QString& why) {
        return DataError::inSpec(QStringLiteral("dataset.keep_classes"), text,
                                 QStringLiteral("dataset.keep_classes: %1 (classes: %2)")
                                     .arg(why, p.train.classNames.join(QStringLiteral(", "))));
    };
    std::vector<int> classes;
    for (const QJsonValue& c : v.isArray() ? v.toArray() : QJsonArray{v}) {
        if (c.isString()) {
            const qsizetype i = p.train.classNames.indexOf(c.toString());
            if (i < 0)
                throw fail(QStringLiteral("no class is named \"%1\"").arg(c.toString()));
            classes.push_back(int(i));
        } else {
            classes.push_back(c.toInt(-1));
        }
    }
    try {
        return ClassSubset::keep(p, classes);
    } catch (const std::invalid_argument& e) {
        throw fail(QString::fromUtf8(e.what()).section(QStringLiteral(": "), 1));
    }
}

DatasetPair loadFiles(const QJsonObject& spec, const QString& s, const QString& baseDir, std::uint64_t seed,
                      QString& trainName, QString& testName)
{
    auto path = [&](const char* key) { return resolve(baseDir, spec.value(QLatin1String(key)).toString()); };
    auto limit = [&](const char* key) {
        return spec.contains(QLatin1String(key)) ? Eigen::Index(number(spec, key, -1)) : Eigen::Index(-1);
    };
    DatasetPair p;
    if (s == u"fashion-mnist") {
        QString dir = spec.contains(QStringLiteral("dir")) ? path("dir") : IdxLoader::fashionMnistDir();
        if (dir.isEmpty())
            throw DataError::inSpec(
                QStringLiteral("dataset.dir"), {},
                QStringLiteral("dataset.dir: Fashion-MNIST not found: $TRAINBENCH_FASHION_MNIST is %1 and "
                               "/usr/share/datasets/fashion-mnist does not exist; set dataset.dir")
                    .arg(qEnvironmentVariableIsEmpty("TRAINBENCH_FASHION_MNIST")
                             ? QStringLiteral("unset")
                             : QStringLiteral("\"%1\" (not a folder)").arg(qEnvironmentVariable("TRAINBENCH_FASHION_MNIST"))));
        IdxLoader::Options o;
        o.classNames = IdxLoader::fashionMnistClassNames();
        o.seed = seed;
        o.limit = limit("train_limit");
        o.stream = Rng::TrainSubset;
        o.name = QStringLiteral("fashion-mnist train");
        trainName = IdxLoader::findFile(dir, QStringLiteral("train-images-idx3-ubyte"));
        testName = IdxLoader::findFile(dir, QStringLiteral("t10k-images-idx3-ubyte"));
        p.train = withLimitKey(QStringLiteral("train_limit"), spec, [&] {
            return IdxLoader::load(trainName, IdxLoader::findFile(dir, QStringLiteral("train-labels-idx1-ubyte")), o);
        });
        o.limit = limit("test_limit");
        o.stream = Rng::TestSubset;
        o.name = QStringLiteral("fashion-mnist test");
        p.test = withLimitKey(QStringLiteral("test_limit"), spec, [&] {
            return IdxLoader::load(testName, IdxLoader::findFile(dir, QStringLiteral("t10k-labels-idx1-ubyte")), o);
        });
        return p;
    }
    if (s == u"idx") {
        IdxLoader::Options o;
        o.classCount = int(number(spec, "classes", 10));
        o.seed = seed;
        o.limit = limit("train_limit");
        o.stream = Rng::TrainSubset;
        o.name = QStringLiteral("train");
        trainName = path("train_images");
        testName = path("test_images");
        p.train = withLimitKey(QStringLiteral("train_limit"), spec,
                               [&] { return IdxLoader::load(trainName, path("train_labels"), o); });
        o.limit = limit("test_limit");
        o.stream = Rng::TestSubset;
        o.name = QStringLiteral("test");
        p.test = withLimitKey(QStringLiteral("test_limit"), spec,
                              [&] { return IdxLoader::load(testName, path("test_labels"), o); });
        return p;
    }
    trainName = path("file");
    Dataset train;
    const bool csv = s == u"csv";
    if (csv) {
        CsvLoader::Options o;
        o.targets = targetsOf(spec);
        o.task = taskOf(spec);
        const QString delimiter = spec.value(QStringLiteral("delimiter")).toString(QStringLiteral(","));
        o.delimiter = delimiter == u"whitespace" ? ' ' : delimiter.at(0).toLatin1();
        o.header = spec.value(QStringLiteral("header")).toBool(true);
        o.skipRows = int(number(spec, "skip_rows", 0));
        if (spec.contains(QStringLiteral("target_file")))
            o.targetFile = path("target_file");
        train = CsvLoader::load(trainName, o);
        if (spec.contains(QStringLiteral("test_file"))) {
            testName = path("test_file");
            o.classNames = train.classNames;
            if (spec.contains(QStringLiteral("test_target_file")))
                o.targetFile = path("test_target_file");
            Dataset test = CsvLoader::load(testName, o);
            alignColumns(train, test, trainName, testName);
            return {std::move(train), std::move(test), {}};
        }
    } else {
        LibsvmLoader::Options o;
        o.task = taskOf(spec);
        o.features = spec.contains(QStringLiteral("features")) ? Eigen::Index(number(spec, "features", 0)) : 0;
        train = LibsvmLoader::load(trainName, o);
        if (spec.contains(QStringLiteral("test_file"))) {
            testName = path("test_file");
            o.classNames = train.classNames;
            const bool widthFromTrain = o.features == 0;
            o.features = train.inputs();
            try {
                return {std::move(train), LibsvmLoader::load(testName, o), {}};
            } catch (const DataError& e) {
                if (!widthFromTrain || e.key() != u"index")
                    throw;
                throw DataError(e.file(), e.line(), e.byteOffset(), e.key(), e.value(),
                                e.message() + QStringLiteral(" (the training file %1 has %2 features; set "
                                                             "dataset.features to widen both)")
                                                  .arg(trainName)
                                                  .arg(o.features));
            }
        }
    }
    testName = trainName;
    if (train.rows() < 2)
        throw DataError::inFile(trainName, QStringLiteral("cannot split %1 row(s) into train and test (dataset.test_fraction)")
                                               .arg(train.rows()));
    return splitTrainTest(train, number(spec, "test_fraction", 0.3), seed);
}

QString percent(double f)
{
    return QString::number(f * 100.0, 'g', 3) + QLatin1Char('%');
}

} // namespace

QStringList DataSource::sources()
{
    return DataSourceSchema::ids();
}

QString DataSource::validate(const QJsonObject& spec)
{
    try {
        check(spec);
    } catch (const SpecProblem& p) {
        return p.text();
    }
    return {};
}

std::optional<tb::Task> DataSource::task(const QJsonObject& spec)
{
    if (!validate(spec).isEmpty())
        return std::nullopt;
    const DataSourceInfo* info = DataSourceSchema::source(spec.value(QStringLiteral("source")).toString());
    return isClassificationSpec(*info, spec) ? tb::Task::Classification : tb::Task::Regression;
}

bool DataSource::hasNoiseLevel(const QJsonObject& spec)
{
    return isGeneratorWithNoise(spec.value(QStringLiteral("source")).toString());
}

QStringList DataSource::warnings(const DatasetPair& pair)
{
    QStringList out;
    const Dataset& train = pair.train;
    if (!train.isClassification() || train.rows() == 0)
        return out;
    const auto counts = train.classCounts();
    const auto present = std::count_if(counts.begin(), counts.end(), [](Eigen::Index c) { return c > 0; });
    if (present == 1) {
        const auto it = std::find_if(counts.begin(), counts.end(), [](Eigen::Index c) { return c > 0; });
        out << QStringLiteral("the training set (%1) has only one class, \"%2\": any classifier reaches 100 % by "
                              "predicting it. Is the target column right?")
                   .arg(train.description, detail::printable(train.classNames.value(qsizetype(it - counts.begin()))));
    } else if (train.rows() >= 20 && double(present) > 0.5 * double(train.rows())) {
        out << QStringLiteral("the training set (%1) has %2 classes for %3 rows: is the target a number to predict "
                              "(\"task\": \"regression\")?")
                   .arg(train.description)
                   .arg(present)
                   .arg(train.rows());
    }
    return out;
}

QString DataSource::describe(const QJsonObject& spec)
{
    if (const QString err = validate(spec); !err.isEmpty())
        return QStringLiteral("invalid dataset: ") + err;
    const QString s = spec.value(QStringLiteral("source")).toString();
    auto num = [&](const char* key, double fallback) {
        return QString::number(number(spec, key, fallback), 'g', QLocale::FloatingPointShortest);
    };
    auto fileName = [&](const char* key) { return QFileInfo(spec.value(QLatin1String(key)).toString()).fileName(); };
    auto testPart = [&] {
        return spec.contains(QStringLiteral("test_file"))
                   ? QStringLiteral(", test %1").arg(fileName("test_file"))
                   : QStringLiteral(", %1 test").arg(percent(number(spec, "test_fraction", 0.3)));
    };
    auto limits = [&] {
        QString t;
        if (spec.contains(QStringLiteral("train_limit")))
            t += QStringLiteral(", train %1").arg(num("train_limit", 0));
        if (spec.contains(QStringLiteral("test_limit")))
            t += QStringLiteral(", test %1").arg(num("test_limit", 0));
        return t;
    };
    QString text;
    if (s == u"bpls-toy")
        text = QStringLiteral("BPLS toy, %1, σ = %2").arg(spec.value(QStringLiteral("function")).toString(), num("sigma", 0));
    else if (s == u"friedman1")
        text = QStringLiteral("Friedman #1, %1 samples × %2 features, noise %3, %4 test")
                   .arg(num("samples", 1000), num("features", 10), num("noise", 1.0),
                        percent(number(spec, "test_fraction", 0.3)));
    else if (s == u"mv")
        text = QStringLiteral("Mv, %1 samples, %2 test")
                   .arg(num("samples", double(MvGenerator::kPaperRows)), percent(number(spec, "test_fraction", 0.2)));
    else if (s == u"fashion-mnist")
        text = QStringLiteral("Fashion-MNIST") + limits();
    else if (s == u"idx")
        text = QStringLiteral("IDX %1 / %2").arg(fileName("train_images"), fileName("test_images")) + limits();
    else if (s == u"csv")
        text = QStringLiteral("CSV %1 → %2 (%3)")
                   .arg(fileName("file"),
                        spec.contains(QStringLiteral("target_file"))
                            ? fileName("target_file") + (spec.contains(QStringLiteral("target")) ? QStringLiteral(" ") + targetsText(spec) : QString())
                            : targetsText(spec),
                        spec.value(QStringLiteral("task")).toString()) +
               testPart();
    else if (s == u"libsvm")
        text = QStringLiteral("LIBSVM %1 (%2)").arg(fileName("file"), spec.value(QStringLiteral("task")).toString()) +
               testPart();
    else
        text = QStringLiteral("%1, %2 samples, noise %3, %4 test")
                   .arg(s, num("samples", 400), num("noise", 0.1), percent(number(spec, "test_fraction", 0.3)));
    if (spec.value(QStringLiteral("standardise")).toBool())
        text += QStringLiteral(", standardised");
    if (spec.value(QStringLiteral("standardise_targets")).toBool())
        text += QStringLiteral(", targets standardised");
    if (spec.value(QStringLiteral("min_max_scale")).toBool())
        text += QStringLiteral(", min-max scaled");
    if (RandomFeatureOption::enabled(spec))
        text += QStringLiteral(", ") + RandomFeatureOption::describe(spec);
    return text;
}

QJsonObject DataSource::withAbsolutePaths(const QJsonObject& spec, const QString& baseDir)
{
    QJsonObject out = spec;
    for (const char* key : {"dir", "train_images", "train_labels", "test_images", "test_labels", "file", "test_file",
                            "target_file", "test_target_file"}) {
        const QJsonValue v = spec.value(QLatin1String(key));
        if (v.isString() && !v.toString().isEmpty())
            out.insert(QLatin1String(key), resolve(baseDir, v.toString()));
    }
    return out;
}

DatasetPair DataSource::load(const QJsonObject& spec, const QString& baseDir, const DataOverrides& overrides)
{
    try {
        check(spec);
    } catch (const SpecProblem& p) {
        throw p.error();
    }
    const QString s = spec.value(QStringLiteral("source")).toString();
    const std::uint64_t seed = spec.contains(QStringLiteral("seed")) ? seedValue(spec.value(QStringLiteral("seed")))
                                                                     : overrides.seed.value_or(1);
    if (overrides.sigma) {
        if (!isGeneratorWithNoise(s))
            throw DataError::inSpec(QStringLiteral("dataset.source"), s,
                                    QStringLiteral("dataset.source: \"%1\" has no noise level to sweep; noise "
                                                   "sweeps need a generator (bpls-toy, friedman1, moons, circles, "
                                                   "spirals, xor)")
                                        .arg(s));
        if (!(*overrides.sigma >= 0) || !std::isfinite(*overrides.sigma))
            throw DataError::inSpec(QStringLiteral("sigma"), QString::number(*overrides.sigma),
                                    QStringLiteral("sigma: expected a number ≥ 0, got %1").arg(*overrides.sigma));
    }

    DatasetPair p;
    QString trainName;
    QString testName;
    if (isGeneratorWithNoise(s)) {
        p = generate(spec, s, overrides.sigma, seed);
        trainName = QStringLiteral("generated train set (%1)").arg(s);
        testName = QStringLiteral("generated test set (%1)").arg(s);
    } else if (s == u"mv") {
        p = generateMv(spec, seed);
        trainName = QStringLiteral("generated train set (mv)");
        testName = QStringLiteral("generated test set (mv)");
    } else {
        p = loadFiles(spec, s, baseDir, seed, trainName, testName);
    }
    if (spec.contains(QStringLiteral("keep_classes")))
        p = keepClasses(p, spec.value(QStringLiteral("keep_classes")));

    if (p.train.inputs() != p.test.inputs() || p.train.outputs() != p.test.outputs())
        throw DataError::inFile(testName, QStringLiteral("train and test shapes differ: train %1 is %2 (rows×features → "
                                                         "outputs), test %3 is %4")
                                              .arg(trainName, shape(p.train), testName, shape(p.test)));
    requireFinite(p.train, trainName);
    requireFinite(p.test, testName);
    if (p.train.isClassification()) {
        const auto counts = p.train.classCounts();
        const auto testCounts = p.test.classCounts();
        for (std::size_t c = 0; c < counts.size() && c < testCounts.size(); ++c)
            if (counts[c] == 0 && testCounts[c] > 0)
                throw DataError::inFile(testName, QStringLiteral("class \"%1\" occurs in %2 test row(s) but never in "
                                                                 "the training set %3")
                                                      .arg(p.test.classNames.value(qsizetype(c)))
                                                      .arg(testCounts[c])
                                                      .arg(trainName));
    }
    if (spec.value(QStringLiteral("standardise")).toBool()) {
        Standardiser st;
        st.fit(p.train.x);
        st.applyInPlace(p.train.x);
        st.applyInPlace(p.test.x);
        p.train.description += QStringLiteral(", standardised");
        p.test.description += QStringLiteral(", standardised on train");
    }
    if (spec.value(QStringLiteral("standardise_targets")).toBool() && !p.train.isClassification()) {
        // Fitted on the training targets only; Dataset keeps mean and scale so that predictions
        // are compared in the targets' own units (Dataset::targetsInOriginalUnits()).
        Standardiser st;
        st.fit(p.train.y);
        st.applyInPlace(p.train.y);
        st.applyInPlace(p.test.y);
        for (Dataset* d : {&p.train, &p.test}) {
            d->targetMean = st.mean();
            d->targetScale = st.scale();
            d->description += QStringLiteral(", targets standardised");
        }
    }
    if (spec.value(QStringLiteral("min_max_scale")).toBool() && !p.train.isClassification()) {
        // Inputs and targets to [0, 1] on the training rows (the paper's scaling). The targets'
        // map y = (original − min)/range is kept as Dataset's targetMean/targetScale, so
        // predictions are compared in the targets' own units like standardised ones.
        MinMaxScaler sy;
        sy.fit(p.train.y);
        scaleMinMax(p, true);
        for (Dataset* d : {&p.train, &p.test}) {
            d->targetMean = sy.minimum();
            d->targetScale = sy.range();
            d->description += QStringLiteral(", min-max scaled");
        }
    }
    // Last: the features see the inputs the scaling options produced (as a trainer would).
    RandomFeatureOption::apply(p, spec, seed);
    p.warnings = warnings(p);
    return p;
}

} // namespace tb::data
