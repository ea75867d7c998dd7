// Random feature maps: each map's inner products approximate its kernel, features regenerate
// from the seed bit for bit (alone, in blocks, from a cached projection, on any thread count),
// the raw subset picks distinct columns, the median trick on a known set, and bad settings.
#include <training/RandomFeatures.h>

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <set>
#include <tbb/task_arena.h>

using namespace tb::train;

class TestRandomFeatures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void innerProductsApproximateTheKernel_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("gaussian_cos") << int(FeatureKind::GaussianCos);
        QTest::newRow("gaussian_cos_sin") << int(FeatureKind::GaussianCosSin);
        QTest::newRow("laplace_cos") << int(FeatureKind::LaplaceCos);
    }
    void innerProductsApproximateTheKernel()
    {
        QFETCH(int, kind);
        RandomFeatures f;
        f.kind = FeatureKind(kind);
        f.inputs = 3;
        f.count = 40000;
        f.bandwidth = 1.5;
        f.seed = 11;
        Eigen::MatrixXd x(4, 3);
        x << 0, 0, 0, 0.5, -0.3, 0.2, 1.0, 1.0, -1.0, 2.0, 0.0, 1.0;
        Eigen::MatrixXd z;
        QVERIFY(f.transform(x, z));
        const Eigen::MatrixXd k = z * z.transpose();
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
                const Eigen::RowVectorXd d = x.row(i) - x.row(j);
                const double exact = f.kind == FeatureKind::LaplaceCos ? std::exp(-d.cwiseAbs().sum() / f.bandwidth)
                                                                       : std::exp(-d.squaredNorm() / (2 * 2.25));
                // Each entry is a mean of p bounded terms (|2cos·cos| ≤ 2): its standard error is
                // ≤ √(2/p) ≈ 0.007 for p = 40000; 0.04 is over five of them.
                QVERIFY2(std::abs(k(i, j) - exact) < 0.04,
                         qPrintable(QString("k(%1,%2) = %3, kernel %4").arg(i).arg(j).arg(k(i, j)).arg(exact)));
            }
    }

    void featuresRegenerateFromTheSeed()
    {
        for (FeatureKind kind : {FeatureKind::GaussianCos, FeatureKind::GaussianCosSin, FeatureKind::LaplaceCos,
                                 FeatureKind::RandomLogit, FeatureKind::RawSubset}) {
            RandomFeatures f;
            f.kind = kind;
            f.inputs = 20;
            f.count = 16;
            f.bandwidth = 2.0;
            f.seed = 42;
            const Eigen::MatrixXd x = Eigen::MatrixXd::Random(1500, 20);  // three row blocks
            Eigen::MatrixXd all, part, cached, two;
            QVERIFY(f.transform(x, all));
            QCOMPARE(all.cols(), Eigen::Index(16));
            QVERIFY(all.allFinite());
            // Features 4…11 alone equal the same columns of the whole map.
            QVERIFY(f.transform(x, part, {}, 4, 8));
            QCOMPARE(part, Eigen::MatrixXd(all.middleCols(4, 8)));
            // From a cached projection, and on two threads: the same bits.
            Eigen::MatrixXd omega;
            Eigen::VectorXd offset;
            f.projection(0, 16, omega, offset);
            QVERIFY(f.apply(x, omega, offset, cached));
            QCOMPARE(cached, all);
            tbb::task_arena(2).execute([&] { QVERIFY(f.transform(x, two)); });
            QCOMPARE(two, all);
            // Another seed, other features.
            RandomFeatures g = f;
            g.seed = 43;
            Eigen::MatrixXd other;
            QVERIFY(g.transform(x, other));
            QVERIFY2(other != all, featureKindName(kind));
        }
    }

    void rawSubsetPicksDistinctColumns()
    {
        RandomFeatures f;
        f.kind = FeatureKind::RawSubset;
        f.inputs = 10;
        f.count = 10;
        f.seed = 3;
        const Eigen::MatrixXd x = Eigen::MatrixXd::Random(7, 10);
        Eigen::MatrixXd z;
        QVERIFY(f.transform(x, z));
        std::set<Eigen::Index> seen;
        for (Eigen::Index j = 0; j < 10; ++j)
            for (Eigen::Index c = 0; c < 10; ++c)
                if (z.col(j) == x.col(c))
                    seen.insert(c);
        QCOMPARE(int(seen.size()), 10);  // a permutation of the columns
    }

    void logitsAreProbabilities()
    {
        RandomFeatures f;
        f.kind = FeatureKind::RandomLogit;
        f.inputs = 5;
        f.count = 50;
        f.bandwidth = 0.5;
        const Eigen::MatrixXd x = 10 * Eigen::MatrixXd::Random(100, 5);
        Eigen::MatrixXd z;
        QVERIFY(f.transform(x, z));
        QVERIFY(z.minCoeff() >= 0 && z.maxCoeff() <= 1);
    }

    void stopInterrupts()
    {
        RandomFeatures f;
        f.inputs = 4;
        f.count = 8;
        tb::StopSource stop;
        stop.requestStop();
        Eigen::MatrixXd z;
        QVERIFY(!f.transform(Eigen::MatrixXd::Random(2000, 4), z, stop.token()));
    }

    void medianTrick()
    {
        // Points 0, 1, 2, 3 on a line: distances 1, 1, 1, 2, 2, 3; the upper median is 2.
        Eigen::MatrixXd x(4, 2);
        x << 0, 0, 1, 0, 2, 0, 3, 0;
        QCOMPARE(medianDistance(x, 100, 1), 2.0);
        // A sample of 2 rows of identical points: 0 (the caller must refuse it).
        QCOMPARE(medianDistance(Eigen::MatrixXd::Ones(10, 3), 5, 1), 0.0);
        // Seeded: the same sample, the same value.
        const Eigen::MatrixXd y = Eigen::MatrixXd::Random(500, 6);
        QCOMPARE(medianDistance(y, 50, 9), medianDistance(y, 50, 9));
        Eigen::MatrixXd bad = y;
        bad(3, 2) = std::nan("");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, medianDistance(bad, 50, 9));
    }

    void medianSampleIsSeededAndWithoutReplacement()
    {
        // The sampler both median tricks share (dense here, sparse in the dsgd plugin).
        const std::vector<Eigen::Index> rows = medianSampleRows(1000, 50, 9);
        QCOMPARE(rows.size(), std::size_t(50));
        QCOMPARE(std::set<Eigen::Index>(rows.begin(), rows.end()).size(), std::size_t(50));
        QVERIFY(std::all_of(rows.begin(), rows.end(), [](Eigen::Index r) { return r >= 0 && r < 1000; }));
        QVERIFY(rows == medianSampleRows(1000, 50, 9));
        QVERIFY(rows != medianSampleRows(1000, 50, 10));
        // Fewer rows than asked for: every row; at least 2 are asked for; one row: no sample.
        QCOMPARE(medianSampleRows(7, 50, 9).size(), std::size_t(7));
        QCOMPARE(medianSampleRows(7, 0, 9).size(), std::size_t(2));
        QVERIFY(medianSampleRows(1, 50, 9).empty());
        // The median of the distances from norms and products: points 0, 1, 2, 3 on a line.
        const Eigen::VectorXd norms = (Eigen::VectorXd(4) << 0, 1, 4, 9).finished();
        QCOMPARE(medianPairDistance(norms, [](Eigen::Index i, Eigen::Index j) { return double(i * j); }),
                 2.0);
    }

    void badSettingsAreNamed()
    {
        auto message = [](RandomFeatures f) {
            try {
                f.check();
            } catch (const std::invalid_argument& e) {
                return QString(e.what());
            }
            return QString();
        };
        RandomFeatures f;
        f.inputs = 3;
        f.count = 0;
        QVERIFY(message(f).contains("number of features"));
        f.count = 4;
        f.bandwidth = 0;
        QVERIFY(message(f).contains("bandwidth"));
        f.bandwidth = 1;
        f.kind = FeatureKind::GaussianCosSin;
        f.count = 5;
        QVERIFY(message(f).contains("even"));
        f.kind = FeatureKind::RawSubset;
        f.count = 4;
        QVERIFY(message(f).contains("inputs"));
        Eigen::MatrixXd z;
        f.count = 2;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f.transform(Eigen::MatrixXd::Zero(2, 5), z));  // 5 ≠ 3 inputs
    }
};

QTEST_GUILESS_MAIN(TestRandomFeatures)
#include "tst_randomfeatures.moc"
