// The Euclidean projection onto the probability simplex (Duchi et al. 2008) against a brute-force
// solver, and its defining properties.
#include <lsq/SimplexProjection.h>

#include <QtTest>
#include <tbb/task_arena.h>

#include <random>

using namespace tb::lsq;

namespace {

// Brute force: the projection is v − θ on some support S and 0 elsewhere, with θ fixed by Σ = 1.
// Try every non-empty S, keep the feasible candidates (entries ≥ 0 on S), take the nearest.
Eigen::RowVectorXd bruteForce(const Eigen::RowVectorXd& v)
{
    const Eigen::Index k = v.size();
    Eigen::RowVectorXd best;
    double bestDist = std::numeric_limits<double>::infinity();
    for (unsigned mask = 1; mask < (1u << k); ++mask) {
        double sum = 0;
        int size = 0;
        for (Eigen::Index i = 0; i < k; ++i)
            if (mask & (1u << i)) {
                sum += v(i);
                ++size;
            }
        const double theta = (sum - 1.0) / size;
        Eigen::RowVectorXd p = Eigen::RowVectorXd::Zero(k);
        bool feasible = true;
        for (Eigen::Index i = 0; i < k; ++i)
            if (mask & (1u << i)) {
                p(i) = v(i) - theta;
                feasible = feasible && p(i) >= 0;
            }
        const double dist = (p - v).squaredNorm();
        if (feasible && dist < bestDist) {
            bestDist = dist;
            best = p;
        }
    }
    return best;
}

Eigen::RowVectorXd project(const Eigen::RowVectorXd& v)
{
    Eigen::RowVectorXd out(v.size());
    projectOntoSimplex(v, out);
    return out;
}

} // namespace

class TestSimplexProjection : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesBruteForce()
    {
        // 2000 random vectors of 1 … 8 entries on scales from 0.01 to 100 (inside and far outside
        // the simplex). Both solve the same problem in double: 1e-12 covers their rounding.
        std::mt19937_64 gen(11);
        std::normal_distribution<double> nd;
        std::uniform_int_distribution<int> size(1, 8);
        const double scales[] = {0.01, 0.3, 1.0, 5.0, 100.0};
        for (int trial = 0; trial < 2000; ++trial) {
            Eigen::RowVectorXd v(size(gen));
            for (Eigen::Index i = 0; i < v.size(); ++i)
                v(i) = scales[trial % 5] * nd(gen);
            const Eigen::RowVectorXd p = project(v), ref = bruteForce(v);
            QVERIFY2((p - ref).norm() <= 1e-12 * (1.0 + v.norm()),
                     qPrintable(QString("trial %1: distance %2").arg(trial).arg((p - ref).norm())));
        }
    }
    void sumsToOneNonNegativeAndIdempotent()
    {
        std::mt19937_64 gen(12);
        std::normal_distribution<double> nd;
        for (int trial = 0; trial < 500; ++trial) {
            Eigen::RowVectorXd v(10);
            for (Eigen::Index i = 0; i < 10; ++i)
                v(i) = 3.0 * nd(gen);
            const Eigen::RowVectorXd p = project(v);
            QVERIFY(std::abs(p.sum() - 1.0) <= 1e-14 * 10);  // ten additions of numbers ≤ 1
            QVERIFY(p.minCoeff() >= 0.0);
            // A point of the simplex is its own projection (up to the rounding of θ).
            QVERIFY((project(p) - p).norm() <= 1e-15 * 10);
        }
        // Exactly on the simplex: unchanged; a one-hot vector stays one-hot.
        const Eigen::RowVectorXd onehot = (Eigen::RowVectorXd(4) << 0, 1, 0, 0).finished();
        QCOMPARE(project(onehot), onehot);
        // Equal entries: the uniform distribution.
        QVERIFY((project(Eigen::RowVectorXd::Constant(5, 7.0)) - Eigen::RowVectorXd::Constant(5, 0.2)).norm() < 1e-15);
        // One entry: always 1.
        QCOMPARE(project(Eigen::RowVectorXd::Constant(1, -3.0))(0), 1.0);
    }
    void inPlaceAndRowsMatchSingleVectors()
    {
        std::mt19937_64 gen(13);
        std::normal_distribution<double> nd;
        Eigen::MatrixXd m(3000, 6);
        for (Eigen::Index i = 0; i < m.size(); ++i)
            m.data()[i] = nd(gen);
        Eigen::MatrixXd expected(m.rows(), m.cols());
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            expected.row(i) = project(m.row(i));
        Eigen::MatrixXd rows = m;
        tbb::task_arena(2).execute([&] { projectRowsOntoSimplex(rows); });
        QVERIFY(rows == expected);  // rows are independent: the same bits
        Eigen::RowVectorXd v = m.row(0);
        projectOntoSimplex(v, v);   // aliasing is allowed
        QVERIFY(v == expected.row(0));
    }
};

QTEST_APPLESS_MAIN(TestSimplexProjection)
#include "tst_simplexprojection.moc"
