#include "DataSource.h"

#include "ClassSubset.h"
#include "DataError.h"
#include "DataKeys.h"
#include "DataSourceRegistry.h"
#include "MemoryBudget.h"
#include "MinMaxScaler.h"
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
#include <tuple>
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
    QString text;  // the whole message, "dataset.key: …"
    DataError error() const { return DataError::inSpec(QStringLiteral("dataset.") + key, value, text); }
};

[[noreturn]] void problem(const QString& key, const QJsonValue& v, const QString& message)
{
    throw SpecProblem{key, shown(v), QStringLiteral("dataset.%1: %2").arg(detail::printable(key), message)};
}

QString quotedList(const QStringList& items)
{
    QStringList q;
    for (const auto& i : items)
        q << QLatin1Char('"') + i + QLatin1Char('"');
    return q.join(QStringLiteral(", "));
}

/// A spec checked and normalised by its source's schema.
struct Resolved {
    const DataSourceEntry* entry = nullptr;
    QVariantMap spec; ///< normalised; "source" kept
};

/// Throws SpecProblem for the first problem of @p spec.
Resolved resolve(const QJsonObject& spec)
{
    const QJsonValue src = spec.value(QStringLiteral("source"));
    if (src.isUndefined())
        problem(QStringLiteral("source"), src,
                QStringLiteral("missing; expected one of %1").arg(quotedList(DataSourceRegistry::ids())));
    const DataSourceEntry* entry = src.isString() ? DataSourceRegistry::find(src.toString()) : nullptr;
    if (!entry)
        problem(QStringLiteral("source"), src,
                QStringLiteral("expected one of %1, got %2").arg(quotedList(DataSourceRegistry::ids()), shown(src)));

    QString error;
    QString key;
    const auto normalised =
        entry->schema.normalise(spec.toVariantMap(), &error, nullptr, DataKeys::context(entry->info), &key);
    if (!normalised)
        throw SpecProblem{key, shown(spec.value(key)), error};
    Resolved r{entry, *normalised};
    auto on = [&](const char* key) { return r.spec.value(QLatin1String(key)).toBool(); };
    if (on("min_max_scale"))
        for (const char* other : {"standardise", "standardise_targets"})
            if (on(other))
                problem(QStringLiteral("min_max_scale"), spec.value(QStringLiteral("min_max_scale")),
                        QStringLiteral("give either min_max_scale or %1, not both").arg(QLatin1String(other)));
    for (const auto& [key, message] :
         {RandomFeatureOption::conflict(r.spec), entry->provider->conflict(r.spec)})
        if (!key.isEmpty())
            problem(key, spec.value(key), message);
    return r;
}

bool isClassification(const Resolved& r)
{
    if (r.entry->info.task)
        return *r.entry->info.task == tb::Task::Classification;
    return r.spec.value(QStringLiteral("task")).toString() == u"classification";
}

QString shape(const Dataset& d)
{
    return QStringLiteral("%1×%2 → %3").arg(d.rows()).arg(d.inputs()).arg(d.outputs());
}

