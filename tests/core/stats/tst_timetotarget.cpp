#include <stats/TimeToTarget.h>

#include <QtTest>
#include <cmath>

using namespace tb::stats;

class TestTimeToTarget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void firstCheckpointAtOrBeyondTheTarget()
    {
        const std::vector<CurvePoint> c{{0.5, 0.60}, {1.0, 0.78}, {1.5, 0.80}, {2.0, 0.79}, {2.5, 0.83}};
        const auto r = TimeToTarget::reach(c, 0.80, Better::Higher);
        QVERIFY(r.reached);
        QCOMPARE(r.time, 1.5);         // reached exactly at 1.5 s, not interpolated
        QCOMPARE(r.lastMissTime, 1.0); // somewhere in (1.0, 1.5]
        QCOMPARE(r.index, 2);
        QCOMPARE(r.best, 0.83);
        const auto never = TimeToTarget::reach(c, 0.9, Better::Higher);
        QVERIFY(!never.reached);
        QVERIFY(std::isnan(never.time));
        QCOMPARE(never.best, 0.83);
    }
    void lowerIsBetterAndNaNsSkipped()
    {
        const std::vector<CurvePoint> c{{1, 0.5}, {2, NAN}, {3, 0.2}, {NAN, 0.1}, {5, 0.1}};
        const auto r = TimeToTarget::reach(c, 0.15, Better::Lower);
        QCOMPARE(r.time, 5.0);
        QCOMPARE(r.lastMissTime, 3.0);
        const auto first = TimeToTarget::reach(c, 0.6, Better::Lower);
        QCOMPARE(first.time, 1.0);
        QCOMPARE(first.lastMissTime, 0.0);
    }
    void commonTargetIsTheWorstBest()
    {
        // Bests 0.83, 0.88 and 0.80: every curve reaches 0.80.
        const std::vector<std::vector<CurvePoint>> curves{
            {{1, 0.7}, {2, 0.83}}, {{1, 0.88}}, {{1, 0.75}, {2, 0.80}, {3, 0.78}}};
        QCOMPARE(TimeToTarget::commonTarget(curves, Better::Higher), 0.80);
        for (const auto& c : curves)
            QVERIFY(TimeToTarget::reach(c, 0.80, Better::Higher).reached);
        QCOMPARE(TimeToTarget::commonTarget({{{1, 3.0}}, {{1, 2.0}, {2, 1.0}}}, Better::Lower), 3.0);
        QVERIFY(std::isnan(TimeToTarget::commonTarget({}, Better::Higher)));
        QVERIFY(std::isnan(TimeToTarget::commonTarget({{{1, 0.5}}, {}}, Better::Higher)));
    }
};

QTEST_APPLESS_MAIN(TestTimeToTarget)
#include "tst_timetotarget.moc"
