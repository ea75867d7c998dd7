// The minibatch schedule: every row once per epoch, fractional epochs, the step count known in
// advance, seeded orders, and the checkpoint rule.
#include <dsgd/BatchSchedule.h>

#include <QtTest>
#include <set>

using tb::dsgd::BatchSchedule;

class TestBatchSchedule : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyRowOncePerEpoch()
    {
        BatchSchedule s(10, 3, 2.0, 7);
        QCOMPARE(s.totalSteps(), Eigen::Index(8));  // 4 batches (3, 3, 3, 1) per epoch
        std::vector<Eigen::Index> rows;
        std::multiset<Eigen::Index> seen;
        std::vector<Eigen::Index> sizes;
        while (s.next(rows)) {
            sizes.push_back(Eigen::Index(rows.size()));
            seen.insert(rows.begin(), rows.end());
            if (s.step() == 4)
                QCOMPARE(s.epochsDone(), 1.0);
        }
        QCOMPARE(s.step(), s.totalSteps());
        QCOMPARE(sizes, (std::vector<Eigen::Index>{3, 3, 3, 1, 3, 3, 3, 1}));
        for (Eigen::Index r = 0; r < 10; ++r)
            QCOMPARE(seen.count(r), std::size_t(2));
        QCOMPARE(s.epochsDone(), 2.0);
    }

    void fractionalEpochsNeverPassTheBudget()
    {
        // 0.3 of 10 rows is 3 rows; 2.5 epochs of 7 rows is 17 rows, the last batch cut short.
        BatchSchedule a(10, 4, 0.3, 1);
        QCOMPARE(a.totalSteps(), Eigen::Index(1));
        BatchSchedule b(7, 4, 2.5, 1);
        QCOMPARE(b.totalSteps(), BatchSchedule::stepsFor(7, 4, 2.5));
        std::vector<Eigen::Index> rows;
        Eigen::Index visited = 0;
        while (b.next(rows))
            visited += Eigen::Index(rows.size());
        QCOMPARE(visited, Eigen::Index(17));
        QVERIFY(b.epochsDone() <= 2.5);
        QCOMPARE(b.totalSteps(), Eigen::Index(5));  // 4+3, 4+3, 3
        // A tiny budget still visits one row.
        QCOMPARE(BatchSchedule::stepsFor(1000, 10, 1e-6), Eigen::Index(1));
    }

    void sameSeedSameOrder()
    {
        BatchSchedule a(50, 7, 3.0, 42), b(50, 7, 3.0, 42), c(50, 7, 3.0, 43);
        std::vector<Eigen::Index> ra, rb, rc;
        bool differs = false;
        while (a.next(ra)) {
            QVERIFY(b.next(rb));
            QVERIFY(c.next(rc));
            QCOMPARE(ra, rb);
            differs = differs || ra != rc;
        }
        QVERIFY(differs);
    }

    void checkpointsAreLogSpacedWithEpochEnds()
    {
        // 1000 rows in batches of 10: 100 steps per epoch, 2 epochs.
        BatchSchedule s(1000, 10, 2.0, 1);
        std::vector<Eigen::Index> rows, due;
        while (s.next(rows))
            if (s.checkpointDue(0))
                due.push_back(s.step());
        const std::vector<Eigen::Index> expected{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 18, 22, 27, 33, 40, 48, 58,
                                                 70, 84, 100, 101, 122, 147, 177, 200};
        QCOMPARE(due, expected);
        BatchSchedule e(100, 10, 1.0, 1);
        due.clear();
        while (e.next(rows))
            if (e.checkpointDue(4))
                due.push_back(e.step());
        QCOMPARE(due, (std::vector<Eigen::Index>{4, 8, 10}));  // every 4th step and the last
        // 101 epochs of one step each: no epoch-end checkpoints, only the log-spaced ones and
        // the last step (else a long run's time would go to the host's evaluations).
        BatchSchedule many(10, 10, 101.0, 1);
        due.clear();
        while (many.next(rows))
            if (many.checkpointDue(0))
                due.push_back(many.step());
        QCOMPARE(due, (std::vector<Eigen::Index>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 18, 22, 27, 33, 40, 48, 58,
                                                 70, 84, 101}));
    }
};

QTEST_GUILESS_MAIN(TestBatchSchedule)
#include "tst_batchschedule.moc"