/// First non-finite entry of @p d, as an error naming @p where.
void requireFinite(const Dataset& d, const QString& where)
{
    if (d.isSparse() && !Eigen::Map<const Eigen::VectorXd>(d.xSparse.valuePtr(), d.xSparse.nonZeros()).allFinite())
        for (Eigen::Index i = 0; i < d.xSparse.outerSize(); ++i)
            for (SparseMatrix::InnerIterator it(d.xSparse, i); it; ++it)
                if (!std::isfinite(it.value()))
                    throw DataError::inFile(where, QStringLiteral("x(%1, %2) = %3 is not finite")
                                                       .arg(it.row())
                                                       .arg(it.col())
                                                       .arg(it.value()));
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

/// A source's table as a Dataset, its invariants checked (a plugin's source may break them).
Dataset adopt(tb::DataTable&& table, bool classification, const QString& where)
{
    Dataset d(std::move(table));
    if (classification != d.isClassification())
        throw DataError::inFile(where, QStringLiteral("the source produced a %1 set where its spec asks for a %2")
                                           .arg(DataKeys::taskName(d.task), DataKeys::taskName(classification ? tb::Task::Classification
                                                                                                             : tb::Task::Regression)));
    if (d.isClassification()) {
        if (qsizetype(d.labels.size()) != d.x.rows())
            throw DataError::inFile(where, QStringLiteral("%1 labels for %2 rows").arg(d.labels.size()).arg(d.x.rows()));
        if (d.y.size() == 0 && d.x.rows() > 0) {
            try {
                d.setOneHotFromLabels();
            } catch (const std::out_of_range& e) {
                throw DataError::inFile(where, QString::fromUtf8(e.what()));
            }
        }
    }
    if (d.y.rows() != d.x.rows())
        throw DataError::inFile(where, QStringLiteral("%1 target rows for %2 input rows").arg(d.y.rows()).arg(d.x.rows()));
    if (d.isSparse()) {
        // x is n×0 beside sparse inputs (DataTable), and the rows are compressed.
        if (d.x.cols() != 0 || d.x.rows() != d.xSparse.rows())
            throw DataError::inFile(where, QStringLiteral("sparse inputs of %1 rows beside a dense x of %2×%3 (x must be "
                                                          "n×0 when xSparse holds the inputs)")
                                               .arg(d.xSparse.rows())
                                               .arg(d.x.rows())
                                               .arg(d.x.cols()));
        d.xSparse.makeCompressed();
    }
    if (!d.featureNames.isEmpty() && d.featureNames.size() != d.inputs())
        throw DataError::inFile(where, QStringLiteral("%1 feature names for %2 inputs").arg(d.featureNames.size()).arg(d.inputs()));
    return d;
}

// dataset.keep_classes: the classes named (or indexed) by @p v, in that order (ClassSubset).
DatasetPair keepClasses(const DatasetPair& p, const QVariant& v)
{
    const QVariantList wanted = v.typeId() == QMetaType::QVariantList ? v.toList() : QVariantList{v};
    const QString text = QString::fromUtf8(QJsonDocument(QJsonArray::fromVariantList(wanted)).toJson(QJsonDocument::Compact));
    auto fail = [&](const QString& why) {
        return DataError::inSpec(QStringLiteral("dataset.keep_classes"), text,
                                 QStringLiteral("dataset.keep_classes: %1 (classes: %2)")
                                     .arg(why, p.train.classNames.join(QStringLiteral(", "))));
    };
    std::vector<int> classes;
    for (const QVariant& c : wanted) {
        if (c.typeId() == QMetaType::QString) {
            const qsizetype i = p.train.classNames.indexOf(c.toString());
            if (i < 0)
                throw fail(QStringLiteral("no class is named \"%1\"").arg(c.toString()));
            classes.push_back(int(i));
        } else {
            const qlonglong i = c.toLongLong();
            classes.push_back(i >= INT_MIN && i <= INT_MAX ? int(i) : -1);
        }
    }
    try {
        return ClassSubset::keep(p, classes);
    } catch (const std::invalid_argument& e) {
        throw fail(QString::fromUtf8(e.what()).section(QStringLiteral(": "), 1));
    }
}

QString percent(double f)
{
    return QString::number(f * 100.0, 'g', 3) + QLatin1Char('%');
}

/// The seed of a load: the spec's own, else the experiment's (overrides.seed), else 1.
std::uint64_t seedOf(const Resolved& r, const DataOverrides& overrides)
{
    return r.spec.contains(QStringLiteral("seed")) ? r.spec.value(QStringLiteral("seed")).toULongLong()
                                                   : overrides.seed.value_or(1);
}

/// A noise sweep's σ: only for a source with a noise level, and a number ≥ 0.
void checkNoiseOverride(const DataSourceInfo& info, const DataOverrides& overrides)
{
    if (!overrides.sigma)
        return;
    if (info.noiseKey.isEmpty()) {
        QStringList noisy;
        for (const DataSourceEntry* e : DataSourceRegistry::all())
            if (!e->info.noiseKey.isEmpty())
                noisy << e->info.id;
        throw DataError::inSpec(QStringLiteral("dataset.source"), info.id,
                                QStringLiteral("dataset.source: \"%1\" has no noise level to sweep; noise "
                                               "sweeps need a generator (%2)")
                                    .arg(info.id, noisy.join(QStringLiteral(", "))));
    }
    if (!(*overrides.sigma >= 0) || !std::isfinite(*overrides.sigma))
        throw DataError::inSpec(QStringLiteral("sigma"), QString::number(*overrides.sigma),
                                QStringLiteral("sigma: expected a number ≥ 0, got %1").arg(*overrides.sigma));
}

/// The source's tables; a plugin source's own exception becomes a DataError said to come from it.
DataTables loadTables(const Resolved& r, const QString& baseDir, std::uint64_t seed,
                      const DataOverrides& overrides)
{
    const DataMemoryNeed need = r.entry->provider->memoryNeed(r.spec);
    if (need.bytes > 0)
        MemoryBudget::require(need.bytes >= double(UINT64_MAX) ? UINT64_MAX : std::uint64_t(need.bytes),
                              need.what, {}, QStringLiteral("dataset.") + need.key);
    DataRequest request;
    request.spec = r.spec;
    request.baseDir = baseDir;
    request.seed = seed;
    request.noise = overrides.sigma;
    try {
        return r.entry->provider->load(request);
    } catch (const DataError&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        throw DataError::inSpec(
            QStringLiteral("dataset"), {},
            QStringLiteral("dataset: source \"%1\": %2").arg(r.entry->info.id, QString::fromUtf8(e.what())));
    }
}

/// Names for messages about each set: the files read, or the generated sets. A split set's test
/// rows come from the training file.
struct SetNames {
    QString train, test, validation;
};

SetNames setNames(const DataTables& tables, const QString& source)
{
    SetNames n;
    n.train = !tables.trainOrigin.isEmpty() ? tables.trainOrigin
                                            : QStringLiteral("generated train set (%1)").arg(source);
    n.test = !tables.testOrigin.isEmpty() ? tables.testOrigin
             : !tables.test && !tables.trainOrigin.isEmpty()
                 ? tables.trainOrigin
                 : QStringLiteral("generated test set (%1)").arg(source);
    n.validation = !tables.validationOrigin.isEmpty() ? tables.validationOrigin
                                                      : QStringLiteral("validation rows of %1").arg(n.train);
    return n;
}

/// The training and test sets: the source's own test set, or a seeded share of its rows.
DatasetPair trainAndTest(DataTables& tables, const Resolved& r, const SetNames& names, std::uint64_t seed)
{
    const DataSourceInfo& info = r.entry->info;
    const bool classification = isClassification(r);
    DatasetPair p;
    if (tables.test) {
        p.train = adopt(std::move(tables.train), classification, names.train);
        p.test = adopt(std::move(*tables.test), classification, names.test);
        return p;
    }
    if (info.testSet == DataSourceInfo::TestSet::Own)
        throw DataError::inFile(names.train,
                                QStringLiteral("source \"%1\" returned no test set").arg(info.id));
    Dataset all = adopt(std::move(tables.train), classification, names.train);
    if (all.rows() < 2)
        throw DataError::inFile(
            names.train, QStringLiteral("cannot split %1 row(s) into train and test (dataset.test_fraction)")
                             .arg(all.rows()));
    return splitTrainTest(all, r.spec.value(QStringLiteral("test_fraction")).toDouble(), seed);
}

/// The validation set: the source's own, or a seeded share of the training rows, taken before
/// anything is fitted on the training rows (scaling, random features).
void addValidation(DatasetPair& p, DataTables& tables, const Resolved& r, const SetNames& names,
                   std::uint64_t seed)
{
    if (tables.validation) {
        p.validation = adopt(std::move(*tables.validation), isClassification(r), names.validation);
        return;
    }
    if (!r.spec.contains(QStringLiteral("validation_fraction")))
        return;
    const QVariant fraction = r.spec.value(QStringLiteral("validation_fraction"));
    try {
        p.validation = holdOutValidation(p.train, fraction.toDouble(), seed);
    } catch (const std::invalid_argument& e) {
        throw DataError::inSpec(
            QStringLiteral("dataset.validation_fraction"), ParamSchema::describe(fraction),
            QStringLiteral("dataset.validation_fraction: %1").arg(QString::fromUtf8(e.what())));
    }
}

/// The sets agree: the same shapes and storage, finite values, and no test or validation class
/// the training set never has.
void checkSets(const DatasetPair& p, const SetNames& names)
{
    if (p.train.inputs() != p.test.inputs() || p.train.outputs() != p.test.outputs())
        throw DataError::inFile(
            names.test, QStringLiteral("train and test shapes differ: train %1 is %2 (rows×features → "
                                       "outputs), test %3 is %4")
                            .arg(names.train, shape(p.train), names.test, shape(p.test)));
    if (p.hasValidation() &&
        (p.train.inputs() != p.validation.inputs() || p.train.outputs() != p.validation.outputs()))
        throw DataError::inFile(
            names.validation,
            QStringLiteral("train and validation shapes differ: train %1 is %2 (rows×features → "
                           "outputs), validation %3 is %4")
                .arg(names.train, shape(p.train), names.validation, shape(p.validation)));
    for (const auto& [set, name] :
         {std::pair{&p.test, names.test}, std::pair{&p.validation, names.validation}})
        if (set->rows() > 0 && set->isSparse() != p.train.isSparse())
            throw DataError::inFile(
                name,
                QStringLiteral("its inputs are %1 but the training set's (%2) are %3: a source "
                               "gives every set the same storage")
                    .arg(set->isSparse() ? QStringLiteral("sparse") : QStringLiteral("dense"), names.train,
                         p.train.isSparse() ? QStringLiteral("sparse") : QStringLiteral("dense")));
    requireFinite(p.train, names.train);
    requireFinite(p.test, names.test);
    requireFinite(p.validation, names.validation);
    if (!p.train.isClassification())
        return;
    const auto counts = p.train.classCounts();
    for (const auto& [set, name, what] :
         {std::tuple{&p.test, names.test, QStringLiteral("test")},
          std::tuple{&p.validation, names.validation, QStringLiteral("validation")}}) {
        const auto otherCounts = set->classCounts();
        for (std::size_t c = 0; c < counts.size() && c < otherCounts.size(); ++c)
            if (counts[c] == 0 && otherCounts[c] > 0)
                throw DataError::inFile(name,
                                        QStringLiteral("class \"%1\" occurs in %2 %3 row(s) but never in "
                                                       "the training set %4")
                                            .arg(set->classNames.value(qsizetype(c)))
                                            .arg(otherCounts[c])
                                            .arg(what, names.train));
    }
}

/// "standardise": the inputs scaled on the training rows. Sparse inputs are scaled without
/// centring: subtracting the mean would fill every zero (a 50,000 × 1,000,000 corpus would become
/// 400 GB of doubles). Each column gets std 1, not mean 0; the description says so.
void standardiseInputs(DatasetPair& p)
{
    const bool sparse = p.train.isSparse();
    Standardiser st;
    if (sparse)
        st.fitSparse(p.train.xSparse);
    else
        st.fit(p.train.x);
    for (Dataset* d : {&p.train, &p.test, &p.validation}) {
        if (d != &p.train && d->rows() == 0)
            continue; // no validation set
        if (sparse)
            st.applyInPlace(d->xSparse);
        else
            st.applyInPlace(d->x);
        d->description += d == &p.train
                              ? (sparse ? QStringLiteral(", scaled to unit variance (sparse: not centred)")
                                        : QStringLiteral(", standardised"))
                              : (sparse ? QStringLiteral(", scaled on train (sparse: not centred)")
                                        : QStringLiteral(", standardised on train"));
    }
}

/// "standardise_targets": fitted on the training targets only; Dataset keeps mean and scale so
/// that predictions are compared in the targets' own units (Dataset::targetsInOriginalUnits()).
void standardiseTargets(DatasetPair& p)
{
    Standardiser st;
    st.fit(p.train.y);
    st.applyInPlace(p.train.y);
    st.applyInPlace(p.test.y);
    if (p.hasValidation())
        st.applyInPlace(p.validation.y);
    for (Dataset* d : {&p.train, &p.test, &p.validation}) {
        d->targetMean = st.mean();
        d->targetScale = st.scale();
        d->description += QStringLiteral(", targets standardised");
    }
}

/// What would make sparse inputs dense is refused, with what works instead.
void refuseDensifying(const DatasetPair& p, const QVariantMap& spec, const QString& trainName)
{
    if (!p.train.isSparse())
        return;
    if (spec.value(QStringLiteral("min_max_scale")).toBool() && !p.train.isClassification())
        throw DataError::inSpec(
            QStringLiteral("dataset.min_max_scale"), QStringLiteral("true"),
            QStringLiteral("dataset.min_max_scale: %1 has sparse inputs (%2), and shifting them "
                           "to [0, 1] would make them dense; use \"standardise\": true (it scales "
                           "sparse inputs without centring) or \"storage\": \"dense\"")
                .arg(trainName, shape(p.train)));
    if (RandomFeatureOption::enabled(spec))
        throw DataError::inSpec(
            QStringLiteral("dataset.random_features"), RandomFeatureOption::describe(spec),
            QStringLiteral("dataset.random_features: %1 has sparse inputs (%2); the data set's "
                           "random features take dense inputs. Use an algorithm's own features on "
                           "sparse data (lsq, dsgd) or \"storage\": \"dense\"")
                .arg(trainName, shape(p.train)));
}

/// "min_max_scale": inputs and targets to [0, 1] on the training rows (the paper's scaling). The
/// targets' map y = (original − min)/range is kept as Dataset's targetMean/targetScale, so
/// predictions are compared in the targets' own units like standardised ones.
void minMaxScale(DatasetPair& p)
{
    MinMaxScaler sy;
    sy.fit(p.train.y);
    scaleMinMax(p, true);
    for (Dataset* d : {&p.train, &p.test, &p.validation}) {
        d->targetMean = sy.minimum();
        d->targetScale = sy.range();
        d->description += QStringLiteral(", min-max scaled");
    }
}

} // namespace

