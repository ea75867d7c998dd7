#include "DataSource.h"

#include "CsvLoader.h"
#include "DataError.h"
#include "Generators.h"
#include "IdxLoader.h"
#include "LibsvmLoader.h"
#include "Splits.h"
#include "Standardiser.h"
#include "TextParsing.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace tb::data {
namespace {

constexpr double maxExactInteger = 9007199254740992.0; // 2^53: larger JSON numbers lose digits

enum class Kind { Function, Task, PositiveInt, NonNegReal, Fraction, Bool, Seed, Path, Target };

struct Rule {
    const char* key;
    Kind kind;
    bool required;
};

struct SourceRules {
    const char* source;
    std::vector<Rule> rules;
};

const std::vector<SourceRules>& allRules()
{
    static const std::vector<SourceRules> rules = [] {
        const std::vector<Rule> teaching{{"samples", Kind::PositiveInt, false},
                                         {"noise", Kind::NonNegReal, false},
                                         {"test_fraction", Kind::Fraction, false}};
        return std::vector<SourceRules>{
            {"bpls-toy", {{"function", Kind::Function, true}, {"sigma", Kind::NonNegReal, false}}},
            {"moons", teaching},
            {"circles", teaching},
            {"spirals", teaching},
            {"xor", teaching},
            {"friedman1",
             {{"samples", Kind::PositiveInt, false},
              {"features", Kind::PositiveInt, false},
              {"noise", Kind::NonNegReal, false},
              {"test_fraction", Kind::Fraction, false}}},
            {"fashion-mnist",
             {{"dir", Kind::Path, false}, {"train_limit", Kind::PositiveInt, false},
              {"test_limit", Kind::PositiveInt, false}}},
            {"idx",
             {{"train_images", Kind::Path, true},
              {"train_labels", Kind::Path, true},
              {"test_images", Kind::Path, true},
              {"test_labels", Kind::Path, true},
              {"train_limit", Kind::PositiveInt, false},
              {"test_limit", Kind::PositiveInt, false},
              {"classes", Kind::PositiveInt, false}}},
            {"csv",
             {{"file", Kind::Path, true},
              {"target", Kind::Target, true},
              {"task", Kind::Task, true},
              {"test_file", Kind::Path, false},
              {"test_fraction", Kind::Fraction, false}}},
            {"libsvm",
             {{"file", Kind::Path, true},
              {"task", Kind::Task, true},
              {"test_file", Kind::Path, false},
              {"test_fraction", Kind::Fraction, false},
              {"features", Kind::PositiveInt, false}}},
        };
    }();
    return rules;
}

const std::vector<Rule> commonRules{{"standardise", Kind::Bool, false}, {"seed", Kind::Seed, false}};

const SourceRules* rulesFor(const QString& source)
{
    for (const auto& r : allRules())
        if (source == QLatin1String(r.source))
            return &r;
    return nullptr;
}

bool isGeneratorWithNoise(const QString& s)
{
    return s == u"bpls-toy" || s == u"moons" || s == u"circles" || s == u"spirals" || s == u"xor" ||
           s == u"friedman1";
}

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
        QString s = QString::fromUtf8(v.isArray() ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                                  : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
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
    QString text() const { return QStringLiteral("dataset.%1: %2").arg(key, message); }
    DataError error() const { return DataError::inSpec(QStringLiteral("dataset.") + key, value, text()); }
};

[[noreturn]] void problem(const QString& key, const QJsonValue& v, const QString& message)
{
    throw SpecProblem{key, shown(v), message};
}

bool integral(const QJsonValue& v, double lo)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    return std::isfinite(d) && d == std::floor(d) && d >= lo && d <= maxExactInteger;
}

QString quotedList(const QStringList& items)
{
    QStringList q;
    for (const auto& i : items)
        q << QLatin1Char('"') + i + QLatin1Char('"');
    return q.join(QStringLiteral(", "));
}

