// The gaussian_blobs data source: shapes and classes as declared, blobs where their centres are,
// the noise level a sweep sets, seeded, and its errors naming the key.

#include <data/DataError.h>
#include <data/DataSource.h>
#include <data/DataSourceRegistry.h>

#include <QJsonObject>
#include <QtTest>

using namespace tb::data;

class TestGaussianBlobsSource : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void isRegisteredWithItsSchema()
    {
        const DataSourceEntry* e = DataSourceRegistry::find("gaussian_blobs");
        QVERIFY(e);
        QCOMPARE(e->info.noiseKey, QStringLiteral("cluster_std"));
        QVERIFY(e->schema.find("centers") && e->schema.find("keep_classes") && e->schema.find("test_fraction"));
        QVERIFY(DataSource::hasNoiseLevel({{"source", "gaussian_blobs"}}));
    }

    void shapesClassesAndSplit()
    {
        const DatasetPair p = DataSource::load(
            {{"source", "gaussian_blobs"}, {"samples", 600}, {"centers", 4}, {"features", 5}, {"test_fraction", 0.25}}, {});
        QCOMPARE(p.train.rows() + p.test.rows(), Eigen::Index(600));
        QCOMPARE(p.test.rows(), Eigen::Index(150));
        QCOMPARE(p.train.inputs(), Eigen::Index(5));
        QCOMPARE(p.train.outputs(), Eigen::Index(4));
        QCOMPARE(p.train.classNames.size(), 4);
        // 150 rows per blob in all: every class in both sets.
        for (Eigen::Index c : p.train.classCounts())
            QVERIFY(c > 80);
        QCOMPARE(DataSource::describe({{"source", "gaussian_blobs"}, {"samples", 600}, {"centers", 4}, {"features", 5}}),
                 QStringLiteral("Gaussian blobs, 600 samples × 5 features, 4 blobs, σ 1, 30% test"));
    }

    void blobsAreWhereTheirCentresAre()
    {
        // With σ = 0.01 and centres drawn from [−10, 10]², each class mean lies within 0.01 of every
        // point of the class: the points are the centres plus noise, nothing else.
        const DatasetPair p = DataSource::load({{"source", "gaussian_blobs"}, {"samples", 300}, {"cluster_std", 0.01}}, {});
        const Dataset& t = p.train;
        for (int c = 0; c < 3; ++c) {
            Eigen::RowVectorXd mean = Eigen::RowVectorXd::Zero(2);
            int n = 0;
            for (Eigen::Index i = 0; i < t.rows(); ++i)
                if (t.labels[size_t(i)] == c) {
                    mean += t.x.row(i);
                    ++n;
                }
            mean /= n;
            for (Eigen::Index i = 0; i < t.rows(); ++i)
                if (t.labels[size_t(i)] == c)
                    QVERIFY2((t.x.row(i) - mean).norm() < 0.06, "a point far from its blob"); // 6σ in 2-D
            QVERIFY(mean.cwiseAbs().maxCoeff() <= 10.0);
        }
    }

    void noiseSweepAndSeed()
    {
        const QJsonObject spec{{"source", "gaussian_blobs"}, {"samples", 200}, {"seed", 5}};
        const DatasetPair a = DataSource::load(spec, {});
        const DatasetPair b = DataSource::load(spec, {});
        QCOMPARE(a.train.x, b.train.x);
        QJsonObject other = spec;
        other.insert("seed", 6);
        QVERIFY(DataSource::load(other, {}).train.x != a.train.x);
        // A noise sweep's σ replaces cluster_std: more spread around the same centres.
        const DatasetPair tight = DataSource::load(spec, {}, DataOverrides{0.1, std::nullopt});
        const DatasetPair wide = DataSource::load(spec, {}, DataOverrides{3.0, std::nullopt});
        QCOMPARE(tight.train.labels, wide.train.labels);
        auto spread = [](const Dataset& d) {
            double s = 0;
            for (Eigen::Index i = 1; i < d.rows(); ++i)
                if (d.labels[size_t(i)] == d.labels[0])
                    s += (d.x.row(i) - d.x.row(0)).norm();
            return s;
        };
        QVERIFY(spread(wide.train) > 5 * spread(tight.train));
    }

    void badInputNamesTheKey()
    {
        const DataError few = [] {
            try {
                DataSource::load({{"source", "gaussian_blobs"}, {"samples", 3}, {"centers", 5}}, {});
            } catch (const DataError& e) {
                return e;
            }
            return DataError({}, -1, -1, {}, {}, "no error");
        }();
        QCOMPARE(few.key(), QStringLiteral("dataset.samples"));
        QVERIFY2(few.message().contains("cannot hold 5 blobs"), qPrintable(few.message()));
        QVERIFY(DataSource::validate({{"source", "gaussian_blobs"}, {"centers", 1}}).startsWith("dataset.centers: expected an integer 2 to 1000"));
        QVERIFY(DataSource::validate({{"source", "gaussian_blobs"}, {"cluster_std", -1}}).startsWith("dataset.cluster_std: expected a number ≥ 0"));
    }
};

QTEST_APPLESS_MAIN(TestGaussianBlobsSource)
#include "tst_gaussianblobssource.moc"
