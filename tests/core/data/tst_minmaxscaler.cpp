// Min-max scaling: fitted on training data, constant columns, misuse, and the pair helper.
#include <data/MinMaxScaler.h>

#include <QtTest>
#include <limits>

using namespace tb::data;

class TestMinMaxScaler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void trainSpansZeroToOne()
    {
        Eigen::MatrixXd x(4, 3);
        x << 1, -10, 7, //
            3, 0, 7,    //
            2, 30, 7,   //
            5, 10, 7;
        MinMaxScaler s;
        s.fit(x);
        const Eigen::MatrixXd z = s.apply(x);
        Eigen::MatrixXd expected(4, 3);
        expected << 0, 0, 0, //
            0.5, 0.25, 0,    //
            0.25, 1, 0,      //
            1, 0.5, 0;
        QCOMPARE(z, expected);   // exact: every quotient here is a dyadic fraction
        QCOMPARE(s.range()(2), 1.0); // constant column: divisor 1, column → 0
    }

    void testUsesTrainingStatistics()
    {
        Eigen::MatrixXd train(2, 1), test(2, 1);
        train << 2, 6;
        test << 0, 10; // outside the training range: not clipped
        MinMaxScaler s;
        s.fit(train);
        QCOMPARE(s.apply(test), (Eigen::MatrixXd(2, 1) << -0.5, 2.0).finished());
    }

    void misuseThrows()
    {
        MinMaxScaler s;
        QVERIFY_THROWS_EXCEPTION(std::logic_error, s.apply(Eigen::MatrixXd::Ones(2, 2)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.fit(Eigen::MatrixXd(0, 3)));
        Eigen::MatrixXd bad = Eigen::MatrixXd::Ones(3, 2);
        bad(1, 1) = std::numeric_limits<double>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.fit(bad));
        s.fit(Eigen::MatrixXd::Ones(3, 2));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.apply(Eigen::MatrixXd::Ones(3, 3)));
    }

    void pairScalesTargetsOfRegressionOnly()
    {
        DatasetPair p;
        p.train.x = (Eigen::MatrixXd(3, 1) << 0, 5, 10).finished();
        p.train.y = (Eigen::MatrixXd(3, 1) << -4, 0, 4).finished();
        p.test.x = (Eigen::MatrixXd(1, 1) << 5).finished();
        p.test.y = (Eigen::MatrixXd(1, 1) << 8).finished();
        DatasetPair q = p;
        scaleMinMax(p, true);
        QCOMPARE(p.train.x, (Eigen::MatrixXd(3, 1) << 0, 0.5, 1).finished());
        QCOMPARE(p.train.y, (Eigen::MatrixXd(3, 1) << 0, 0.5, 1).finished());
        QCOMPARE(p.test.y(0, 0), 1.5); // fitted on train
        scaleMinMax(q, false);
        QCOMPARE(q.train.y(2, 0), 4.0);
        // One-hot class targets stay one-hot.
        DatasetPair c;
        c.train.task = tb::Task::Classification;
        c.train.x = (Eigen::MatrixXd(2, 1) << 1, 3).finished();
        c.train.y = (Eigen::MatrixXd(2, 2) << 1, 0, 0, 1).finished();
        c.test = c.train;
        scaleMinMax(c, true);
        QCOMPARE(c.train.y, (Eigen::MatrixXd(2, 2) << 1, 0, 0, 1).finished());
    }
};

QTEST_GUILESS_MAIN(TestMinMaxScaler)
#include "tst_minmaxscaler.moc"
