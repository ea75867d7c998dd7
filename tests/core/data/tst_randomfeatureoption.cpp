// The data sets' random-features option (issue 16): the features are exactly FeatureMap's (the
// lsq plugin's generator; tst_lsq checks them against lsq.gls itself), fitted on the training
// rows only, and every bad value is refused naming its key.

#include <data/DataError.h>
#include <data/DataSource.h>
#include <data/DataSourceRegistry.h>
#include <data/RandomFeatureOption.h>

#include <training/FeatureMap.h>

#include <QJsonDocument>
#include <QtTest>
#include <tbb/task_arena.h>

#include <cmath>
#include <limits>
#include <ExpectDataError.h>

using namespace tb::data;
using tb::testsupport::expectError;

namespace {

/// @p spec as DataSource normalises it (what RandomFeatureOption reads).
QVariantMap norm(const QJsonObject& spec)
{
    QString error;
    const auto n = DataSource::normalised(spec, &error);
    if (!n)
        qFatal("%s", qPrintable(error));
    return *n;
}

QJsonObject obj(const char* json)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(json), &err);
    if (err.error != QJsonParseError::NoError)
        qFatal("bad JSON in test: %s", qPrintable(err.errorString()));
    return doc.object();
}

/// Bitwise equality (not a tolerance): the option must hand trainers lsq's very numbers.
bool sameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

} // namespace

