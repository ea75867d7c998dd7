// The feature generator GEN (FeatureMap), shared by the lsq plugin and the data sets'
// random_features option: the PCA basis is orthonormal and ordered by variance, features() is
// project() then block 0, the bandwidth is the median trick's, the fit depends on the seed only
// through the sample and the blocks, bad settings name the caller's key, and Stop is honoured.
#include <training/FeatureMap.h>

#include <trainbench/Seeds.h>

#include <QtTest>
#include <random>
#include <tbb/task_arena.h>
#include <RandomMatrix.h>

using namespace tb::train;

namespace {

// The shared seeded N(0, 1) matrix (the same values the local copy drew).
Eigen::MatrixXd gaussian(Eigen::Index r, Eigen::Index c, std::uint64_t seed)
{
    return tb::testsupport::randomMatrix(r, c, seed);
}

// Columns with standard deviations 5, 3, 1, 0.5, 0.1 (so the principal directions are the axes).
Eigen::MatrixXd scaled(Eigen::Index n, std::uint64_t seed)
{
    Eigen::MatrixXd x = gaussian(n, 5, seed);
    const double sd[] = {5, 3, 1, 0.5, 0.1};
    for (int j = 0; j < 5; ++j)
        x.col(j) *= sd[j];
    return x;
}

FeatureMapConfig config(FeatureKind kind, Eigen::Index count, Eigen::Index pca)
{
    FeatureMapConfig c;
    c.raw = false;
    c.kind = kind;
    c.count = count;
    c.pca = pca;
    return c;
}

} // namespace

