#include <data/Generators.h>

#include <QtTest>
#include <cmath>
#include <functional>
#include <numbers>

using namespace tb::data;

namespace {

using TwoClassFn = std::function<Dataset(Eigen::Index, double, std::uint64_t)>;

struct TeachingSet {
    const char* name;
    TwoClassFn make;
};

std::vector<TeachingSet> teachingSets()
{
    return {{"moons", [](Eigen::Index n, double s, std::uint64_t seed) { return Generators::moons(n, s, seed); }},
            {"circles", [](Eigen::Index n, double s, std::uint64_t seed) { return Generators::circles(n, s, seed); }},
            {"spirals", [](Eigen::Index n, double s, std::uint64_t seed) { return Generators::spirals(n, s, seed); }},
            {"xor", [](Eigen::Index n, double s, std::uint64_t seed) { return Generators::xorQuadrants(n, s, seed); }}};
}

} // namespace

class TestGenerators : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void toyLinearMatchesFormulasExactly()
    {
        const DatasetPair p = Generators::bplsToy(BplsToyFunction::Linear, 0.0, 1);
        QCOMPARE(p.train.task, tb::Task::Regression);
        QCOMPARE(p.train.rows(), Eigen::Index(5));
        QCOMPARE(p.train.inputs(), Eigen::Index(1)); // no bias column
        QCOMPARE(p.train.outputs(), Eigen::Index(2));
        QCOMPARE(p.test.rows(), Eigen::Index(5));
        for (int i = 0; i < 5; ++i) {
            const double xt = 1 + 2 * i, xs = 2 + 2 * i;
            QCOMPARE(p.train.x(i, 0), xt);
            QCOMPARE(p.test.x(i, 0), xs);
            QCOMPARE(p.train.y(i, 0), -xt / 3 + 2);
            QCOMPARE(p.train.y(i, 1), 2 * xt - 1);
            QCOMPARE(p.test.y(i, 0), -xs / 3 + 2);
            QCOMPARE(p.test.y(i, 1), 2 * xs - 1);
        }
        QCOMPARE(p.train.y(1, 0), 1.0); // x = 3: −1 + 2
        QCOMPARE(p.test.y(4, 1), 19.0); // x = 10
    }

    void toyNonlinearMatchesFormulasExactly()
    {
        const DatasetPair p = Generators::bplsToy(BplsToyFunction::Nonlinear, 0.0, 1);
        for (int i = 0; i < 5; ++i)
            for (const Dataset* d : {&p.train, &p.test}) {
                const double x = d->x(i, 0);
                QCOMPARE(d->y(i, 0), 1.0 / (1.0 + std::exp(std::log10(std::pow(x, -3.0 / 2.0)))));
                QCOMPARE(d->y(i, 1), 1.0 / (1.0 + std::exp(std::pow(x, -1.0 / 4.0))));
            }
        // x = 1: log10(1) = 0 → 1/2; and 1/(1+e).
        QCOMPARE(p.train.y(0, 0), 0.5);
        QCOMPARE(p.train.y(0, 1), 1.0 / (1.0 + std::numbers::e));
    }

    void toyNoiseOnTrainingTargetsOnly()
    {
        const DatasetPair clean = Generators::bplsToy(BplsToyFunction::Linear, 0.0, 7);
        const DatasetPair a = Generators::bplsToy(BplsToyFunction::Linear, 0.5, 7);
        const DatasetPair b = Generators::bplsToy(BplsToyFunction::Linear, 1.0, 7);
        QCOMPARE(a.test.y, clean.test.y); // test targets stay clean
        QCOMPARE(a.train.x, clean.train.x);
        QVERIFY(a.train.y != clean.train.y);
        // Same seed, same standard-normal draws: the noise scales exactly with σ (up to the
        // rounding of one addition and one subtraction on values of magnitude ≤ 20).
        const Eigen::MatrixXd na = a.train.y - clean.train.y;
        const Eigen::MatrixXd nb = b.train.y - clean.train.y;
        QVERIFY(((nb - 2 * na).array().abs() < 1e-13).all());
        QCOMPARE(Generators::bplsToy(BplsToyFunction::Linear, 0.5, 7).train.y, a.train.y);
        QVERIFY(Generators::bplsToy(BplsToyFunction::Linear, 0.5, 8).train.y != a.train.y);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Generators::bplsToy(BplsToyFunction::Linear, -0.1, 1));
    }

    void teachingSetsShapeBalanceAndSeeds()
    {
        for (const auto& s : teachingSets()) {
            const Dataset d = s.make(401, 0.1, 3);
            QVERIFY2(d.task == tb::Task::Classification, s.name);
            QCOMPARE(d.rows(), Eigen::Index(401));
            QCOMPARE(d.inputs(), Eigen::Index(2));
            QCOMPARE(d.outputs(), Eigen::Index(2));
            QCOMPARE(d.classNames.size(), 2);
            QCOMPARE(d.classCounts(), (std::vector<Eigen::Index>{201, 200}));
            QCOMPARE(d.y.rowwise().sum(), Eigen::VectorXd::Ones(401));
            for (Eigen::Index i = 0; i < 401; ++i)
                QCOMPARE(d.y(i, d.labels[std::size_t(i)]), 1.0);
            QVERIFY2(d.x.allFinite(), s.name);
            // Rows are shuffled: the first 50 are not all one class.
            const auto first = std::count(d.labels.begin(), d.labels.begin() + 50, 0);
            QVERIFY2(first > 0 && first < 50, s.name);
            const Dataset again = s.make(401, 0.1, 3);
            QVERIFY2(again.x == d.x && again.labels == d.labels, s.name);
            QVERIFY2(s.make(401, 0.1, 4).x != d.x, s.name);
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.make(1, 0.1, 1));
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.make(10, -1, 1));
        }
    }

    void noiseFreeGeometry()
    {
        // Tolerances 1e-12: one cos/sin evaluation and a few arithmetic operations.
        const Dataset c = Generators::circles(200, 0.0, 1);
        for (Eigen::Index i = 0; i < c.rows(); ++i)
            QVERIFY(std::abs(c.x.row(i).norm() - (c.labels[std::size_t(i)] == 0 ? 1.0 : 0.5)) < 1e-12);
        const Dataset m = Generators::moons(200, 0.0, 1);
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
            const Eigen::RowVector2d centre = m.labels[std::size_t(i)] == 0 ? Eigen::RowVector2d(0, 0)
                                                                            : Eigen::RowVector2d(1, 0.5);
            QVERIFY(std::abs((m.x.row(i) - centre).norm() - 1.0) < 1e-12);
            QVERIFY(m.labels[std::size_t(i)] == 0 ? m.x(i, 1) >= 0 : m.x(i, 1) <= 0.5);
        }
        const Dataset x = Generators::xorQuadrants(200, 0.0, 1);
        for (Eigen::Index i = 0; i < x.rows(); ++i)
            QCOMPARE(x.x(i, 0) * x.x(i, 1) > 0 ? 0 : 1, x.labels[std::size_t(i)]);
        const Dataset s = Generators::spirals(200, 0.0, 1);
        QVERIFY((s.x.rowwise().norm().array() <= 1.0).all());
        // The two arms are point reflections of each other through the origin (θ + π).
        for (Eigen::Index i = 0; i < s.rows(); ++i) {
            if (s.labels[std::size_t(i)] != 1)
                continue;
            bool mirrored = false;
            for (Eigen::Index j = 0; j < s.rows() && !mirrored; ++j)
                mirrored = s.labels[std::size_t(j)] == 0 && (s.x.row(i) + s.x.row(j)).norm() < 1e-12;
            QVERIFY(mirrored);
        }
    }

    void friedman1KnownAnswerAndNoise()
    {
        const Dataset d = Generators::friedman1(500, 10, 0.0, 2);
        QCOMPARE(d.inputs(), Eigen::Index(10));
        QCOMPARE(d.outputs(), Eigen::Index(1));
        QCOMPARE(d.featureNames.size(), 10);
        QVERIFY((d.x.array() >= 0).all() && (d.x.array() < 1).all());
        for (Eigen::Index i = 0; i < d.rows(); ++i) {
            const auto x = d.x.row(i);
            const double y = 10 * std::sin(std::numbers::pi * x(0) * x(1)) + 20 * (x(2) - 0.5) * (x(2) - 0.5) +
                             10 * x(3) + 5 * x(4);
            QCOMPARE(d.y(i, 0), y);
        }
        // Noise N(0, 2²) on 20000 rows: mean error within 5 standard errors (5·2/√20000 ≈ 0.07),
        // std within 5% (its standard error is about 2/√40000 = 0.01).
        const Dataset clean = Generators::friedman1(20000, 5, 0.0, 9);
        const Dataset noisy = Generators::friedman1(20000, 5, 2.0, 9);
        QCOMPARE(noisy.x, clean.x);
        const Eigen::ArrayXd e = (noisy.y - clean.y).array();
        QVERIFY(std::abs(e.mean()) < 0.07);
        const double sd = std::sqrt((e - e.mean()).square().mean());
        QVERIFY2(std::abs(sd - 2.0) < 0.1, qPrintable(QString::number(sd)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Generators::friedman1(10, 4, 0.0, 1));
    }
};

QTEST_APPLESS_MAIN(TestGenerators)
#include "tst_generators.moc"
