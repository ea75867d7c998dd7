#include <stats/WinTieLoss.h>

#include <QtTest>

using namespace tb::stats;

class TestWinTieLoss : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void relativeBandOnLowerIsBetter()
    {
        // Objective values (lower is better), band 5 %:
        //  1.00 vs 1.04: |Δ| = 0.04 ≤ 0.05·1.04 → tie
        //  1.00 vs 1.06: 0.06 > 0.053 → win for a
        //  2.00 vs 1.80: 0.20 > 0.10 → loss
        //  0.00 vs 0.00: equal → tie
        //  NaN: dropped
        const auto r = WinTieLoss::count({1.00, 1.00, 2.00, 0.0, NAN}, {1.04, 1.06, 1.80, 0.0, 1.0}, Better::Lower);
        QCOMPARE(r.wins, 1);
        QCOMPARE(r.ties, 2);
        QCOMPARE(r.losses, 1);
        QCOMPARE(r.dropped, 1);
    }
    void higherIsBetterAndSymmetry()
    {
        const std::vector<double> a{0.90, 0.80, 0.50}, b{0.85, 0.90, 0.51};
        const auto ab = WinTieLoss::count(a, b, Better::Higher);
        const auto ba = WinTieLoss::count(b, a, Better::Higher);
        // 0.90 vs 0.85: 0.05 > 0.045 → win; 0.80 vs 0.90: loss; 0.50 vs 0.51: tie.
        QCOMPARE(ab.wins, 1);
        QCOMPARE(ab.losses, 1);
        QCOMPARE(ab.ties, 1);
        QCOMPARE(ba.wins, ab.losses);
        QCOMPARE(ba.losses, ab.wins);
    }
    void zeroBandTiesOnlyEqualValues()
    {
        const auto r = WinTieLoss::count({1, 2, 3}, {1, 2.0000001, 2}, Better::Higher, 0);
        QCOMPARE(r.ties, 1);
        QCOMPARE(r.losses, 1);
        QCOMPARE(r.wins, 1);
        // A NaN or negative band behaves as 0.
        QCOMPARE(WinTieLoss::count({1}, {1.01}, Better::Higher, NAN).losses, 1);
    }
};

QTEST_APPLESS_MAIN(TestWinTieLoss)
#include "tst_wintieloss.moc"
