#include <data/DataError.h>
#include <data/DataSource.h>
#include <data/Generators.h>
#include <data/IdxLoader.h>

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <ExpectDataError.h>

using namespace tb::data;
using tb::testsupport::expectError;

namespace {

const QString fixtures = QStringLiteral(TB_FIXTURES_DIR "/data");

QJsonObject obj(const char* json)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(json), &err);
    if (err.error != QJsonParseError::NoError)
        qFatal("bad JSON in test: %s", qPrintable(err.errorString()));
    return doc.object();
}

/// The "dataset" object of an experiment file in the fixtures.
QJsonObject datasetOf(const QString& file)
{
    QFile f(fixtures + "/" + file);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(file));
    return QJsonDocument::fromJson(f.readAll()).object().value("dataset").toObject();
}

QByteArray be32(quint32 v)
{
    QByteArray b(4, '\0');
    qToBigEndian(v, b.data());
    return b;
}

void write(const QString& path, const QByteArray& data)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size())
        qFatal("cannot write %s", qPrintable(path));
}

} // namespace

class TestDataSource : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void badValueTypeNamesKeyAndValue()
    {
        const QJsonObject spec = datasetOf("spec_bad_type.json");
        QCOMPARE(DataSource::validate(spec), QString("dataset.samples: expected an integer ≥ 2, got \"abc\""));
        const auto e = expectError([&] { DataSource::load(spec, fixtures); });
        QCOMPARE(e.text(), QString("dataset.samples: expected an integer ≥ 2, got \"abc\""));
        QCOMPARE(e.key(), QString("dataset.samples"));
        QCOMPARE(e.value(), QString("\"abc\""));
    }

    void unknownKeyIsAnError()
    {
        const QJsonObject spec = datasetOf("spec_unknown_key.json");
        QCOMPARE(DataSource::validate(spec),
                 QString("dataset.nosie: unknown key for source \"moons\"; did you mean \"noise\"? (known: source, "
                         "samples, noise, test_fraction, validation_fraction, keep_classes, standardise, seed, random_features, rf_count, "
                         "rf_bandwidth_rule, rf_bandwidth, rf_median_sample, rf_pca, rf_pca_center, rf_seed)"));
        QCOMPARE(expectError([&] { DataSource::load(spec, fixtures); }).key(), QString("dataset.nosie"));
    }

    void validateCoversEveryKind_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        // Every source the process knows, in list order (a new source joins the list).
        QStringList known;
        for (const QString& id : DataSource::sources())
            known << QStringLiteral("\"%1\"").arg(id);
        QTest::newRow("no source") << R"({"samples": 3})"
                                   << QStringLiteral("dataset.source: missing; expected one of %1").arg(known.join(", "));
        QTest::newRow("unknown source") << R"({"source": "mnist8m"})"
                                        << QStringLiteral("dataset.source: expected one of %1, got \"mnist8m\"").arg(known.join(", "));
        QTest::newRow("missing function") << R"({"source": "bpls_toy"})"
                                          << "dataset.function: missing (required for source \"bpls_toy\")";
        QTest::newRow("bad function") << R"({"source": "bpls_toy", "function": "cubic"})"
                                      << "dataset.function: expected one of \"linear\", \"nonlinear\", got \"cubic\"";
        QTest::newRow("negative sigma") << R"({"source": "bpls_toy", "function": "linear", "sigma": -1})"
                                        << "dataset.sigma: expected a number ≥ 0, got -1";
        QTest::newRow("fractional samples") << R"({"source": "moons", "samples": 10.5})"
                                            << "dataset.samples: expected an integer ≥ 2, got 10.5";
        QTest::newRow("one sample") << R"({"source": "xor", "samples": 1})"
                                    << "dataset.samples: expected an integer ≥ 2, got 1";
        QTest::newRow("fraction 1") << R"({"source": "circles", "test_fraction": 1})"
                                    << "dataset.test_fraction: expected a number between 0 and 1 (exclusive), got 1";
        QTest::newRow("few features") << R"({"source": "friedman1", "features": 3})"
                                      << "dataset.features: expected an integer ≥ 5, got 3";
        QTest::newRow("standardise text") << R"({"source": "spirals", "standardise": "yes"})"
                                          << "dataset.standardise: expected true or false, got \"yes\"";
        QTest::newRow("negative seed") << R"({"source": "spirals", "seed": -3})"
                                       << "dataset.seed: expected a non-negative integer (or a string of decimal "
                                          "digits), got -3";
        QTest::newRow("csv both tests") << R"({"source": "csv", "file": "a.csv", "target": "y", "task": "regression", "test_file": "b.csv", "test_fraction": 0.2})"
                                        << "dataset.test_fraction: only used when test_file is not given";
        QTest::newRow("csv no test") << R"({"source": "csv", "file": "a.csv", "target": "y", "task": "regression"})"
                                     << "dataset.test_fraction: missing; give test_fraction or test_file";
        QTest::newRow("csv two class targets") << R"({"source": "csv", "file": "a.csv", "target": ["a", "b"], "task": "classification", "test_fraction": 0.2})"
                                               << "dataset.target: classification takes exactly one target column, got 2";
        QTest::newRow("target bool") << R"({"source": "csv", "file": "a.csv", "target": true, "task": "regression", "test_fraction": 0.2})"
                                     << "dataset.target: expected a column name, a 0-based column index, or a list of "
                                        "distinct ones, got true";
        QTest::newRow("target repeated") << R"({"source": "csv", "file": "a.csv", "target": [1, 1], "task": "regression", "test_fraction": 0.2})"
                                         << "dataset.target: expected a column name, a 0-based column index, or a list "
                                            "of distinct ones, got [1, 1]";
        QTest::newRow("target missing") << R"({"source": "csv", "file": "a.csv", "task": "regression", "test_fraction": 0.2})"
                                        << "dataset.target: missing; give target or target_file";
        QTest::newRow("bad delimiter") << R"({"source": "csv", "file": "a.csv", "target": 0, "delimiter": "::", "task": "regression", "test_fraction": 0.2})"
                                       << "dataset.delimiter: expected one of \",\", \";\", \"\\x09\", \"|\", "
                                          "\"whitespace\", got \"::\"";
        QTest::newRow("negative skip") << R"({"source": "csv", "file": "a.csv", "target": 0, "skip_rows": -1, "task": "regression", "test_fraction": 0.2})"
                                       << "dataset.skip_rows: expected an integer ≥ 0, got -1";
        QTest::newRow("test targets alone") << R"({"source": "csv", "file": "a.csv", "target_file": "t.csv", "task": "regression", "test_file": "b.csv"})"
                                            << "dataset.test_target_file: missing: with target_file, the test_file needs "
                                               "its targets in test_target_file";
        QTest::newRow("classification targets standardised") << R"({"source": "csv", "file": "a.csv", "target": "y", "task": "classification", "standardise_targets": true, "test_fraction": 0.2})"
                                                             << "dataset.standardise_targets: only used when task is "
                                                                "\"regression\"";
        QTest::newRow("not for moons") << R"({"source": "moons", "standardise_targets": true})"
                                       << "dataset.standardise_targets: unknown key for source \"moons\" (known: source, "
                                          "samples, noise, test_fraction, validation_fraction, keep_classes, standardise, seed, random_features, "
                                          "rf_count, rf_bandwidth_rule, rf_bandwidth, rf_median_sample, rf_pca, rf_pca_center, "
                                          "rf_seed)";
        QTest::newRow("bad task") << R"({"source": "libsvm", "file": "a", "task": "ranking", "test_fraction": 0.2})"
                                  << "dataset.task: expected one of \"classification\", \"regression\", got \"ranking\"";
        QTest::newRow("empty path") << R"({"source": "libsvm", "file": "", "task": "regression", "test_fraction": 0.2})"
                                    << "dataset.file: expected a file path (a non-empty string), got \"\"";
        QTest::newRow("idx classes") << R"({"source": "idx", "train_images": "a", "train_labels": "b", "test_images": "c", "test_labels": "d", "classes": 300})"
                                     << "dataset.classes: expected an integer 1 to 256, got 300";
        QTest::newRow("limit array") << R"({"source": "fashion_mnist", "train_limit": [1]})"
                                     << "dataset.train_limit: expected an integer ≥ 1, got [1]";
    }
    void validateCoversEveryKind()
    {
        QFETCH(QString, json);
        QFETCH(QString, message);
        QCOMPARE(DataSource::validate(obj(json.toUtf8().constData())), message);
    }

    void validSpecsValidate()
    {
        for (const char* j : {R"({"source": "bpls_toy", "function": "nonlinear", "sigma": 0.3})",
                              R"({"source": "moons", "samples": 400, "noise": 0.1, "test_fraction": 0.3})",
                              R"({"source": "friedman1", "samples": 100, "features": 5, "seed": "18446744073709551615"})",
                              R"({"source": "fashion_mnist", "train_limit": 100})",
                              R"({"source": "csv", "file": "a.csv", "target": ["y1", "y2"], "task": "regression", "test_fraction": 0.3, "standardise": true})"})
            QVERIFY2(DataSource::validate(obj(j)).isEmpty(), qPrintable(DataSource::validate(obj(j))));
    }

    void generatorsSplitAndSeeds()
    {
        const QJsonObject spec = obj(R"({"source": "moons", "samples": 400, "noise": 0.1, "test_fraction": 0.3})");
        const DatasetPair p = DataSource::load(spec, {});
        QCOMPARE(p.train.rows(), Eigen::Index(280));
        QCOMPARE(p.test.rows(), Eigen::Index(120));
        QCOMPARE(p.train.inputs(), Eigen::Index(2));
        QCOMPARE(p.test.outputs(), Eigen::Index(2));
        // No seed anywhere → seed 1; the override seed is the default; the spec's seed wins.
        QCOMPARE(DataSource::load(spec, {}, {std::nullopt, 1}).train.x, p.train.x);
        const DatasetPair o7 = DataSource::load(spec, {}, {std::nullopt, 7});
        QVERIFY(o7.train.x != p.train.x);
        QJsonObject seeded = spec;
        seeded["seed"] = 7;
        QCOMPARE(DataSource::load(seeded, {}, {std::nullopt, 99}).train.x, o7.train.x);
    }

    void toySigmaOverride()
    {
        const QJsonObject spec = obj(R"({"source": "bpls_toy", "function": "nonlinear", "sigma": 0.0})");
        const DatasetPair p = DataSource::load(spec, {}, {0.25, 42});
        const DatasetPair g = Generators::bplsToy(BplsToyFunction::Nonlinear, 0.25, 42);
        QCOMPARE(p.train.y, g.train.y);
        QCOMPARE(p.test.y, g.test.y);
        const auto e = expectError([&] { DataSource::load(spec, {}, {-1.0, 1}); });
        QVERIFY2(e.text().contains("sigma: expected a number ≥ 0"), e.what());
        QVERIFY(DataSource::hasNoiseLevel(spec));
        QCOMPARE(DataSource::task(spec), std::optional<tb::Task>(tb::Task::Regression));
    }

    void sigmaOverrideOnAFileIsAnError()
    {
        const QJsonObject spec = obj(R"({"source": "csv", "file": "iris_small.csv", "target": "species", "task": "classification", "test_fraction": 0.25})");
        QVERIFY(!DataSource::hasNoiseLevel(spec));
        const auto e = expectError([&] { DataSource::load(spec, fixtures, {0.1, 1}); });
        QVERIFY2(e.text().startsWith("dataset.source: \"csv\" has no noise level to sweep"), e.what());
    }

    void nonFiniteDataRejected()
    {
        // Valid keys, but noise 1e308 overflows the targets to ±inf.
        const QJsonObject spec = obj(R"({"source": "friedman1", "samples": 50, "noise": 1e308})");
        const auto e = expectError([&] { DataSource::load(spec, {}); });
        QVERIFY2(e.text().contains("y(") && e.text().contains("is not finite") &&
                     e.text().contains("generated train set (friedman1)"),
                 e.what());
    }

    void csvWithTestFileRelativeToBaseDir()
    {
        const QJsonObject spec = obj(R"({"source": "csv", "file": "iris_small.csv", "test_file": "iris_small_test_reordered.csv", "target": "species", "task": "classification"})");
        const DatasetPair p = DataSource::load(spec, fixtures);
        QCOMPARE(p.train.rows(), Eigen::Index(12));
        QCOMPARE(p.test.rows(), Eigen::Index(2));
        // The reordered test columns are put back in the training order, by name.
        QCOMPARE(p.test.featureNames, p.train.featureNames);
        QCOMPARE(p.test.x(1, 0), 7.6); // sepal_length
        QCOMPARE(p.test.x(1, 3), 2.1); // petal_width
        QCOMPARE(p.test.labels, (std::vector<int>{0, 2}));
        QCOMPARE(DataSource::describe(spec),
                 QString("CSV iris_small.csv → species (classification), test iris_small_test_reordered.csv"));
    }

    void csvDimensionMismatchNamesBothFiles()
    {
        const QJsonObject spec = datasetOf("spec_csv_dimension_mismatch.json");
        const auto e = expectError([&] { DataSource::load(spec, fixtures); });
        QCOMPARE(e.file(), fixtures + "/test_5features.csv");
        QCOMPARE(e.text(), fixtures + "/test_5features.csv:1: train and test features differ: train " + fixtures +
                               "/train_4features.csv has 4 feature columns, test has 5; not in train: f5");
    }

    void csvUnseenTestLabel()
    {
        const QJsonObject spec = obj(R"({"source": "csv", "file": "iris_small.csv", "test_file": "iris_unseen_label.csv", "target": "species", "task": "classification"})");
        const auto e = expectError([&] { DataSource::load(spec, fixtures); });
        QVERIFY2(e.text().startsWith(fixtures + "/iris_unseen_label.csv:3: column 'species': label \"iris-nova\""),
                 e.what());
    }

    void csvRealFileOptions()
    {
        // What public CSVs need: an id column ignored, text categories one-hot, '?' as missing
        // filled with the training mean — on the same split the host would make, so that no
        // test value reaches a training row — and each option said in the description.
        QTemporaryDir dir;
        QByteArray csv = "id,state,x,y\n";
        for (int i = 0; i < 20; ++i)
            csv += QStringLiteral("%1,%2,%3,%4\n")
                       .arg(i)
                       .arg(i % 3 == 0 ? "Texas" : "Ohio")
                       .arg(i % 7 == 3 ? QStringLiteral("?") : QString::number(i))
                       .arg(i * 2)
                       .toUtf8();
        write(dir.filePath("states.csv"), csv);
        const QJsonObject spec = obj(R"({"source": "csv", "file": "states.csv", "target": "y", "task": "regression", "test_fraction": 0.25, "seed": 4, "ignore": "id", "categorical": "auto", "missing": "fill_mean", "missing_values": ["?"]})");
        QCOMPARE(DataSource::validate(spec), QString());
        const DatasetPair p = DataSource::load(spec, dir.path());
        QCOMPARE(p.train.featureNames, QStringList({"state=Ohio", "state=Texas", "x"}));
        QCOMPARE(p.train.rows(), 15);
        QCOMPARE(p.test.rows(), 5);
        // The same rows as the host's split of the file without the option.
        QJsonObject plain = spec;
        plain.insert("missing", "drop");
        plain.insert("test_fraction", 0.25);
        double trainMean = 0;
        int count = 0;
        for (Eigen::Index i = 0; i < p.train.rows(); ++i)
            if (p.train.y(i, 0) / 2 != 3 && p.train.y(i, 0) / 2 != 10 && p.train.y(i, 0) / 2 != 17) {
                trainMean += p.train.x(i, 2);
                ++count;
            }
        trainMean /= count;
        for (Eigen::Index i = 0; i < p.train.rows(); ++i)
            if (int(p.train.y(i, 0) / 2) % 7 == 3)
                QCOMPARE(p.train.x(i, 2), trainMean);
        for (Eigen::Index i = 0; i < p.test.rows(); ++i)
            if (int(p.test.y(i, 0) / 2) % 7 == 3)
                QCOMPARE(p.test.x(i, 2), trainMean);
        QCOMPARE(DataSource::describe(spec),
                 QStringLiteral("CSV states.csv → y (regression), ignoring id, categorical: auto (one-hot), missing values "
                                "filled with the training mean (missing: ?), 25% test"));
        // Dropping instead: three rows fewer.
        const DatasetPair d = DataSource::load(plain, dir.path());
        QCOMPARE(d.train.rows() + d.test.rows(), 17);
        // Single quotes, and the options' errors name their key.
        write(dir.filePath("q.tsv"), "'a'\t'label'\n1\t'x y'\n2\t'z'\n3\t'x y'\n4\t'z'\n");
        const DatasetPair q = DataSource::load(QJsonObject{{"source", "csv"}, {"file", "q.tsv"}, {"delimiter", "\t"},
                                                           {"quote", "'"}, {"target", "label"}, {"task", "classification"},
                                                           {"test_fraction", 0.5}},
                                               dir.path());
        QCOMPARE(q.train.classNames, QStringList({"x y", "z"}));
        QVERIFY(DataSource::validate(QJsonObject{{"source", "csv"}, {"file", "q.tsv"}, {"target", "a"}, {"task", "regression"},
                                                 {"test_fraction", 0.5}, {"quote", "`"}})
                    .startsWith("dataset.quote:"));
        QVERIFY(DataSource::validate(obj(R"({"source": "csv", "file": "q.tsv", "target": "a", "task": "regression", "test_fraction": 0.5, "missing": "impute"})")).startsWith("dataset.missing:"));
        QVERIFY(DataSource::validate(obj(R"({"source": "csv", "file": "q.tsv", "target_file": "t.csv", "task": "regression", "test_fraction": 0.5, "missing": "drop"})")).startsWith("dataset.missing: \"drop\" cannot go with target_file"));
        const DataError e = expectError([&] {
            DataSource::load(obj(R"({"source": "csv", "file": "states.csv", "target": "y", "task": "regression", "test_fraction": 0.25, "ignore": "nope"})"), dir.path());
        });
        QVERIFY2(e.text().contains("ignored column 'nope' not found"), e.what());
    }

    void splitTestClassMissingFromTrain()
    {
        // One row of class "rare": whenever the split puts it in the test set, the test set
        // has a class the model never saw, which must be reported.
        QTemporaryDir dir;
        write(dir.filePath("rare.csv"), "a,label\n1,x\n2,x\n3,y\n4,y\n5,x\n6,rare\n7,y\n8,x\n");
        int failures = 0, successes = 0;
        for (int seed = 1; seed <= 12; ++seed) {
            QJsonObject spec = obj(R"({"source": "csv", "file": "rare.csv", "target": "label", "task": "classification", "test_fraction": 0.5})");
            spec["seed"] = seed;
            try {
                DataSource::load(spec, dir.path());
                ++successes;
            } catch (const DataError& e) {
                ++failures;
                QVERIFY2(e.text().contains("class \"rare\" occurs in 1 test row(s) but never in the training set") &&
                             e.text().contains(dir.filePath("rare.csv")),
                         e.what());
            }
        }
        QVERIFY(failures > 0 && successes > 0);
    }

    void libsvmWidthFromTrain()
    {
        const QJsonObject spec = obj(R"({"source": "libsvm", "file": "small.libsvm", "test_file": "wide_test.libsvm", "task": "classification"})");
        const auto e = expectError([&] { DataSource::load(spec, fixtures); });
        QVERIFY2(e.text().startsWith(fixtures + "/wide_test.libsvm:2: bad token \"6:2\": index 6 exceeds the 4 "
                                                "features expected (the training file " +
                                     fixtures + "/small.libsvm has 4 features; set dataset.features"),
                 e.what());
        QJsonObject wide = spec;
        wide["features"] = 6;
        const DatasetPair p = DataSource::load(wide, fixtures);
        QCOMPARE(p.train.inputs(), Eigen::Index(6));
        QCOMPARE(p.test.x(1, 5), 2.0);
    }

    void idxSourceLimitsAndShapeMismatch()
    {
        QTemporaryDir dir;
        auto images = [](quint32 n, quint32 r, quint32 c) {
            QByteArray px(int(n * r * c), '\0');
            for (int i = 0; i < px.size(); ++i)
                px[i] = char(i * 37);
            return be32(IdxLoader::imagesMagic) + be32(n) + be32(r) + be32(c) + px;
        };
        auto labels = [](quint32 n) {
            QByteArray l(int(n), '\0');
            for (int i = 0; i < l.size(); ++i)
                l[i] = char(i % 4);
            return be32(IdxLoader::labelsMagic) + be32(n) + l;
        };
        write(dir.filePath("tr-img"), images(40, 2, 3));
        write(dir.filePath("tr-lab"), labels(40));
        write(dir.filePath("te-img"), images(8, 2, 3));
        write(dir.filePath("te-lab"), labels(8));
        write(dir.filePath("te-img-wide"), images(8, 3, 3));
        QJsonObject spec = obj(R"({"source": "idx", "train_images": "tr-img", "train_labels": "tr-lab", "test_images": "te-img", "test_labels": "te-lab", "classes": 4, "train_limit": 20})");
        const DatasetPair p = DataSource::load(spec, dir.path());
        QCOMPARE(p.train.rows(), Eigen::Index(20));
        QCOMPARE(p.test.rows(), Eigen::Index(8));
        QCOMPARE(p.train.outputs(), Eigen::Index(4));
        QCOMPARE(DataSource::load(spec, dir.path()).train.x, p.train.x);

        spec["train_limit"] = 41;
        const auto l = expectError([&] { DataSource::load(spec, dir.path()); });
        QCOMPARE(l.key(), QString("dataset.train_limit"));
        QVERIFY2(l.text().startsWith(dir.filePath("tr-img") + ": dataset.train_limit: limit 41 outside 1..40"),
                 l.what());

        spec.remove("train_limit");
        spec["test_images"] = "te-img-wide";
        const auto e = expectError([&] { DataSource::load(spec, dir.path()); });
        QCOMPARE(e.text(), dir.filePath("te-img-wide") + ": train and test shapes differ: train " +
                               dir.filePath("tr-img") + " is 40×6 → 4 (rows×features → outputs), test " +
                               dir.filePath("te-img-wide") + " is 8×9 → 4");
    }

    void keepClassesMakesABinaryPair()
    {
        // 40 training and 8 test images with labels i % 4: keeping [3, 1] leaves 20 and 4 rows,
        // class 3 becoming 0 and class 1 becoming 1 (the order given), as the Fashion-MNIST
        // T-shirt-against-Shirt pair of the doubly stochastic gradients' benchmark does.
        QTemporaryDir dir;
        auto images = [](quint32 n) {
            QByteArray px(int(n * 6), '\0');
            for (int i = 0; i < px.size(); ++i)
                px[i] = char(i * 37);
            return be32(IdxLoader::imagesMagic) + be32(n) + be32(2) + be32(3) + px;
        };
        auto labels = [](quint32 n) {
            QByteArray l(int(n), '\0');
            for (int i = 0; i < l.size(); ++i)
                l[i] = char(i % 4);
            return be32(IdxLoader::labelsMagic) + be32(n) + l;
        };
        write(dir.filePath("tr-img"), images(40));
        write(dir.filePath("tr-lab"), labels(40));
        write(dir.filePath("te-img"), images(8));
        write(dir.filePath("te-lab"), labels(8));
        QJsonObject spec = obj(R"({"source": "idx", "train_images": "tr-img", "train_labels": "tr-lab", "test_images": "te-img", "test_labels": "te-lab", "classes": 4, "keep_classes": [3, 1]})");
        const DatasetPair all = DataSource::load(QJsonObject{{"source", "idx"}, {"train_images", "tr-img"}, {"train_labels", "tr-lab"}, {"test_images", "te-img"}, {"test_labels", "te-lab"}, {"classes", 4}}, dir.path());
        const DatasetPair p = DataSource::load(spec, dir.path());
        QCOMPARE(p.train.rows(), Eigen::Index(20));
        QCOMPARE(p.test.rows(), Eigen::Index(4));
        QCOMPARE(p.train.outputs(), Eigen::Index(2));
        QCOMPARE(p.train.classNames, (QStringList{all.train.classNames[3], all.train.classNames[1]}));
        QCOMPARE(p.train.labels[0], 1);  // image 1 (class 1) comes first in data order
        QCOMPARE(p.train.labels[1], 0);  // image 3 (class 3)
        QCOMPARE(p.train.x.row(1), all.train.x.row(3));

        spec["keep_classes"] = QJsonArray{all.train.classNames[2], 0};  // names work too
        QCOMPARE(DataSource::load(spec, dir.path()).train.classNames, (QStringList{all.train.classNames[2], all.train.classNames[0]}));

        spec["keep_classes"] = QJsonArray{1, 9};
        const auto e = expectError([&] { DataSource::load(spec, dir.path()); });
        QCOMPARE(e.key(), QString("dataset.keep_classes"));
        QVERIFY2(e.text().contains("class 9 is not in [0, 4)"), e.what());
        spec["keep_classes"] = QJsonArray{"no such class", 1};
        QVERIFY2(expectError([&] { DataSource::load(spec, dir.path()); }).text().contains("no class is named \"no such class\""),
                 "a class name that does not exist");
        spec["keep_classes"] = 2;
        QVERIFY2(expectError([&] { DataSource::load(spec, dir.path()); }).text().contains("at least two"), "one class");
    }

    void standardiseFitsOnTrainOnly()
    {
        const QJsonObject spec = obj(R"({"source": "friedman1", "samples": 200, "features": 6, "noise": 0.5, "standardise": true, "seed": 3})");
        QJsonObject raw = spec;
        raw["standardise"] = false;
        const DatasetPair s = DataSource::load(spec, {});
        const DatasetPair r = DataSource::load(raw, {});
        // 1e-12: sums of 140 standardised values.
        QVERIFY((s.train.x.colwise().mean().array().abs() < 1e-12).all());
        const Eigen::RowVectorXd var = s.train.x.array().square().colwise().mean();
        QVERIFY(((var.array() - 1.0).abs() < 1e-12).all());
        // The test set is transformed with the training mean and std, not its own.
        const Eigen::RowVectorXd mean = r.train.x.colwise().mean();
        const double sd0 = std::sqrt((r.train.x.col(0).array() - mean(0)).square().mean());
        QVERIFY(std::abs(s.test.x(0, 0) - (r.test.x(0, 0) - mean(0)) / sd0) < 1e-12);
        QCOMPARE(s.train.y, r.train.y); // targets untouched
        QVERIFY(DataSource::describe(spec).endsWith(", standardised"));
    }

    void describeIsShortAndHuman()
    {
        QCOMPARE(DataSource::describe(obj(R"({"source": "bpls_toy", "function": "linear", "sigma": 0.1})")),
                 QString("BPLS toy, linear, σ = 0.1"));
        QCOMPARE(DataSource::describe(obj(R"({"source": "moons", "samples": 400, "noise": 0.1, "test_fraction": 0.3})")),
                 QString("moons, 400 samples, noise 0.1, 30% test"));
        QCOMPARE(DataSource::describe(obj(R"({"source": "fashion_mnist", "train_limit": 1000})")),
                 QString("Fashion-MNIST, train 1000"));
        QVERIFY(DataSource::describe(obj(R"({"source": 3})")).startsWith("invalid dataset: dataset.source"));
        QCOMPARE(DataSource::task(obj(R"({"source": "xor"})")), std::optional<tb::Task>(tb::Task::Classification));
        QCOMPARE(DataSource::task(obj(R"({"source": "xor", "bogus": 1})")), std::optional<tb::Task>());
    }

    void fashionMnistSubsets()
    {
        if (IdxLoader::fashionMnistDir().isEmpty())
            QSKIP("Fashion-MNIST not installed");
        const QJsonObject spec = obj(R"({"source": "fashion_mnist", "train_limit": 500, "test_limit": 200})");
        const DatasetPair p = DataSource::load(spec, {});
        QCOMPARE(p.train.rows(), Eigen::Index(500));
        QCOMPARE(p.test.rows(), Eigen::Index(200));
        QCOMPARE(p.train.inputs(), Eigen::Index(784));
        QCOMPARE(p.train.classNames, IdxLoader::fashionMnistClassNames());

        QTemporaryDir empty;
        QJsonObject wrongDir = spec;
        wrongDir["dir"] = empty.path();
        const auto e = expectError([&] { DataSource::load(wrongDir, {}); });
        QVERIFY2(e.text().startsWith(empty.path() + "/train-labels-idx1-ubyte: cannot open"), e.what());
    }

    void scikitLearnFilesLoadFromTheirSpecs_data()
    {
        // The experiment-file options that load each of scikit-learn's six raw files (docs/experiments.md).
        QTest::addColumn<QString>("json");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("inputs");
        QTest::addColumn<int>("outputs");
        QTest::newRow("iris") << R"({"source": "csv", "file": "sklearn/iris.csv", "skip_rows": 1, "header": false,
            "target": -1, "task": "classification", "test_fraction": 0.25})" << 12 << 4 << 3;
        QTest::newRow("wine") << R"({"source": "csv", "file": "sklearn/wine_data.csv", "skip_rows": 1, "header": false,
            "target": 13, "task": "classification", "test_fraction": 0.34})" << 9 << 13 << 3;
        QTest::newRow("breast cancer") << R"({"source": "csv", "file": "sklearn/breast_cancer.csv", "skip_rows": 1,
            "header": false, "target": -1, "task": "classification", "test_fraction": 0.34, "standardise": true})" << 6 << 30 << 2;
        QTest::newRow("digits") << R"({"source": "csv", "file": "sklearn/digits.csv.gz", "header": false, "target": 64,
            "task": "classification", "test_fraction": 0.1})" << 30 << 64 << 10;
        QTest::newRow("boston") << R"({"source": "csv", "file": "sklearn/boston_house_prices.csv", "skip_rows": 1,
            "target": "MEDV", "task": "regression", "test_fraction": 0.34})" << 6 << 13 << 1;
        QTest::newRow("diabetes") << R"({"source": "csv", "file": "sklearn/diabetes_data_raw.csv.gz", "delimiter": "whitespace",
            "header": false, "target_file": "sklearn/diabetes_target.csv.gz", "task": "regression", "test_fraction": 0.25,
            "standardise_targets": true})" << 8 << 10 << 1;
    }

    void scikitLearnFilesLoadFromTheirSpecs()
    {
        QFETCH(QString, json);
        QFETCH(int, rows);
        QFETCH(int, inputs);
        QFETCH(int, outputs);
        const QJsonObject spec = obj(json.toUtf8().constData());
        QVERIFY2(DataSource::validate(spec).isEmpty(), qPrintable(DataSource::validate(spec)));
        const DatasetPair p = DataSource::load(spec, fixtures);
        QCOMPARE(p.train.rows() + p.test.rows(), Eigen::Index(rows));
        QCOMPARE(p.train.inputs(), Eigen::Index(inputs));
        QCOMPARE(p.train.outputs(), Eigen::Index(outputs));
        QVERIFY(p.warnings.isEmpty());
        QVERIFY(!DataSource::describe(spec).startsWith("invalid"));
    }

    void targetStandardisationKeepsTheUnits()
    {
        const QJsonObject plain = obj(R"({"source": "csv", "file": "sklearn/boston_house_prices.csv", "skip_rows": 1,
            "target": "MEDV", "task": "regression", "test_fraction": 0.34, "seed": 5})");
        QJsonObject scaled = plain;
        scaled.insert("standardise_targets", true);
        const DatasetPair a = DataSource::load(plain, fixtures);
        const DatasetPair b = DataSource::load(scaled, fixtures);
        // Fitted on the training targets: mean 0 and (population) standard deviation 1 there.
        QVERIFY(std::abs(b.train.y.mean()) < 1e-12);
        QVERIFY(std::abs(std::sqrt(b.train.y.array().square().mean()) - 1.0) < 1e-12);
        QCOMPARE(b.test.targetScale, b.train.targetScale); // the test set is mapped with the training fit
        QCOMPARE(a.train.targetScale.size(), 0);
        // Back in the file's units, to rounding (a few ulps of values below 40).
        QVERIFY((b.train.targetsInOriginalUnits(b.train.y) - a.train.y).cwiseAbs().maxCoeff() < 1e-12);
        QVERIFY((b.test.targetsInOriginalUnits(b.test.y) - a.test.y).cwiseAbs().maxCoeff() < 1e-12);
        QCOMPARE(b.train.x, a.train.x); // inputs untouched: that is "standardise"
        QVERIFY(DataSource::describe(scaled).endsWith(", targets standardised"));
    }

    void mvIsThePapersSet()
    {
        // Palagi & Seccia's Mv: 40768 rows by default, 80/20 split, 12 inputs; the generator's
        // own test checks the definition, this one the wiring (defaults, seed, scaling).
        const QJsonObject spec = obj(R"({"source": "mv", "seed": 3})");
        QVERIFY2(DataSource::validate(spec).isEmpty(), qPrintable(DataSource::validate(spec)));
        const DatasetPair p = DataSource::load(spec, {});
        QCOMPARE(p.train.rows() + p.test.rows(), Eigen::Index(40768));
        QCOMPARE(p.test.rows(), Eigen::Index(8154)); // Table 1's test size: the split rounds like the paper's
        QCOMPARE(p.train.inputs(), Eigen::Index(12));
        QVERIFY(p.train.task == tb::Task::Regression);
        const DatasetPair again = DataSource::load(spec, {});
        QCOMPARE(again.train.x, p.train.x);
        QCOMPARE(again.test.y, p.test.y);
        QCOMPARE(DataSource::describe(spec), QStringLiteral("Mv, 40768 samples, 20% test"));
        QVERIFY(!DataSource::validate(obj(R"({"source": "mv", "noise": 1})")).isEmpty()); // Mv has no noise
    }

    void minMaxScalingKeepsTheUnits()
    {
        const QJsonObject plain = obj(R"({"source": "mv", "samples": 2000, "seed": 4})");
        QJsonObject scaled = plain;
        scaled.insert("min_max_scale", true);
        const DatasetPair a = DataSource::load(plain, {});
        const DatasetPair b = DataSource::load(scaled, {});
        // Every training column, the target included, spans exactly [0, 1] (up to rounding of
        // (x − min)/(max − min) at the maximum); the test set uses the training fit.
        for (const Eigen::MatrixXd* m : {&b.train.x, &b.train.y}) {
            QCOMPARE(m->colwise().minCoeff().maxCoeff(), 0.0);
            QVERIFY(std::abs(m->colwise().maxCoeff().minCoeff() - 1.0) < 1e-15);
        }
        QCOMPARE(b.test.targetScale, b.train.targetScale);
        // Predictions map back to the generator's units (a few ulps of values below 100).
        QVERIFY((b.train.targetsInOriginalUnits(b.train.y) - a.train.y).cwiseAbs().maxCoeff() < 1e-12);
        QVERIFY((b.test.targetsInOriginalUnits(b.test.y) - a.test.y).cwiseAbs().maxCoeff() < 1e-12);
        QVERIFY(DataSource::describe(scaled).endsWith(", min-max scaled"));
        // Not with standardisation, and not for a classification.
        scaled.insert("standardise", true);
        QVERIFY(DataSource::validate(scaled).contains("min_max_scale"));
        QVERIFY(DataSource::validate(obj(R"({"source": "moons", "min_max_scale": true})")).contains("min_max_scale"));
    }

    void suspiciousClassesAreWarnedAbout()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath("one.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x,label\n");
        for (int i = 0; i < 10; ++i)
            f.write(QByteArray::number(i) + ",same\n");
        f.close();
        const DatasetPair one = DataSource::load({{"source", "csv"}, {"file", f.fileName()}, {"target", "label"},
                                                  {"task", "classification"}, {"test_fraction", 0.3}}, {});
        QCOMPARE(one.warnings.size(), 1);
        QVERIFY2(one.warnings.first().contains("has only one class, \"same\""), qPrintable(one.warnings.first()));
        // A real-valued target read as classes: more classes than half the rows.
        QFile g(dir.filePath("real.csv"));
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write("x,price\n");
        for (int i = 0; i < 40; ++i)
            g.write(QByteArray::number(i) + "," + QByteArray::number(100.5 + 3.25 * i) + "\n");
        g.close();
        const DatasetPair many = DataSource::load({{"source", "csv"}, {"file", g.fileName()}, {"target", "price"},
                                                   {"task", "classification"}, {"test_file", g.fileName()}}, {});
        QCOMPARE(many.warnings.size(), 1);
        QVERIFY2(many.warnings.first().contains("has 40 classes for 40 rows: is the target a number to predict"),
                 qPrintable(many.warnings.first()));
        QVERIFY(DataSource::load(obj(R"({"source": "moons", "samples": 50})"), {}).warnings.isEmpty());
    }

    void generatedSetsAreBoundedByMemory()
    {
        qputenv("TRAINBENCH_MEMORY_LIMIT", "64M");
        const auto e = expectError([] { DataSource::load(obj(R"({"source": "friedman1", "samples": 1000000, "features": 100})"), {}); });
        qunsetenv("TRAINBENCH_MEMORY_LIMIT");
        QCOMPARE(e.key(), QString("dataset.samples"));
        QVERIFY2(e.text().startsWith("dataset.samples: generating 1000000 samples × 101 columns (and their train/test "
                                     "split) needs 1.51 GiB, but only 64.0 MiB is available"),
                 e.what());
        // Far beyond any machine: refused without trying, on any machine.
        const auto huge = expectError([] { DataSource::load(obj(R"({"source": "moons", "samples": 1000000000000})"), {}); });
        QVERIFY2(huge.text().contains("needs 58.2 TiB"), huge.what());
    }

    void fifoAsDataFileFailsAtOnce()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("data.csv");
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        const auto e = expectError([&] {
            DataSource::load({{"source", "csv"}, {"file", fifo}, {"target", "y"}, {"task", "regression"}, {"test_fraction", 0.3}}, {});
        });
        QVERIFY2(e.text().contains("is a FIFO (named pipe), not a regular file"), e.what());
    }

    void nulInASpecValueIsShown()
    {
        const QJsonObject spec{{"source", "moons"}, {"noise", QString(QStringLiteral("a") + QChar(0) + "b")}};
        const auto e = expectError([&] { DataSource::load(spec, {}); });
        QCOMPARE(QString::fromUtf8(e.what()), QString("dataset.noise: expected a number ≥ 0, got \"a\\x00b\""));
    }
};

QTEST_APPLESS_MAIN(TestDataSource)
#include "tst_datasource.moc"
