#include <data/Standardiser.h>

#include <QtTest>

using namespace tb::data;

class TestStandardiser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void trainGetsMeanZeroStdOne()
    {
        Eigen::MatrixXd x(6, 3);
        x << 1, 100, -5, //
            2, 200, -5,  //
            3, 300, -5,  //
            4, 400, -5,  //
            5, 500, -5,  //
            9, 1e6, -5;
        Standardiser s;
        s.fit(x);
        const Eigen::MatrixXd z = s.apply(x);
        // 1e-14: a sum of six values of magnitude ≤ 3 after centring.
        for (Eigen::Index j = 0; j < 2; ++j) {
            QVERIFY(std::abs(z.col(j).mean()) < 1e-14);
            const double var = z.col(j).array().square().mean(); // population std, as documented
            QVERIFY(std::abs(var - 1.0) < 1e-14);
        }
        QCOMPARE(s.mean()(0), 4.0);
        // Constant column: centred, scale 1, no division by zero.
        QCOMPARE(s.scale()(2), 1.0);
        QCOMPARE(z.col(2), Eigen::VectorXd::Zero(6));
    }

    void constantColumnWithRoundingNoise()
    {
        // 0.1 summed ten times is not exactly 1: the fitted std is ~1e-17, not 0. It must
        // still count as constant rather than blow the column up by 1e17.
        Eigen::MatrixXd x = Eigen::MatrixXd::Constant(10, 1, 0.1);
        Standardiser s;
        s.fit(x);
        QCOMPARE(s.scale()(0), 1.0);
        QVERIFY(s.apply(x).cwiseAbs().maxCoeff() < 1e-15);
    }

    void testUsesTrainingStatistics()
    {
        Eigen::MatrixXd train(4, 1), test(2, 1);
        train << 0, 2, 4, 6; // mean 3, population std sqrt(5)
        test << 3, 3 + std::sqrt(5.0);
        Standardiser s;
        s.fit(train);
        Eigen::MatrixXd t = test;
        s.applyInPlace(t);
        QCOMPARE(t(0, 0), 0.0);
        QVERIFY(std::abs(t(1, 0) - 1.0) < 1e-15);
    }

    void misuseThrows()
    {
        Standardiser s;
        QVERIFY(!s.isFitted());
        QVERIFY_THROWS_EXCEPTION(std::logic_error, s.apply(Eigen::MatrixXd::Zero(2, 2)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.fit(Eigen::MatrixXd(0, 3)));
        s.fit(Eigen::MatrixXd::Identity(3, 3));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.apply(Eigen::MatrixXd::Zero(2, 2)));
    }
};

QTEST_APPLESS_MAIN(TestStandardiser)
#include "tst_standardiser.moc"
