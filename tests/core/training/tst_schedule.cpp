// Step-size schedules and sampling: each rule against its formula, the diminishing step's
// recursion and its guard, the portable shuffle (same order on every platform).
#include <training/LearningRateSchedule.h>
#include <training/Sampling.h>

#include <QtTest>
#include <numeric>

using namespace tb::train;

class TestSchedule : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rules()
    {
        LearningRateSchedule s;
        s.base = 0.1;
        QCOMPARE(s.rate(0), 0.1);
        QCOMPARE(s.rate(1000), 0.1);
        s.kind = LearningRateSchedule::Kind::Step;
        s.every = 10;
        s.factor = 0.5;
        QCOMPARE(s.rate(9), 0.1);
        QCOMPARE(s.rate(10), 0.05);
        QCOMPARE(s.rate(25), 0.025);
        s.kind = LearningRateSchedule::Kind::Inverse;
        s.decay = 0.5;  // θ/(1 + t/t₀) with t₀ = 2
        QCOMPARE(s.rate(2), 0.05);
        QCOMPARE(s.rate(6), 0.025);
        s.kind = LearningRateSchedule::Kind::InverseSqrt;
        s.decay = 1.0;
        QCOMPARE(s.rate(3), 0.05);
    }

    void diminishingStep()
    {
        // Palagi & Seccia: α₀ = 0.5, ε = 5e-3.
        DiminishingStep a(0.5, 5e-3);
        QCOMPARE(a.current(), 0.5);
        QCOMPARE(a.next(), 0.5 * (1 - 5e-3 * 0.5));
        const double a1 = a.current();
        QCOMPARE(a.next(), a1 * (1 - 5e-3 * a1));
        QCOMPARE(a.iteration(), 2LL);
        for (int k = 0; k < 100000; ++k)
            a.next();
        QVERIFY(a.current() > 0 && a.current() < 0.5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DiminishingStep(0.5, 2.0));  // ε·α₀ = 1
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DiminishingStep(0.0, 0.1));
    }

    void shuffleIsPortable()
    {
        // Lemire's bounded draws and Fisher–Yates on mt19937_64(42): fixed numbers, the same on
        // every platform (std::shuffle's are implementation-defined).
        std::mt19937_64 gen(42);
        std::vector<Eigen::Index> v(10);
        std::iota(v.begin(), v.end(), Eigen::Index(0));
        shuffle(v, gen);
        std::vector<Eigen::Index> sorted = v;
        std::sort(sorted.begin(), sorted.end());
        for (Eigen::Index i = 0; i < 10; ++i)
            QCOMPARE(sorted[std::size_t(i)], i);
        std::mt19937_64 again(42);
        std::vector<Eigen::Index> w(10);
        std::iota(w.begin(), w.end(), Eigen::Index(0));
        shuffle(w, again);
        QCOMPARE(v, w);
        std::mt19937_64 g2(7);
        for (int i = 0; i < 1000; ++i)
            QVERIFY(boundedDraw(g2, 3) < 3);
    }

    void transposedCopyIsTheTranspose()
    {
        Eigen::MatrixXd x = Eigen::MatrixXd::Random(300, 250);  // above the parallel threshold
        QCOMPARE(transposedCopy(x), Eigen::MatrixXd(x.transpose()));
    }
};

QTEST_GUILESS_MAIN(TestSchedule)
#include "tst_schedule.moc"
