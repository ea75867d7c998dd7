// The kernel machine of regenerated random features: its sum against a direct one, exactness
// of the projection cache and of the remembered sums (the same bits), reproducibility over
// thread counts and threads, scaling, and Stop while predicting with 10⁵ features.
#include <dsgd/KernelExpansion.h>

#include <QtTest>
#include <chrono>
#include <future>
#include <random>
#include <tbb/task_arena.h>
#include <thread>
#include <RandomMatrix.h>
#include <StopMeter.h>

using namespace tb::dsgd;
using tb::train::FeatureKind;
using tb::train::RandomFeatures;
using tb::testsupport::randomMatrix;
using tb::testsupport::runAndStop;
using tb::testsupport::StopWhen;

namespace {

RandomFeatures mapOf(FeatureKind kind, Eigen::Index d, Eigen::Index count, bool normalise = false)
{
    RandomFeatures m;
    m.kind = kind;
    m.inputs = d;
    m.count = count;
    m.bandwidth = 1.7;
    m.seed = 99;
    m.normalise = normalise;
    return m;
}

// An expansion of @p features features with random coefficients, appended in blocks of @p block.
KernelExpansion expansion(const RandomFeatures& map, Eigen::Index features, Eigen::Index block, double cacheBytes)
{
    KernelExpansion e;
    e.reset(map, 3, cacheBytes);
    const Eigen::MatrixXd alpha = randomMatrix(features, 3, 7);
    for (Eigen::Index f = 0; f < features; f += block)
        e.append(alpha.middleRows(f, std::min(block, features - f)));
    return e;
}

bool sameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

Eigen::MatrixXd eval(const KernelExpansion& e, const Eigen::MatrixXd& x, bool memoise = false)
{
    Eigen::MatrixXd out;
    if (!e.evaluate(x, out, {}, memoise))
        qFatal("evaluate() stopped without a stop request");
    return out;
}

} // namespace