QStringList DataSource::sources()
{
    return DataSourceRegistry::ids();
}

QString DataSource::validate(const QJsonObject& spec)
{
    try {
        resolve(spec);
    } catch (const SpecProblem& p) {
        return p.text;
    }
    return {};
}

std::optional<QVariantMap> DataSource::normalised(const QJsonObject& spec, QString* error)
{
    try {
        return resolve(spec).spec;
    } catch (const SpecProblem& p) {
        if (error)
            *error = p.text;
    }
    return std::nullopt;
}

std::optional<tb::Task> DataSource::task(const QJsonObject& spec)
{
    try {
        return isClassification(resolve(spec)) ? tb::Task::Classification : tb::Task::Regression;
    } catch (const SpecProblem&) {
        return std::nullopt;
    }
}

bool DataSource::hasNoiseLevel(const QJsonObject& spec)
{
    const DataSourceEntry* e = DataSourceRegistry::find(spec.value(QStringLiteral("source")).toString());
    return e && !e->info.noiseKey.isEmpty();
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
    Resolved r;
    try {
        r = resolve(spec);
    } catch (const SpecProblem& p) {
        return QStringLiteral("invalid dataset: ") + p.text;
    }
    const DataSourceInfo& info = r.entry->info;
    QString text;
    try {
        text = r.entry->provider->describe(r.spec);
    } catch (const std::exception&) {
        text = info.id;
    }
    if (info.testSet != DataSourceInfo::TestSet::Own) {
        if (info.testSet == DataSourceInfo::TestSet::OwnOrSplit && r.spec.contains(info.testKey))
            text += QStringLiteral(", test %1").arg(QFileInfo(r.spec.value(info.testKey).toString()).fileName());
        else
            text += QStringLiteral(", %1 test").arg(percent(r.spec.value(QStringLiteral("test_fraction")).toDouble()));
    }
    if (!info.validationKey.isEmpty() && r.spec.contains(info.validationKey))
        text += QStringLiteral(", validation %1").arg(QFileInfo(r.spec.value(info.validationKey).toString()).fileName());
    else if (r.spec.contains(QStringLiteral("validation_fraction")))
        text += QStringLiteral(", %1 of train for validation").arg(percent(r.spec.value(QStringLiteral("validation_fraction")).toDouble()));
    auto on = [&](const char* key) { return r.spec.value(QLatin1String(key)).toBool(); };
    if (on("standardise"))
        text += QStringLiteral(", standardised");
    if (on("standardise_targets"))
        text += QStringLiteral(", targets standardised");
    if (on("min_max_scale"))
        text += QStringLiteral(", min-max scaled");
    if (RandomFeatureOption::enabled(r.spec))
        text += QStringLiteral(", ") + RandomFeatureOption::describe(r.spec);
    return text;
}