class TestRandomFeatureOption : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void featuresAreFeatureMapsOfTheLoadedInputs_data()
    {
        QTest::addColumn<QByteArray>("base");
        QTest::addColumn<QByteArray>("features");
        QTest::newRow("moons, gaussian_cos") << QByteArray(R"({"source": "moons", "samples": 300, "seed": 4, "standardise": true)")
                                             << QByteArray(R"("random_features": "gaussian_cos", "rf_count": 64, "rf_seed": 11, "rf_bandwidth": 0.7)");
        QTest::newRow("friedman1, PCA 5, laplace") << QByteArray(R"({"source": "friedman1", "samples": 400, "seed": 2)")
                                                   << QByteArray(R"("random_features": "laplace_cos", "rf_count": 40, "rf_pca": 5, "rf_seed": 3)");
        QTest::newRow("friedman1, centred PCA, cos_sin fixed") << QByteArray(R"({"source": "friedman1", "samples": 300, "seed": 2)")
            << QByteArray(R"("random_features": "gaussian_cos_sin", "rf_count": 30, "rf_pca": 4, "rf_pca_center": true, "rf_bandwidth_rule": "fixed", "rf_bandwidth": 2.0, "rf_seed": 9)");
        QTest::newRow("circles, logit, data seed") << QByteArray(R"({"source": "circles", "samples": 200, "seed": 8)")
                                                   << QByteArray(R"("random_features": "random_logit", "rf_count": 16)");
        QTest::newRow("friedman1, raw_subset") << QByteArray(R"({"source": "friedman1", "samples": 200, "seed": 2)")
                                               << QByteArray(R"("random_features": "raw_subset", "rf_count": 6, "rf_seed": 5)");
    }
    void featuresAreFeatureMapsOfTheLoadedInputs()
    {
        QFETCH(QByteArray, base);
        QFETCH(QByteArray, features);
        const QJsonObject plainSpec = obj(base + "}");
        const QJsonObject spec = obj(base + ", " + features + "}");
        QVERIFY2(DataSource::validate(spec).isEmpty(), qPrintable(DataSource::validate(spec)));
        const DatasetPair plain = DataSource::load(plainSpec, {});
        const DatasetPair mapped = DataSource::load(spec, {});
        // The same map, fitted by hand on the training inputs with the feature seed (rf_seed,
        // else the data set's seed).
        tb::train::FeatureMap map;
        Eigen::MatrixXd projected, train, test;
        tbb::task_arena(RandomFeatureOption::kFitThreads).execute([&] {
            map.fit(plain.train.x, RandomFeatureOption::config(norm(spec)),
                    RandomFeatureOption::seed(norm(spec), spec.value("seed").toInt()), {}, {}, nullptr, projected);
        });
        QVERIFY(map.features(plain.train.x, train));
        QVERIFY(map.features(plain.test.x, test));
        QCOMPARE(mapped.train.inputs(), RandomFeatureOption::config(norm(spec)).count);
        QVERIFY(sameBits(mapped.train.x, train));
        QVERIFY(sameBits(mapped.test.x, test));
        QVERIFY(sameBits(mapped.train.y, plain.train.y)); // targets untouched
        QVERIFY(sameBits(mapped.test.y, plain.test.y));
        QVERIFY(mapped.train.featureNames.isEmpty());
        QVERIFY2(mapped.train.description.contains("features"), qPrintable(mapped.train.description));
        QVERIFY2(DataSource::describe(spec).contains(QString::number(RandomFeatureOption::config(norm(spec)).count) + " "),
                 qPrintable(DataSource::describe(spec)));
    }

    void sameFeaturesForAnyThreadCount()
    {
        // The PCA is fitted with a fixed number of threads, the features in fixed row blocks: the
        // spec alone fixes the bits, whatever arena loads the data.
        const QJsonObject spec = obj(R"({"source": "friedman1", "samples": 3000, "random_features": "gaussian_cos",
                                          "rf_count": 30, "rf_pca": 6, "rf_seed": 2})");
        DatasetPair a, b;
        tbb::task_arena(1).execute([&] { a = DataSource::load(spec, {}); });
        tbb::task_arena(2).execute([&] { b = DataSource::load(spec, {}); });
        QVERIFY(sameBits(a.train.x, b.train.x));
        QVERIFY(sameBits(a.test.x, b.test.x));
    }

    void theFeatureSeedChangesTheFeatures()
    {
        const DatasetPair a = DataSource::load(obj(R"({"source": "moons", "random_features": "gaussian_cos", "rf_count": 8, "rf_seed": 1})"), {});
        const DatasetPair b = DataSource::load(obj(R"({"source": "moons", "random_features": "gaussian_cos", "rf_count": 8, "rf_seed": 2})"), {});
        const DatasetPair c = DataSource::load(obj(R"({"source": "moons", "random_features": "gaussian_cos", "rf_count": 8, "rf_seed": 1})"), {});
        QVERIFY(!sameBits(a.train.x, b.train.x));
        QVERIFY(sameBits(a.train.x, c.train.x)); // reproducible from the spec alone
    }

    void theMapIsFittedOnTheTrainingRowsOnly()
    {
        // PCA and median trick on: both would move if the test rows took part in the fit.
        const QJsonObject spec = obj(R"({"source": "friedman1", "samples": 300, "random_features": "gaussian_cos",
                                          "rf_count": 20, "rf_pca": 4, "rf_pca_center": true, "rf_seed": 6})");
        DatasetPair a = DataSource::load(obj(R"({"source": "friedman1", "samples": 300})"), {});
        DatasetPair b = a;
        b.test.x.bottomRows(b.test.rows() - 1) *= 50.0; // every test row but the first, far away
        b.test.x.bottomRows(b.test.rows() - 1).array() += 3.0;
        RandomFeatureOption::apply(a, norm(spec), 1);
        RandomFeatureOption::apply(b, norm(spec), 1);
        QVERIFY(sameBits(a.train.x, b.train.x));
        QVERIFY(sameBits(a.test.x.topRows(1), b.test.x.topRows(1)));
        QVERIFY(!sameBits(a.test.x, b.test.x));
        // The training rows do move the map.
        DatasetPair c = DataSource::load(obj(R"({"source": "friedman1", "samples": 300})"), {});
        c.train.x.row(0) *= 10.0;
        RandomFeatureOption::apply(c, norm(spec), 1);
        QVERIFY(!sameBits(a.test.x.topRows(1), c.test.x.topRows(1)));
    }

    void badValuesAreRefusedNamingTheKey_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("says");
        QTest::newRow("count 0") << QByteArray(R"({"source": "moons", "random_features": "gaussian_cos", "rf_count": 0})")
                                 << "dataset.rf_count" << "1 to";
        QTest::newRow("count 1.5") << QByteArray(R"({"source": "moons", "random_features": "gaussian_cos", "rf_count": 1.5})")
                                   << "dataset.rf_count" << "integer";
        QTest::newRow("unknown kind") << QByteArray(R"({"source": "moons", "random_features": "gaussian"})")
                                      << "dataset.random_features" << "gaussian_cos";
        QTest::newRow("bandwidth 0") << QByteArray(R"({"source": "moons", "random_features": "gaussian_cos", "rf_bandwidth": 0})")
                                     << "dataset.rf_bandwidth" << "between 0";
        QTest::newRow("negative pca") << QByteArray(R"({"source": "moons", "random_features": "gaussian_cos", "rf_pca": -1})")
                                      << "dataset.rf_pca" << "0 to";
        QTest::newRow("odd cos_sin") << QByteArray(R"({"source": "moons", "random_features": "gaussian_cos_sin", "rf_count": 7})")
                                     << "dataset.rf_count" << "even";
        QTest::newRow("rf key without features") << QByteArray(R"({"source": "moons", "rf_count": 100})")
                                                 << "dataset.rf_count" << "random_features";
        QTest::newRow("rf key with none") << QByteArray(R"({"source": "moons", "random_features": "none", "rf_pca": 1})")
                                          << "dataset.rf_pca" << "random_features";
    }
    void badValuesAreRefusedNamingTheKey()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, key);
        QFETCH(QString, says);
        const QJsonObject spec = obj(json);
        const QString v = DataSource::validate(spec);
        QVERIFY2(v.startsWith(key + ":") && v.contains(says), qPrintable(v));
        const DataError e = expectError([&] { DataSource::load(spec, {}); });
        QCOMPARE(e.key(), key);
    }

    void dataTheMapCannotTakeAreRefusedAtLoad()
    {
        // More principal components than inputs (moons has 2).
        DataError e = expectError([] {
            DataSource::load(obj(R"({"source": "moons", "random_features": "gaussian_cos", "rf_pca": 3})"), {});
        });
        QCOMPARE(e.key(), QStringLiteral("dataset.rf_pca"));
        QCOMPARE(e.value(), QStringLiteral("3"));
        QVERIFY2(e.message().contains("dataset.rf_pca") && e.message().contains("2 inputs"), qPrintable(e.message()));
        // A raw subset larger than the projected inputs.
        e = expectError([] {
            DataSource::load(obj(R"({"source": "friedman1", "random_features": "raw_subset", "rf_pca": 3, "rf_count": 4})"), {});
        });
        QCOMPARE(e.key(), QStringLiteral("dataset.rf_count"));
        QVERIFY2(e.message().contains("dataset.rf_count (4) exceeds the 3 principal components"), qPrintable(e.message()));
    }

    void tooManyFeaturesForMemoryAreRefusedBeforeAllocating()
    {
        // 10⁷ features of 400 rows are 32 GB: refused under a 64 MiB cap, naming the key.
        qputenv("TRAINBENCH_MEMORY_LIMIT", "64M");
        const DataError e = expectError([] {
            DataSource::load(obj(R"({"source": "moons", "random_features": "gaussian_cos", "rf_count": 10000000})"), {});
        });
        qunsetenv("TRAINBENCH_MEMORY_LIMIT");
        QCOMPARE(e.key(), QStringLiteral("dataset.rf_count"));
        QVERIFY2(e.message().contains("10000000") && e.message().contains("TRAINBENCH_MEMORY_LIMIT"), qPrintable(e.message()));
    }

    void nonFiniteInputsAreRefused()
    {
        // DataSource::load refuses them earlier (naming the file); the option checks on its own
        // for callers that hand it a pair.
        DatasetPair p = DataSource::load(obj(R"({"source": "moons", "samples": 100})"), {});
        p.test.x(5, 1) = std::numeric_limits<double>::quiet_NaN();
        const DataError e = expectError([&] {
            RandomFeatureOption::apply(p, norm(obj(R"({"source": "moons", "random_features": "gaussian_cos"})")), 1);
        });
        QCOMPARE(e.key(), QStringLiteral("random_features"));
        QVERIFY2(e.message().contains("test") && e.message().contains("row 5") && e.message().contains("column 1"),
                 qPrintable(e.message()));
        // All training rows equal: the median distance is 0, the bandwidth rule is named.
        DatasetPair q = DataSource::load(obj(R"({"source": "moons", "samples": 100})"), {});
        q.train.x.setOnes();
        const DataError m = expectError([&] {
            RandomFeatureOption::apply(q, norm(obj(R"({"source": "moons", "random_features": "gaussian_cos"})")), 1);
        });
        QCOMPARE(m.key(), QStringLiteral("dataset.rf_bandwidth_rule"));
        QVERIFY2(m.message().contains("dataset.rf_bandwidth_rule = median") &&
                     m.message().contains("use rf_bandwidth_rule = fixed"),
                 qPrintable(m.message()));
    }

    void optionIsInEverySourcesSchema()
    {
        for (const DataSourceEntry* e : DataSourceRegistry::all()) {
            const tb::ParamSpec* kind = e->schema.find("random_features");
            QVERIFY2(kind, qPrintable(e->info.id));
            QCOMPARE(kind->type, tb::ParamType::Choice);
            QCOMPARE(kind->defaultValue.toString(), QStringLiteral("none"));
            QVERIFY(kind->choices.contains("gaussian_cos") && kind->choices.contains("raw_subset"));
            for (const char* key : {"rf_count", "rf_bandwidth_rule", "rf_bandwidth", "rf_median_sample", "rf_pca",
                                    "rf_pca_center", "rf_seed"})
                QVERIFY2(e->schema.find(key), key);
            QCOMPARE(e->schema.find("rf_count")->defaultValue.toInt(), 1000);
            QCOMPARE(e->schema.find("rf_seed")->type, tb::ParamType::Seed);
        }
        // An old spec without the option loads as before.
        const QJsonObject old = obj(R"({"source": "moons", "samples": 100, "seed": 3})");
        QVERIFY(!RandomFeatureOption::enabled(norm(old)));
        QCOMPARE(DataSource::load(old, {}).train.inputs(), Eigen::Index(2));
    }
};

QTEST_GUILESS_MAIN(TestRandomFeatureOption)
#include "tst_randomfeatureoption.moc"