class TestKernelExpansion : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sumEqualsTheDirectExpansion_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("rows");
        QTest::newRow("gaussian, chunk path") << int(FeatureKind::GaussianCos) << 37;
        QTest::newRow("gaussian, row path") << int(FeatureKind::GaussianCos) << 1500;
        QTest::newRow("cos/sin, chunk path") << int(FeatureKind::GaussianCosSin) << 37;
        QTest::newRow("laplace, row path") << int(FeatureKind::LaplaceCos) << 1500;
    }
    void sumEqualsTheDirectExpansion()
    {
        QFETCH(int, kind);
        QFETCH(int, rows);
        const RandomFeatures map = mapOf(FeatureKind(kind), 5, 2000);
        const KernelExpansion e = expansion(map, 1300, 2, 0);  // 3 chunks, the last partial
        const Eigen::MatrixXd x = randomMatrix(rows, 5, 3);
        Eigen::MatrixXd phi;
        QVERIFY(map.transform(x, phi, {}, 0, 1300));
        const Eigen::MatrixXd direct = phi * e.coefficients();
        // Different summation orders of 1300 terms of size ~1: agreement to ~1e-12 relative.
        const double err = (eval(e, x) - direct).cwiseAbs().maxCoeff() / direct.cwiseAbs().maxCoeff();
        QVERIFY2(err < 1e-12, qPrintable(QString("relative error %1").arg(err)));
        // features() gives the map's features.
        Eigen::MatrixXd part;
        QVERIFY(e.features(x, 500, 300, part));
        QVERIFY(sameBits(part, phi.middleCols(500, 300)));
    }

    void cacheGivesTheSameBits_data()
    {
        QTest::addColumn<int>("rows");
        QTest::newRow("chunk path") << 100;
        QTest::newRow("row path, remembered sums") << 3000;
    }
    void cacheGivesTheSameBits()
    {
        QFETCH(int, rows);
        const RandomFeatures map = mapOf(FeatureKind::GaussianCosSin, 6, 4000);
        const Eigen::MatrixXd x = randomMatrix(rows, 6, 4);
        const KernelExpansion without = expansion(map, 1800, 6, 0);
        const KernelExpansion with = expansion(map, 1800, 6, 1e9);
        const KernelExpansion small = expansion(map, 1800, 6, KernelExpansion::chunkProjectionBytes(6, map.kind) * 1.5);
        const Eigen::MatrixXd ref = eval(without, x);
        QCOMPARE(with.cacheBytes(), 0.0);
        QVERIFY(sameBits(eval(with, x), ref));
        QVERIFY(with.cacheBytes() > 0);              // filled by the first evaluation …
        QVERIFY(sameBits(eval(with, x), ref));       // … and read by the second
        QVERIFY(sameBits(eval(small, x), ref));      // a cache of one chunk
        QCOMPARE(small.cacheBytes(), KernelExpansion::chunkProjectionBytes(6, map.kind));
        QCOMPARE(without.cacheBytes(), 0.0);
    }

    void rememberedSumsGiveTheSameBitsAsAFreshEvaluation()
    {
        // The model grows between evaluations of the same large input: the remembered sum of
        // its complete chunks is continued, and must equal a fresh evaluation bit for bit.
        const RandomFeatures map = mapOf(FeatureKind::GaussianCos, 4, 5000);
        const Eigen::MatrixXd x = randomMatrix(KernelExpansion::kMemoRows + 100, 4, 5);
        const Eigen::MatrixXd alpha = randomMatrix(5000, 3, 8);
        KernelExpansion grown;
        grown.reset(map, 3, 0);
        for (Eigen::Index f = 0; f < 2600; f += 100) {
            grown.append(alpha.middleRows(f, 100));
            if (f % 300 == 0)
                grown.scale(0.999);  // shrinking keeps the remembered α̃ valid
            KernelExpansion fresh;
            fresh.reset(map, 3, 0);
            fresh.append(grown.coefficients());
            const Eigen::MatrixXd a = eval(grown, x, true), b = eval(fresh, x);
            // fresh stores α̃ = α (s = 1), grown α̃ = α/s: compare through the relative error,
            // and the memoised against the non-memoised evaluation of the same machine exactly.
            QVERIFY(sameBits(a, eval(grown, x, false)));
            QVERIFY((a - b).cwiseAbs().maxCoeff() <= 1e-12 * b.cwiseAbs().maxCoeff());
        }
        QVERIFY(grown.memoBytes() > 0);
        // Another input of the same shape is not confused with the first.
        const Eigen::MatrixXd y = randomMatrix(x.rows(), 4, 6);
        QVERIFY(sameBits(eval(grown, y, true), eval(grown, y, false)));
    }

    void sameBitsForAnyThreadCount()
    {
        const RandomFeatures map = mapOf(FeatureKind::LaplaceCos, 3, 3000);
        const KernelExpansion e = expansion(map, 2100, 7, 0);
        for (const int rows : {50, 2500}) {
            const Eigen::MatrixXd x = randomMatrix(rows, 3, 9);
            Eigen::MatrixXd one, two;
            tbb::task_arena(1).execute([&] { one = eval(e, x); });
            tbb::task_arena(2).execute([&] { two = eval(e, x); });
            QVERIFY2(sameBits(one, two), qPrintable(QString("%1 rows").arg(rows)));
        }
    }

    void seedsRegenerateTheSameOmegaOnAnotherThread()
    {
        const RandomFeatures map = mapOf(FeatureKind::GaussianCos, 8, 1000);
        Eigen::MatrixXd w0, w1;
        Eigen::VectorXd b0, b1;
        map.projection(300, 200, w0, b0);
        std::thread([&] { map.projection(300, 200, w1, b1); }).join();
        QVERIFY(sameBits(w0, w1));
        QVERIFY(sameBits(b0, b1));
        // Feature by feature, in any grouping.
        Eigen::MatrixXd single;
        Eigen::VectorXd offset;
        map.projection(417, 1, single, offset);
        QVERIFY(sameBits(single, w0.col(117)));
        // And so the predictions of a model evaluated on another thread.
        const KernelExpansion e = expansion(map, 999, 1, 0);
        const Eigen::MatrixXd x = randomMatrix(20, 8, 2);
        Eigen::MatrixXd there;
        std::thread([&] { there = eval(e, x); }).join();
        QVERIFY(sameBits(eval(e, x), there));
    }

    void scalingRenormalisesWithoutChangingTheFunction()
    {
        const RandomFeatures map = mapOf(FeatureKind::GaussianCos, 2, 100);
        KernelExpansion e = expansion(map, 10, 1, 0);
        const Eigen::MatrixXd x = randomMatrix(5, 2, 1);
        const Eigen::MatrixXd before = eval(e, x);
        for (int i = 0; i < 240; ++i)
            e.scale(0.5);  // 2⁻²⁴⁰ < 1e-72 … past the renormalisation threshold twice over
        for (int i = 0; i < 240; ++i)
            e.scale(2.0);
        QVERIFY((eval(e, x) - before).cwiseAbs().maxCoeff() <= 1e-14 * before.cwiseAbs().maxCoeff());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, e.scale(0.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, e.evaluate(randomMatrix(5, 3, 1), const_cast<Eigen::MatrixXd&>(before)));
    }

    void appendChecksShapes()
    {
        KernelExpansion e;
        e.reset(mapOf(FeatureKind::GaussianCosSin, 2, 4), 3, 0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, e.append(Eigen::MatrixXd::Zero(1, 3)));  // half a pair
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, e.append(Eigen::MatrixXd::Zero(2, 2)));  // outputs
        e.append(Eigen::MatrixXd::Zero(4, 3));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, e.append(Eigen::MatrixXd::Zero(2, 3)));     // past count
    }

    void mixedPrecisionIsWithinTheFloatProductsBound_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("rows");
        QTest::newRow("gaussian, chunk path") << int(FeatureKind::GaussianCos) << 300;
        QTest::newRow("cos/sin, row path") << int(FeatureKind::GaussianCosSin) << 2500;
        QTest::newRow("laplace, row path") << int(FeatureKind::LaplaceCos) << 1500;
    }
    void mixedPrecisionIsWithinTheFloatProductsBound()
    {
        QFETCH(int, kind);
        QFETCH(int, rows);
        const Eigen::Index d = 200, n = 1100;
        const RandomFeatures map = mapOf(FeatureKind(kind), d, 2000);
        const Eigen::MatrixXd x = randomMatrix(rows, d, 11);
        KernelExpansion dbl, mixed, mixedCached;
        dbl.reset(map, 3, 0);
        mixed.reset(map, 3, 0, FeatureDraw::Sequential, tb::train::Precision::Mixed);
        mixedCached.reset(map, 3, 1e9, FeatureDraw::Sequential, tb::train::Precision::Mixed);
        Eigen::MatrixXd a, b, c;
        QVERIFY(dbl.features(x, 0, n, a));
        QVERIFY(mixed.features(x, 0, n, b));
        QVERIFY(mixedCached.features(x, 0, n, c));
        QVERIFY(sameBits(b, c));  // the cached float ω is the same as a fresh one
        // Each phase x·ω is a float dot product of d terms after rounding x and ω to float:
        // |error| ≤ (d + 2)·u·Σ|x_i||ω_i| with u = 2⁻²⁴ (Higham, Thm 3.1, plus the two roundings),
        // and the feature √2·cos(·) moves by at most √2 times that.
        Eigen::MatrixXd omega;
        Eigen::VectorXd offset;
        map.projection(0, n, omega, offset);
        const Eigen::MatrixXd magnitude = x.cwiseAbs() * omega.cwiseAbs();
        const double u = std::ldexp(1.0, -24);
        double worst = 0, largest = 0;
        const bool pairs = FeatureKind(kind) == FeatureKind::GaussianCosSin;
        for (Eigen::Index j = 0; j < n; ++j)
            for (Eigen::Index i = 0; i < rows; ++i) {
                const double bound = std::sqrt(2.0) * double(d + 2) * u * magnitude(i, pairs ? j / 2 : j);
                const double diff = std::abs(a(i, j) - b(i, j));
                worst = std::max(worst, diff / bound);
                largest = std::max(largest, diff);
            }
        QVERIFY2(worst <= 1.0, qPrintable(QString("error %1 of the bound").arg(worst)));
        QVERIFY2(largest > 0, "mixed precision gave double's bits: the float products were not used");
        // Deterministic for any thread count, as in double.
        const KernelExpansion m = [&] {
            KernelExpansion e;
            e.reset(map, 3, 0, FeatureDraw::Sequential, tb::train::Precision::Mixed);
            e.append(randomMatrix(1300, 3, 7));
            return e;
        }();
        Eigen::MatrixXd one, two;
        tbb::task_arena(1).execute([&] { one = eval(m, x); });
        tbb::task_arena(2).execute([&] { two = eval(m, x); });
        QVERIFY(sameBits(one, two));
        QCOMPARE(KernelExpansion::chunkProjectionBytes(d, map.kind, tb::train::Precision::Mixed),
                 KernelExpansion::chunkProjectionBytes(d, map.kind) +
                     4.0 * double(d) * double(pairs ? KernelExpansion::kChunk / 2 : KernelExpansion::kChunk));
    }

    void stopWithin200msWhilePredictingWith1e5Features_data()
    {
        QTest::addColumn<int>("rows");
        QTest::newRow("row path") << 20000;
        QTest::newRow("chunk path") << 1000;
    }
    void stopWithin200msWhilePredictingWith1e5Features()
    {
        QFETCH(int, rows);
        const RandomFeatures map = mapOf(FeatureKind::GaussianCos, 200, 100000);
        KernelExpansion e;
        e.reset(map, 10, 0);
        e.append(Eigen::MatrixXd::Constant(100000, 10, 1e-3));
        const Eigen::MatrixXd x = randomMatrix(rows, 200, 3);
        // Whole evaluations take seconds (rows·10⁵·(2·200 + cos + 2·10) flops). Stop 600 ms of
        // CPU time in (300 ms on an idle machine's two threads): the evaluation says it did not
        // finish, and its work after Stop is within the promise (tests/support/StopMeter.h).
        tb::StopSource stop;
        const auto r = runAndStop(stop, StopWhen{.cpuMs = 600}, [&] {
            Eigen::MatrixXd out;
            bool done = false;
            tbb::task_arena(2).execute([&] { done = e.evaluate(x, out, stop.token(), true); });
            return done;
        });
        QVERIFY2(!r.endedBeforeStop, "finished before Stop");
        QVERIFY(!r.value);
        qInfo("%s", qPrintable(r.after.describe()));
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
    }
};

QTEST_GUILESS_MAIN(TestKernelExpansion)
#include "tst_kernelexpansion.moc"