QJsonObject DataSource::withAbsolutePaths(const QJsonObject& spec, const QString& baseDir)
{
    const DataSourceEntry* e = DataSourceRegistry::find(spec.value(QStringLiteral("source")).toString());
    if (!e)
        return spec;
    QJsonObject out = spec;
    DataRequest paths;
    paths.baseDir = baseDir;
    for (const ParamSpec& p : e->schema.specs()) {
        if (p.type != ParamType::Path && p.type != ParamType::Folder)
            continue;
        const QJsonValue v = spec.value(p.key);
        if (!v.isString() || v.toString().isEmpty())
            continue;
        paths.spec.insert(p.key, v.toString());
        out.insert(p.key, paths.path(p.key));
    }
    return out;
}

DatasetPair DataSource::load(const QJsonObject& spec, const QString& baseDir, const DataOverrides& overrides)
{
    Resolved r;
    try {
        r = resolve(spec);
    } catch (const SpecProblem& p) {
        throw p.error();
    }
    const std::uint64_t seed = seedOf(r, overrides);
    checkNoiseOverride(r.entry->info, overrides);
    DataTables tables = loadTables(r, baseDir, seed, overrides);
    const SetNames names = setNames(tables, r.entry->info.id);
    DatasetPair p = trainAndTest(tables, r, names, seed);
    addValidation(p, tables, r, names, seed);
    if (r.spec.contains(QStringLiteral("keep_classes")))
        p = keepClasses(p, r.spec.value(QStringLiteral("keep_classes")));
    checkSets(p, names);

    auto on = [&](const char* key) { return r.spec.value(QLatin1String(key)).toBool(); };
    if (on("standardise"))
        standardiseInputs(p);
    if (on("standardise_targets") && !p.train.isClassification())
        standardiseTargets(p);
    refuseDensifying(p, r.spec, names.train);
    if (on("min_max_scale") && !p.train.isClassification())
        minMaxScale(p);
    // Last: the features see the inputs the scaling options produced (as a trainer would).
    RandomFeatureOption::apply(p, r.spec, seed);
    p.warnings = warnings(p);
    return p;
}

} // namespace tb::data
