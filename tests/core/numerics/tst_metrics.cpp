#include <numerics/Metrics.h>

#include <QtTest>

using namespace tb::num;

class TestMetrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void accuracyCountsArgmaxHits()
    {
        Eigen::MatrixXd s(4, 3), t = Eigen::MatrixXd::Zero(4, 3);
        s << 0.1, 0.8, 0.1, //
            0.9, 0.0, 0.1,  //
            0.2, 0.3, 0.5,  //
            std::nan(""), 1, 0;
        t(0, 1) = t(1, 0) = t(2, 0) = t(3, 1) = 1;
        QCOMPARE(accuracy(s, t), 0.5); // rows 0 and 1 right; row 2 wrong; NaN row wrong
    }
    void rmseIsPerSampleEuclidean()
    {
        Eigen::MatrixXd p(2, 2), t = Eigen::MatrixXd::Zero(2, 2);
        p << 3, 4, 0, 0; // errors: 5 and 0 → sqrt((25 + 0)/2)
        QCOMPARE(rmse(p, t), std::sqrt(12.5));
    }
    void shapeMismatchThrows()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rmse(Eigen::MatrixXd(2, 2), Eigen::MatrixXd(3, 2)));
    }
    void meanStdUsesSampleStd()
    {
        const auto r = meanStd({1, 2, 3, 4});
        QCOMPARE(r.mean, 2.5);
        QVERIFY(std::abs(r.std - std::sqrt(5.0 / 3.0)) < 1e-15);
        QCOMPARE(meanStd({7}).std, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
