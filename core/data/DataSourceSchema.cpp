#include "DataSourceSchema.h"
#include "MvGenerator.h"

#include "TextParsing.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <cmath>

namespace tb::data {
namespace {

constexpr double maxExactInteger = 9007199254740992.0; // 2^53: larger JSON numbers lose digits

QString num(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
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
        return num(v.toDouble());
    case QJsonValue::String:
        return detail::quoted(v.toString());
    case QJsonValue::Array:
    case QJsonValue::Object: {
        QString s =
            QString::fromUtf8(v.isArray() ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                          : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
        s = detail::printable(s);
        if (s.size() > 60)
            s = s.left(59) + QChar(0x2026);
        return s;
    }
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

bool integral(const QJsonValue& v)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    return std::isfinite(d) && d == std::floor(d) && std::abs(d) <= maxExactInteger;
}

// Builders: each fills the help text's default and range from the fields, so they cannot disagree.
DataParam make(const QString& key, const QString& label, DataParam::Kind kind, const QString& help)
{
    DataParam p;
    p.key = key;
    p.label = label;
    p.kind = kind;
    p.help = help;
    return p;
}

DataParam integer(const QString& key, const QString& label, double lo, double hi, QJsonValue def,
                  const QString& help)
{
    DataParam p = make(key, label, DataParam::Kind::Int, help);
    p.minimum = lo;
    p.maximum = hi;
    p.defaultValue = def;
    return p;
}

DataParam real(const QString& key, const QString& label, double lo, double hi, bool exclusive, QJsonValue def,
               const QString& help)
{
    DataParam p = make(key, label, DataParam::Kind::Real, help);
    p.minimum = lo;
    p.maximum = hi;
    p.exclusiveMinimum = p.exclusiveMaximum = exclusive;
    p.defaultValue = def;
    return p;
}

DataParam boolean(const QString& key, const QString& label, bool def, const QString& help)
{
    DataParam p = make(key, label, DataParam::Kind::Bool, help);
    p.defaultValue = def;
    return p;
}

DataParam choice(const QString& key, const QString& label, const QStringList& choices,
                 const QStringList& labels, QJsonValue def, const QString& help)
{
    DataParam p = make(key, label, DataParam::Kind::Choice, help);
    p.choices = choices;
    p.choiceLabels = labels;
    p.defaultValue = def;
    return p;
}

DataParam path(const QString& key, const QString& label, bool required, const QString& filter,
               const QString& help)
{
    DataParam p = make(key, label, DataParam::Kind::Path, help);
    p.required = required;
    p.fileFilter = filter;
    return p;
}

DataParam absent(DataParam p, const QString& text)
{
    p.absentText = text;
    return p;
}

DataParam required(DataParam p)
{
    p.required = true;
    return p;
}

/// Appends " Default …; range ….": the one place help texts get them.
DataParam finished(DataParam p)
{
    QStringList parts;
    if (p.required)
        parts << QStringLiteral("Required");
    else if (!p.requiredUnless.isEmpty())
        parts << QStringLiteral("Required unless %1 is given").arg(p.requiredUnless);
    if (!p.defaultValue.isUndefined())
        parts << QStringLiteral("default %1").arg(shown(p.defaultValue));
    if (const QString r = p.rangeText(); !r.isEmpty())
        parts << r;
    if (p.kind == DataParam::Kind::Choice)
        parts << QStringLiteral("one of %1").arg([&] {
            QStringList q;
            for (const QString& c : p.choices)
                q << detail::quoted(c);
            return q.join(QStringLiteral(", "));
        }());
    if (!parts.isEmpty()) {
        QString tail = parts.join(QStringLiteral("; "));
        tail[0] = tail[0].toUpper();
        p.help += QLatin1Char(' ') + tail + QLatin1Char('.');
    }
    return p;
}

const QString kSeedHelp =
    QStringLiteral("Seed of generation, split and subsets; absent: the experiment's seed.");
const QString kStandardiseHelp = QStringLiteral(
    "Standardise the inputs: zero mean and unit variance per input column, fitted on the training set and "
    "applied to both sets. Targets are not changed (see standardise_targets).");
const QString kStandardiseTargetsHelp = QStringLiteral(
    "Regression: standardise the targets too, fitted on the training set; predictions are mapped back, so "
    "train and test RMSE stay in the targets' own units (a trainer's loss is in standardised units).");
// Classification files: keep some classes only (ClassSubset), e.g. a binary pair.
DataParam keepClasses()
{
    return absent(make(QStringLiteral("keep_classes"), QStringLiteral("Keep classes"), DataParam::Kind::Columns,
                       QStringLiteral("Keep only the rows of these classes (names or 0-based indices, at least two; "
                                      "after train_limit/test_limit), relabelled in the order given: the first "
                                      "becomes class 0, e.g. [0, 6] is T-shirt/top against Shirt. Absent: all.")),
                  QStringLiteral("all"));
}

const QString kMinMaxHelp = QStringLiteral(
    "Regression: scale every input column and the targets to [0, 1] with the training rows' minimum and "
    "maximum, applied to both sets (Palagi & Seccia 2019 scale this way). Predictions are mapped back, so "
    "RMSE stays in the targets' own units. Not with standardise or standardise_targets.");
const QString kTestFractionHelp =
    QStringLiteral("Share of the rows held out as the test set, drawn with the seed.");

// The random-features option (RandomFeatureOption): the lsq plugin's generator GEN as a data
// step, so that any trainer sees the features lsq fits. Same ranges and defaults as lsq's
// parameters, except the count (lsq: 4000) and the median sample's upper bound.
QList<DataParam> randomFeatureParams()
{
    QList<DataParam> out;
    out << choice(QStringLiteral("random_features"), QStringLiteral("Random features"),
                  {"none", "gaussian_cos", "gaussian_cos_sin", "laplace_cos", "random_logit", "raw_subset"},
                  {"none (the inputs)", "Gaussian kernel: cos(ωᵀx + b)", "Gaussian kernel: cos/sin pairs",
                   "Laplace kernel: cos(ωᵀx + b)", "random logits: sigmoid(ωᵀx + b)", "a random subset of the inputs"},
                  QStringLiteral("none"),
                  QStringLiteral("Replace every row's inputs by seeded random features, after the scaling options and "
                                 "fitted on the training rows only (optional PCA, then the bandwidth by the median "
                                 "trick): the generator of the lsq plugin, bit for bit (lsq.gls's features for the "
                                 "same settings with seed = rf_seed), so any trainer can be given them. none: the "
                                 "inputs as they are."));
    out << integer(QStringLiteral("rf_count"), QStringLiteral("Random features p"), 1, 10000000, 1000,
                   QStringLiteral("Number of random features (gaussian_cos_sin: even; raw_subset: at most the "
                                  "(projected) inputs); memory (train + test rows) × p doubles is checked first."));
    out << choice(QStringLiteral("rf_bandwidth_rule"), QStringLiteral("Bandwidth rule"), {"median", "fixed"},
                  {"× median distance", "fixed σ"}, QStringLiteral("median"),
                  QStringLiteral("median: σ = rf_bandwidth × the median pairwise distance of rf_median_sample seeded "
                                 "training rows (after the PCA); fixed: σ = rf_bandwidth."));
    out << real(QStringLiteral("rf_bandwidth"), QStringLiteral("Bandwidth"), 0, 1e6, true, 1.0,
                QStringLiteral("Kernel bandwidth σ of the features, or its multiple of the median distance "
                               "(rf_bandwidth_rule)."));
    out << integer(QStringLiteral("rf_median_sample"), QStringLiteral("Median-trick rows"), 2, 20000, 2000,
                   QStringLiteral("Training rows sampled (seeded, without replacement) for the median trick."));
    out << integer(QStringLiteral("rf_pca"), QStringLiteral("PCA dimensions"), 0, 100000, 0,
                   QStringLiteral("Project the inputs on their first principal components (of the training rows) "
                                  "before the features; 0 = no projection; at most the number of inputs."));
    out << boolean(QStringLiteral("rf_pca_center"), QStringLiteral("Centred PCA"), false,
                   QStringLiteral("Subtract the training mean before the PCA (lsq's default: no)."));
    out << absent(make(QStringLiteral("rf_seed"), QStringLiteral("Feature seed"), DataParam::Kind::Seed,
                       QStringLiteral("Seed of the features (and of the median-trick sample); absent: the data set's "
                                      "seed. lsq generates the same features when its run seed equals it.")),
                  QStringLiteral("the data set's seed"));
    return out;
}

QList<DataParam> common(bool regression)
{
    QList<DataParam> out;
    out << boolean(QStringLiteral("standardise"), QStringLiteral("Standardise inputs"), false,
                   kStandardiseHelp);
    if (regression) {
        DataParam t = boolean(QStringLiteral("standardise_targets"), QStringLiteral("Standardise targets"),
                              false, kStandardiseTargetsHelp);
        t.regressionOnly = true;
        out << t;
        DataParam m = boolean(QStringLiteral("min_max_scale"), QStringLiteral("Min-max scale"), false, kMinMaxHelp);
        m.regressionOnly = true;
        out << m;
    }
    out << absent(make(QStringLiteral("seed"), QStringLiteral("Seed"), DataParam::Kind::Seed, kSeedHelp),
                  QStringLiteral("the experiment's seed"));
    out << randomFeatureParams();
    return out;
}

QList<DataSourceInfo> build()
{
    const double maxRows = 1e12; // far above any memory: the memory check says what fits
    const QStringList tasks{QStringLiteral("classification"), QStringLiteral("regression")};
    QList<DataSourceInfo> out;

    DataSourceInfo toy{
        QStringLiteral("bpls-toy"),
        QStringLiteral("BPLS toy functions (1-D)"),
        QStringLiteral("The BPLS paper's toy problem: 5 training and 5 test points of a linear or "
                       "non-linear function with noisy training targets."),
        QStringLiteral("regression"),
        QStringLiteral("sigma"),
        {}};
    toy.params
        << required(choice(
               QStringLiteral("function"), QStringLiteral("Function"),
               {QStringLiteral("linear"), QStringLiteral("nonlinear")},
               {QStringLiteral("linear"), QStringLiteral("non-linear")}, QJsonValue(QJsonValue::Undefined),
               QStringLiteral("The toy problem's target functions (Fig. 4: linear, Fig. 5: non-linear).")))
        << real(QStringLiteral("sigma"), QStringLiteral("Noise σ"), 0, HUGE_VAL, false, 0.0,
                QStringLiteral(
                    "Standard deviation of the Gaussian noise added to the training targets (a noise "
                    "sweep varies it)."))
        << common(true);
    out << toy;

    const QList<std::pair<QString, QString>> teaching{
        {QStringLiteral("moons"), QStringLiteral("Two moons (2-D)")},
        {QStringLiteral("circles"), QStringLiteral("Circles (2-D)")},
        {QStringLiteral("spirals"), QStringLiteral("Spirals (2-D)")},
        {QStringLiteral("xor"), QStringLiteral("XOR quadrants (2-D)")}};
    for (const auto& [id, label] : teaching) {
        DataSourceInfo s{id,
                         label,
                         QStringLiteral("A 2-D two-class teaching set with Gaussian noise on the points."),
                         QStringLiteral("classification"),
                         QStringLiteral("noise"),
                         {}};
        s.params << integer(QStringLiteral("samples"), QStringLiteral("Samples"), 2, maxRows, 400,
                            QStringLiteral("Rows generated in total (train + test)."))
                 << real(QStringLiteral("noise"), QStringLiteral("Noise"), 0, HUGE_VAL, false, 0.1,
                         QStringLiteral(
                             "Standard deviation of the Gaussian noise on both coordinates (a noise sweep "
                             "varies it)."))
                 << real(QStringLiteral("test_fraction"), QStringLiteral("Test fraction"), 0, 1, true, 0.3,
                         kTestFractionHelp)
                 << common(false);
        out << s;
    }

    DataSourceInfo fr{
        QStringLiteral("friedman1"),
        QStringLiteral("Friedman #1 regression"),
        QStringLiteral("Friedman's regression problem: y = 10 sin(π x1 x2) + 20 (x3 − 0.5)² + 10 x4 + 5 x5 + "
                       "noise; further inputs are irrelevant."),
        QStringLiteral("regression"),
        QStringLiteral("noise"),
        {}};
    fr.params << integer(QStringLiteral("samples"), QStringLiteral("Samples"), 2, maxRows, 1000,
                         QStringLiteral("Rows generated in total (train + test)."))
              << integer(QStringLiteral("features"), QStringLiteral("Features"), 5, 1e9, 10,
                         QStringLiteral("Input columns; the first 5 carry the signal, the rest are noise."))
              << real(QStringLiteral("noise"), QStringLiteral("Noise"), 0, HUGE_VAL, false, 1.0,
                      QStringLiteral(
                          "Standard deviation of the Gaussian noise added to y (a noise sweep varies it)."))
              << real(QStringLiteral("test_fraction"), QStringLiteral("Test fraction"), 0, 1, true, 0.3,
                      kTestFractionHelp)
              << common(true);
    out << fr;

    DataSourceInfo mv{
        QStringLiteral("mv"),
        QStringLiteral("Mv regression (Delve)"),
        QStringLiteral("Delve's synthetic \"mv\" set: 10 attributes with dependencies between them (one-hot and "
                       "0/1 encoded: 12 inputs), a piecewise target, no noise; Palagi & Seccia's deep-net data."),
        QStringLiteral("regression"),
        {},
        {}};
    mv.params << integer(QStringLiteral("samples"), QStringLiteral("Samples"), 2, double(MvGenerator::kMaxRows),
                         double(MvGenerator::kPaperRows),
                         QStringLiteral("Rows generated in total (train + test); the paper: 40768."))
              << real(QStringLiteral("test_fraction"), QStringLiteral("Test fraction"), 0, 1, true, 0.2,
                      QStringLiteral("Share of the rows held out as the test set, drawn with the seed (the "
                                     "paper: 0.2)."))
              << common(true);
    out << mv;

    DataSourceInfo fm{
        QStringLiteral("fashion-mnist"),
        QStringLiteral("Fashion-MNIST"),
        QStringLiteral("Zalando's 28×28 clothing images, 10 classes: 60000 training and 10000 test images."),
        QStringLiteral("classification"),
        {},
        {}};
    DataParam dir =
        make(QStringLiteral("dir"), QStringLiteral("Folder"), DataParam::Kind::Folder,
             QStringLiteral("Folder with the four Fashion-MNIST IDX files (.gz or not); absent: "
                            "$TRAINBENCH_FASHION_MNIST, else /usr/share/datasets/fashion-mnist."));
    fm.params << absent(dir, QStringLiteral("found automatically"))
              << absent(integer(QStringLiteral("train_limit"), QStringLiteral("Train limit"), 1, maxRows,
                                QJsonValue(QJsonValue::Undefined),
                                QStringLiteral(
                                    "Use a random subset of this many training images (drawn with the seed); "
                                    "absent: all.")),
                        QStringLiteral("all"))
              << absent(integer(QStringLiteral("test_limit"), QStringLiteral("Test limit"), 1, maxRows,
                                QJsonValue(QJsonValue::Undefined),
                                QStringLiteral("Use a random subset of this many test images; absent: all.")),
                        QStringLiteral("all"))
              << keepClasses() << common(false);
    out << fm;

    const QString idxFilter = QStringLiteral("IDX files (*-ubyte *-ubyte.gz *.idx *.gz);;All files (*)");
    DataSourceInfo idx{QStringLiteral("idx"),
                       QStringLiteral("IDX files (MNIST format)"),
                       QStringLiteral("Images and labels in the IDX format of MNIST, plain or gzip."),
                       QStringLiteral("classification"),
                       {},
                       {}};
    idx.params
        << path(QStringLiteral("train_images"), QStringLiteral("Train images"), true, idxFilter,
                QStringLiteral("IDX image file of the training set."))
        << path(QStringLiteral("train_labels"), QStringLiteral("Train labels"), true, idxFilter,
                QStringLiteral("IDX label file of the training set."))
        << path(QStringLiteral("test_images"), QStringLiteral("Test images"), true, idxFilter,
                QStringLiteral("IDX image file of the test set."))
        << path(QStringLiteral("test_labels"), QStringLiteral("Test labels"), true, idxFilter,
                QStringLiteral("IDX label file of the test set."))
        << absent(integer(QStringLiteral("train_limit"), QStringLiteral("Train limit"), 1, maxRows,
                          QJsonValue(QJsonValue::Undefined),
                          QStringLiteral("Use a random subset of this many training images; absent: all.")),
                  QStringLiteral("all"))
        << absent(integer(QStringLiteral("test_limit"), QStringLiteral("Test limit"), 1, maxRows,
                          QJsonValue(QJsonValue::Undefined),
                          QStringLiteral("Use a random subset of this many test images; absent: all.")),
                  QStringLiteral("all"))
        << integer(
               QStringLiteral("classes"), QStringLiteral("Classes"), 1, 256, 10,
               QStringLiteral("Number of classes; labels must lie in 0 … classes − 1 (labels are bytes)."))
        << keepClasses() << common(false);
    out << idx;

    const QString csvFilter =
        QStringLiteral("Delimited text (*.csv *.tsv *.txt *.dat *.csv.gz *.txt.gz *.gz);;All files (*)");
    DataSourceInfo csv{
        QStringLiteral("csv"),
        QStringLiteral("CSV file"),
        QStringLiteral("A delimited text file (comma, semicolon, tab or whitespace), plain or gzip, with "
                       "or without a header row."),
        {},
        {},
        {}};
    DataParam target =
        make(QStringLiteral("target"), QStringLiteral("Target"), DataParam::Kind::Columns,
             QStringLiteral("Target column: its header name, or its 0-based position (−1: the last "
                            "column); a list for multi-output regression. With target_file: columns of "
                            "that file (absent: all of them)."));
    target.requiredUnless = QStringLiteral("target_file");
    DataParam testFraction = real(QStringLiteral("test_fraction"), QStringLiteral("Test fraction"), 0, 1,
                                  true, 0.3, kTestFractionHelp);
    testFraction.requiredUnless = QStringLiteral("test_file");
    csv.params
        << path(QStringLiteral("file"), QStringLiteral("File"), true, csvFilter,
                QStringLiteral("The data file; gzip is recognised by its content."))
        << choice(QStringLiteral("delimiter"), QStringLiteral("Delimiter"),
                  {QStringLiteral(","), QStringLiteral(";"), QStringLiteral("\t"), QStringLiteral("|"),
                   QStringLiteral("whitespace")},
                  {QStringLiteral("comma ,"), QStringLiteral("semicolon ;"), QStringLiteral("tab"),
                   QStringLiteral("bar |"), QStringLiteral("whitespace")},
                  QStringLiteral(","),
                  QStringLiteral("What separates the fields of a row (whitespace: as numpy.loadtxt)."))
        << boolean(
               QStringLiteral("header"), QStringLiteral("Header row"), true,
               QStringLiteral("The first row (after skip_rows) names the columns; false: columns are named "
                              "by position, 0, 1, 2, …"))
        << integer(QStringLiteral("skip_rows"), QStringLiteral("Skip rows"), 0, 1e9, 0,
                   QStringLiteral("Lines skipped at the start of the file, e.g. 1 for the count row of "
                                  "scikit-learn's raw files (\"150,4,setosa,…\")."))
        << target
        << absent(
               path(QStringLiteral("target_file"), QStringLiteral("Target file"), false, csvFilter,
                    QStringLiteral("Targets in a file of their own, one row per data row, read with the same "
                                   "delimiter, header and skip_rows (e.g. diabetes_target.csv.gz).")),
               QStringLiteral("none: the target is a column of the file"))
        << required(
               choice(QStringLiteral("task"), QStringLiteral("Task"), tasks, tasks,
                      QJsonValue(QJsonValue::Undefined),
                      QStringLiteral("Classification: the target holds class names; regression: numbers.")))
        << path(QStringLiteral("test_file"), QStringLiteral("Test file"), false, csvFilter,
                QStringLiteral("A separate test set with the same columns (matched by name)."))
        << path(QStringLiteral("test_target_file"), QStringLiteral("Test target file"), false, csvFilter,
                QStringLiteral("The test set's targets, when target_file holds the training targets."))
        << testFraction << common(true);
    out << csv;

    const QString svmFilter =
        QStringLiteral("LIBSVM files (*.libsvm *.svm *.txt *.t *.scale);;All files (*)");
    DataSourceInfo svm{
        QStringLiteral("libsvm"),
        QStringLiteral("LIBSVM file"),
        QStringLiteral("Sparse \"label index:value …\" rows (LIBSVM / SVMlight format), made dense."),
        {},
        {},
        {}};
    svm.params
        << path(QStringLiteral("file"), QStringLiteral("File"), true, svmFilter,
                QStringLiteral("The data file."))
        << required(choice(QStringLiteral("task"), QStringLiteral("Task"), tasks, tasks,
                           QJsonValue(QJsonValue::Undefined),
                           QStringLiteral("Classification: labels are class names; regression: the target.")))
        << absent(integer(QStringLiteral("features"), QStringLiteral("Features"), 1, 1e9,
                          QJsonValue(QJsonValue::Undefined),
                          QStringLiteral("Input width; absent: the largest index of the training file.")),
                  QStringLiteral("from the file"))
        << path(QStringLiteral("test_file"), QStringLiteral("Test file"), false, svmFilter,
                QStringLiteral("A separate test set."))
        << testFraction << common(true);
    out << svm;

    for (DataSourceInfo& s : out)
        for (DataParam& p : s.params)
            p = finished(p);
    return out;
}

} // namespace

QString DataParam::rangeText() const
{
    switch (kind) {
    case Kind::Int:
        if (std::isfinite(maximum) && maximum < 1e9)
            return QStringLiteral("%1 to %2").arg(num(minimum), num(maximum));
        return std::isfinite(minimum) ? QStringLiteral("≥ %1").arg(num(minimum)) : QString();
    case Kind::Real:
        if (std::isfinite(minimum) && std::isfinite(maximum))
            return exclusiveMinimum && exclusiveMaximum
                       ? QStringLiteral("between %1 and %2 (exclusive)").arg(num(minimum), num(maximum))
                       : QStringLiteral("%1 to %2").arg(num(minimum), num(maximum));
        if (std::isfinite(minimum))
            return QStringLiteral("%1 %2").arg(exclusiveMinimum ? QStringLiteral(">") : QStringLiteral("≥"),
                                               num(minimum));
        return {};
    default:
        return {};
    }
}

QString DataParam::check(const QJsonValue& v) const
{
    const QString got = QStringLiteral(", got %1").arg(shown(v));
    switch (kind) {
    case Kind::Int: {
        if (!integral(v) || v.toDouble() < minimum || v.toDouble() > maximum)
            return QStringLiteral("expected an integer %1").arg(rangeText()) + got;
        return {};
    }
    case Kind::Real: {
        const double d = v.toDouble();
        const bool ok = v.isDouble() && std::isfinite(d) && (exclusiveMinimum ? d > minimum : d >= minimum) &&
                        (exclusiveMaximum ? d < maximum : d <= maximum);
        if (!ok)
            return QStringLiteral("expected a number %1").arg(rangeText()) + got;
        return {};
    }
    case Kind::Bool:
        return v.isBool() ? QString() : QStringLiteral("expected true or false") + got;
    case Kind::Choice:
        if (!v.isString() || !choices.contains(v.toString())) {
            QStringList q;
            for (const QString& c : choices)
                q << detail::quoted(c);
            return QStringLiteral("expected one of %1").arg(q.join(QStringLiteral(", "))) + got;
        }
        return {};
    case Kind::Path:
    case Kind::Folder:
        if (!v.isString() || v.toString().trimmed().isEmpty() || v.toString().contains(QChar(0)))
            return QStringLiteral("expected a %1 path (a non-empty string)")
                       .arg(kind == Kind::Folder ? QStringLiteral("folder") : QStringLiteral("file")) +
                   got;
        return {};
    case Kind::Columns: {
        auto one = [](const QJsonValue& e) {
            return (e.isString() && !e.toString().isEmpty()) || integral(e);
        };
        bool ok = one(v);
        if (v.isArray()) {
            const QJsonArray a = v.toArray();
            ok = !a.isEmpty();
            for (qsizetype i = 0; ok && i < a.size(); ++i) {
                ok = one(a[i]);
                for (qsizetype j = 0; ok && j < i; ++j)
                    ok = a[j] != a[i];
            }
        }
        if (!ok)
            return QStringLiteral(
                       "expected a column name, a 0-based column index, or a list of distinct ones") +
                   got;
        return {};
    }
    case Kind::Seed: {
        bool ok = integral(v) && v.toDouble() >= 0;
        if (v.isString()) {
            const QString s = v.toString();
            ok = !s.isEmpty() && s.size() <= 20;
            for (QChar c : s)
                ok = ok && c.isDigit() && c.unicode() < 128;
            if (ok)
                s.toULongLong(&ok);
        }
        if (!ok)
            return QStringLiteral("expected a non-negative integer (or a string of decimal digits)") + got;
        return {};
    }
    }
    return {};
}

const DataParam* DataSourceInfo::param(const QString& key) const
{
    for (const DataParam& p : params)
        if (p.key == key)
            return &p;
    return nullptr;
}

const QList<DataSourceInfo>& DataSourceSchema::sources()
{
    static const QList<DataSourceInfo> all = build();
    return all;
}

const DataSourceInfo* DataSourceSchema::source(const QString& id)
{
    for (const DataSourceInfo& s : sources())
        if (s.id == id)
            return &s;
    return nullptr;
}

QStringList DataSourceSchema::ids()
{
    QStringList out;
    for (const DataSourceInfo& s : sources())
        out << s.id;
    return out;
}

QString DataSourceSchema::kindName(DataParam::Kind kind)
{
    switch (kind) {
    case DataParam::Kind::Int:
        return QStringLiteral("int");
    case DataParam::Kind::Real:
        return QStringLiteral("real");
    case DataParam::Kind::Bool:
        return QStringLiteral("bool");
    case DataParam::Kind::Choice:
        return QStringLiteral("choice");
    case DataParam::Kind::Path:
        return QStringLiteral("path");
    case DataParam::Kind::Folder:
        return QStringLiteral("folder");
    case DataParam::Kind::Columns:
        return QStringLiteral("columns");
    case DataParam::Kind::Seed:
        return QStringLiteral("seed");
    }
    return QStringLiteral("?");
}

QJsonValue DataSourceSchema::toJson()
{
    QJsonArray out;
    for (const DataSourceInfo& s : sources()) {
        QJsonArray params;
        for (const DataParam& p : s.params) {
            QJsonObject o{{"key", p.key}, {"label", p.label}, {"type", kindName(p.kind)}, {"help", p.help}};
            if (p.required)
                o.insert("required", true);
            if (!p.requiredUnless.isEmpty())
                o.insert("required_unless", p.requiredUnless);
            if (!p.defaultValue.isUndefined())
                o.insert("default", p.defaultValue);
            if (std::isfinite(p.minimum))
                o.insert("min", p.minimum);
            if (std::isfinite(p.maximum))
                o.insert("max", p.maximum);
            if (p.exclusiveMinimum || p.exclusiveMaximum)
                o.insert("exclusive", true);
            if (!p.choices.isEmpty())
                o.insert("choices", QJsonArray::fromStringList(p.choices));
            params.append(o);
        }
        QJsonObject o{
            {"source", s.id}, {"label", s.label}, {"description", s.description}, {"params", params}};
        if (!s.task.isEmpty())
            o.insert("task", s.task);
        if (!s.noiseKey.isEmpty())
            o.insert("noise_key", s.noiseKey);
        out.append(o);
    }
    return out;
}

} // namespace tb::data