class TestFeatureMap : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pcaBasisIsOrthonormalAndOrderedByVariance()
    {
        const Eigen::MatrixXd x = scaled(4000, 1);
        FeatureMap map;
        Eigen::MatrixXd z;
        FeatureMapFit info;
        FeatureMapConfig c = config(FeatureKind::GaussianCos, 10, 3);
        c.pcaCenter = true;
        QVERIFY(map.fit(x, c, 7, {}, {}, &info, z));
        QVERIFY(map.projects());
        QCOMPARE(map.projectedInputs(), Eigen::Index(3));
        QCOMPARE(z.cols(), Eigen::Index(3));
        // The projected columns are uncorrelated with variances ≈ 25, 9, 1 (4000 rows: the sample
        // variances are within a few percent; 10 % bounds them), i.e. the axes in that order.
        const Eigen::MatrixXd centred = z.rowwise() - z.colwise().mean();
        const Eigen::MatrixXd cov = centred.transpose() * centred / double(z.rows());
        QVERIFY(std::abs(cov(0, 0) / 25.0 - 1.0) < 0.1);
        QVERIFY(std::abs(cov(1, 1) / 9.0 - 1.0) < 0.1);
        QVERIFY(std::abs(cov(2, 2) - 1.0) < 0.1);
        QVERIFY(std::abs(cov(0, 1)) < 1e-8 * cov(0, 0)); // principal components: exactly uncorrelated
        QCOMPARE(info.pcaDimensions, Eigen::Index(3));
        QVERIFY(info.varianceKept > 0.97 && info.varianceKept < 1.0); // (25+9+1)/(35.26)
        // Centred: the projected training mean is 0 (to rounding).
        QVERIFY(z.colwise().mean().norm() < 1e-10 * z.norm());
    }

    void featuresAreProjectionThenBlockZero()
    {
        const Eigen::MatrixXd x = scaled(700, 2), test = scaled(300, 3);
        FeatureMap map;
        Eigen::MatrixXd zTrain;
        FeatureMapFit info;
        QVERIFY(map.fit(x, config(FeatureKind::GaussianCos, 32, 4), 11, {}, {}, &info, zTrain));
        Eigen::MatrixXd z, expected, got;
        QVERIFY(map.project(test, z));
        map.block(0, 32).transform(z, expected);
        QVERIFY(map.features(test, got));
        QVERIFY(got == expected);
        QCOMPARE(map.outputs(), Eigen::Index(32));
        // The bandwidth is the multiple (1) of the median distance between projected rows.
        QVERIFY(info.hasMedian && info.hasBandwidth);
        QCOMPARE(info.bandwidth, info.medianDistance);
        QCOMPARE(map.bandwidth(), medianDistance(zTrain, 2000, tb::deriveSeed(11, FeatureMap::kMedianStream)));
        // Raw (no generator): features() is the projection itself.
        FeatureMap raw;
        FeatureMapConfig rc;
        rc.pca = 2;
        Eigen::MatrixXd zr, fr, pr;
        QVERIFY(raw.fit(x, rc, 11, {}, {}, nullptr, zr));
        QVERIFY(raw.features(test, fr));
        QVERIFY(raw.project(test, pr));
        QVERIFY(fr == pr);
        QCOMPARE(raw.outputs(), Eigen::Index(2));
    }

    void sameBitsForAnyThreadCountOfTheFeatures()
    {
        // Without a PCA the fit has no parallel sum: one thread and two give the same features
        // (fixed row blocks). With a PCA, the Gram's parts follow the fit's thread count (bits
        // then agree to rounding); features of one fit are the same for any thread count.
        const Eigen::MatrixXd x = scaled(1500, 4);
        Eigen::MatrixXd a, b;
        for (int threads : {1, 2}) {
            tbb::task_arena(threads).execute([&] {
                FeatureMap map;
                Eigen::MatrixXd z;
                QVERIFY(map.fit(x, config(FeatureKind::LaplaceCos, 20, 0), 5, {}, {}, nullptr, z));
                QVERIFY(map.features(x, threads == 1 ? a : b));
            });
        }
        QVERIFY(a == b);
        FeatureMap pca;
        Eigen::MatrixXd z, one, two;
        tbb::task_arena(2).execute([&] { QVERIFY(pca.fit(x, config(FeatureKind::LaplaceCos, 20, 3), 5, {}, {}, nullptr, z)); });
        tbb::task_arena(1).execute([&] { QVERIFY(pca.features(x, one)); });
        tbb::task_arena(2).execute([&] { QVERIFY(pca.features(x, two)); });
        QVERIFY(one == two);
    }

    void badSettingsNameTheCallersKey()
    {
        const Eigen::MatrixXd x = scaled(50, 5);
        FeatureMap map;
        Eigen::MatrixXd z;
        FeatureMapKeys keys;
        keys.pca = "rf_pca";
        keys.count = "rf_count";
        keys.bandwidthRule = "rf_bandwidth_rule";
        keys.name = [](const std::string& key) { return "dataset." + key; };
        auto message = [&](const FeatureMapConfig& c, const FeatureMapKeys& k, std::string* key) -> std::string {
            try {
                map.fit(x, c, 1, k, {}, nullptr, z);
            } catch (const FeatureMapError& e) {
                *key = e.key();
                return e.what();
            }
            return {};
        };
        std::string key;
        std::string m = message(config(FeatureKind::GaussianCos, 10, 6), keys, &key);
        QCOMPARE(key, std::string("rf_pca"));
        QVERIFY2(m.find("dataset.rf_pca asks for 6") == 0 && m.find("5 inputs") != std::string::npos, m.c_str());
        m = message(config(FeatureKind::GaussianCos, 10, 6), {}, &key); // the lsq plugin's spelling
        QVERIFY2(m.find("lsq: parameter \"pca\"") == 0, m.c_str());
        m = message(config(FeatureKind::RawSubset, 4, 3), keys, &key);
        QCOMPARE(key, std::string("rf_count"));
        QVERIFY2(m.find("dataset.rf_count (4) exceeds the 3 principal components") == 0, m.c_str());
        Eigen::MatrixXd same = Eigen::MatrixXd::Ones(30, 3);
        try {
            map.fit(same, config(FeatureKind::GaussianCos, 8, 0), 1, keys, {}, nullptr, z);
            QFAIL("a median distance of 0 was accepted");
        } catch (const FeatureMapError& e) {
            QCOMPARE(e.key(), std::string("rf_bandwidth_rule"));
        }
        // Non-finite rows: the median trick refuses them (std::invalid_argument).
        Eigen::MatrixXd nan = scaled(30, 6);
        nan(3, 1) = std::numeric_limits<double>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, map.fit(nan, config(FeatureKind::GaussianCos, 8, 0), 1, keys, {},
                                                                nullptr, z));
        // Rows of another width are refused by project().
        QVERIFY(map.fit(x, config(FeatureKind::GaussianCos, 8, 2), 1, keys, {}, nullptr, z));
        Eigen::MatrixXd out;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, map.features(Eigen::MatrixXd::Zero(3, 4), out));
    }

    void stopIsHonoured()
    {
        // A stop requested before the fit: the PCA's Gram returns at once and fit() says so.
        const Eigen::MatrixXd x = scaled(3000, 7);
        tb::StopSource stop;
        stop.requestStop();
        FeatureMap map;
        Eigen::MatrixXd z;
        QVERIFY(!map.fit(x, config(FeatureKind::GaussianCos, 8, 3), 1, {}, stop.token(), nullptr, z));
    }
};

QTEST_GUILESS_MAIN(TestFeatureMap)
#include "tst_featuremap.moc"