void checkValue(const Rule& r, const QJsonValue& v)
{
    const QString key = QString::fromLatin1(r.key);
    const QString got = QStringLiteral(", got %1").arg(shown(v));
    switch (r.kind) {
    case Kind::Function:
        if (v.toString() != u"linear" && v.toString() != u"nonlinear")
            problem(key, v, QStringLiteral("expected \"linear\" or \"nonlinear\"") + got);
        break;
    case Kind::Task:
        if (v.toString() != u"classification" && v.toString() != u"regression")
            problem(key, v, QStringLiteral("expected \"classification\" or \"regression\"") + got);
        break;
    case Kind::PositiveInt:
        if (!integral(v, 1))
            problem(key, v, QStringLiteral("expected a positive integer") + got);
        break;
    case Kind::NonNegReal:
        if (!v.isDouble() || !(v.toDouble() >= 0) || !std::isfinite(v.toDouble()))
            problem(key, v, QStringLiteral("expected a number ≥ 0") + got);
        break;
    case Kind::Fraction:
        if (!v.isDouble() || !(v.toDouble() > 0 && v.toDouble() < 1))
            problem(key, v, QStringLiteral("expected a number between 0 and 1 (exclusive)") + got);
        break;
    case Kind::Bool:
        if (!v.isBool())
            problem(key, v, QStringLiteral("expected true or false") + got);
        break;
    case Kind::Seed: {
        bool ok = integral(v, 0);
        if (v.isString()) {
            const QString s = v.toString();
            ok = !s.isEmpty() && s.size() <= 20;
            for (QChar c : s)
                ok = ok && c.isDigit() && c.unicode() < 128;
            if (ok)
                s.toULongLong(&ok);
        }
        if (!ok)
            problem(key, v, QStringLiteral("expected a non-negative integer (or a string of decimal digits)") + got);
        break;
    }
    case Kind::Path:
        if (!v.isString() || v.toString().trimmed().isEmpty())
            problem(key, v, QStringLiteral("expected a file path (a non-empty string)") + got);
        break;
    case Kind::Target: {
        bool ok = v.isString() && !v.toString().isEmpty();
        if (v.isArray()) {
            const QJsonArray a = v.toArray();
            QStringList seen;
            ok = !a.isEmpty();
            for (const auto& e : a) {
                ok = ok && e.isString() && !e.toString().isEmpty() && !seen.contains(e.toString());
                seen << e.toString();
            }
        }
        if (!ok)
            problem(key, v, QStringLiteral("expected a column name or a list of distinct column names") + got);
        break;
    }
    }
}

/// Throws SpecProblem for the first problem of @p spec.
void check(const QJsonObject& spec)
{
    const QJsonValue src = spec.value(QStringLiteral("source"));
    QStringList names;
    for (const auto& r : allRules())
        names << QString::fromLatin1(r.source);
    if (src.isUndefined())
        problem(QStringLiteral("source"), src, QStringLiteral("missing; expected one of %1").arg(quotedList(names)));
    const SourceRules* rules = src.isString() ? rulesFor(src.toString()) : nullptr;
    if (!rules)
        problem(QStringLiteral("source"), src,
                QStringLiteral("expected one of %1, got %2").arg(quotedList(names), shown(src)));

    std::vector<Rule> all = rules->rules;
    all.insert(all.end(), commonRules.begin(), commonRules.end());
    for (auto it = spec.begin(); it != spec.end(); ++it) {
        if (it.key() == u"source")
            continue;
        const Rule* rule = nullptr;
        for (const auto& r : all)
            if (it.key() == QLatin1String(r.key))
                rule = &r;
        if (!rule) {
            QStringList known{QStringLiteral("source")};
            for (const auto& r : all)
                known << QString::fromLatin1(r.key);
            problem(it.key(), it.value(),
                    QStringLiteral("unknown key for source \"%1\" (known: %2)").arg(src.toString(), known.join(", ")));
        }
        checkValue(*rule, it.value());
    }
    for (const auto& r : all)
        if (r.required && !spec.contains(QLatin1String(r.key)))
            problem(QString::fromLatin1(r.key), QJsonValue(QJsonValue::Undefined),
                    QStringLiteral("missing (required for source \"%1\")").arg(src.toString()));

    const QString s = src.toString();
    const bool teaching = s == u"moons" || s == u"circles" || s == u"spirals" || s == u"xor";
    if ((teaching || s == u"friedman1") && spec.contains(QStringLiteral("samples")) &&
        spec.value(QStringLiteral("samples")).toDouble() < 2)
        problem(QStringLiteral("samples"), spec.value(QStringLiteral("samples")),
                QStringLiteral("expected at least 2 (one training and one test row), got %1")
                    .arg(shown(spec.value(QStringLiteral("samples")))));
    if (s == u"friedman1" && spec.contains(QStringLiteral("features")) &&
        spec.value(QStringLiteral("features")).toDouble() < 5)
        problem(QStringLiteral("features"), spec.value(QStringLiteral("features")),
                QStringLiteral("Friedman #1 needs at least 5 features, got %1")
                    .arg(shown(spec.value(QStringLiteral("features")))));
    if (s == u"idx" && spec.contains(QStringLiteral("classes")) && spec.value(QStringLiteral("classes")).toDouble() > 256)
        problem(QStringLiteral("classes"), spec.value(QStringLiteral("classes")),
                QStringLiteral("expected 1..256 (labels are bytes), got %1")
                    .arg(shown(spec.value(QStringLiteral("classes")))));
    if (s == u"csv" || s == u"libsvm") {
        const bool file = spec.contains(QStringLiteral("test_file"));
        const bool fraction = spec.contains(QStringLiteral("test_fraction"));
        if (file && fraction)
            problem(QStringLiteral("test_fraction"), spec.value(QStringLiteral("test_fraction")),
                    QStringLiteral("give either test_file or test_fraction, not both"));
        if (!file && !fraction)
            problem(QStringLiteral("test_file"), QJsonValue(QJsonValue::Undefined),
                    QStringLiteral("missing; give test_file (a separate test set) or test_fraction (a random split)"));
    }
    if (s == u"csv" && spec.value(QStringLiteral("task")).toString() == u"classification" &&
        spec.value(QStringLiteral("target")).isArray() && spec.value(QStringLiteral("target")).toArray().size() != 1)
        problem(QStringLiteral("target"), spec.value(QStringLiteral("target")),
                QStringLiteral("classification takes exactly one target column, got %1")
                    .arg(spec.value(QStringLiteral("target")).toArray().size()));
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

QStringList targetsOf(const QJsonObject& spec)
{
    const QJsonValue t = spec.value(QStringLiteral("target"));
    if (t.isString())
        return {t.toString()};
    QStringList out;
    for (const auto& e : t.toArray())
        out << e.toString();
    return out;
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
        train = CsvLoader::load(trainName, o);
        if (spec.contains(QStringLiteral("test_file"))) {
            testName = path("test_file");
            o.classNames = train.classNames;
            Dataset test = CsvLoader::load(testName, o);
            alignColumns(train, test, trainName, testName);
            return {std::move(train), std::move(test)};
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
                return {std::move(train), LibsvmLoader::load(testName, o)};
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
    QStringList out;
    for (const auto& r : allRules())
        out << QString::fromLatin1(r.source);
    return out;
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
    const QString s = spec.value(QStringLiteral("source")).toString();
    if (s == u"bpls-toy" || s == u"friedman1")
        return tb::Task::Regression;
    if (s == u"csv" || s == u"libsvm")
        return taskOf(spec);
    return tb::Task::Classification;
}

bool DataSource::hasNoiseLevel(const QJsonObject& spec)
{
    return isGeneratorWithNoise(spec.value(QStringLiteral("source")).toString());
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
    else if (s == u"fashion-mnist")
        text = QStringLiteral("Fashion-MNIST") + limits();
    else if (s == u"idx")
        text = QStringLiteral("IDX %1 / %2").arg(fileName("train_images"), fileName("test_images")) + limits();
    else if (s == u"csv")
        text = QStringLiteral("CSV %1 → %2 (%3)").arg(fileName("file"), targetsOf(spec).join(", "),
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
    return text;
}

QJsonObject DataSource::withAbsolutePaths(const QJsonObject& spec, const QString& baseDir)
{
    QJsonObject out = spec;
    for (const char* key : {"dir", "train_images", "train_labels", "test_images", "test_labels", "file", "test_file"}) {
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
    } else {
        p = loadFiles(spec, s, baseDir, seed, trainName, testName);
    }

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
    return p;
}

} // namespace tb::data
