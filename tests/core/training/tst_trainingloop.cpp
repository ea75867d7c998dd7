// The training loop of the toolkit: its policies (checkpoint cadence, Stop, the budget, early
// stopping, divergence) with a recording host, step by step.
#include <training/TrainingLoop.h>

#include <QtTest>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

using namespace tb::train;

namespace {

struct Point {
    double epoch;
    double loss;
};

// Records what the loop does; answers Stop at a chosen checkpoint; a budget spent after a chosen step.
class RecordingHost final : public LoopHost {
public:
    bool stopRequested() const override { return stopBeforeStep > 0 && steps >= stopBeforeStep; }
    bool budgetSpent() const override { return budgetAfterStep > 0 && steps >= budgetAfterStep; }
    bool checkpoint(double epoch, double loss, const std::string&) override
    {
        points.push_back({epoch, loss});
        return stopAtCheckpoint == 0 || int(points.size()) < stopAtCheckpoint;
    }
    void log(const std::string& line) override { logs.push_back(line); }
    void record(const std::string& key, double value) override { facts[key] = value; }

    int steps = 0;             // steps the algorithm took (the test's step hook counts them)
    int stopBeforeStep = 0;    // Stop once this many steps are done (0 = never)
    int budgetAfterStep = 0;   // budget spent once this many steps are done (0 = never)
    int stopAtCheckpoint = 0;  // answer Stop at this checkpoint (0 = never)
    std::vector<Point> points;
    std::vector<std::string> logs;
    std::map<std::string, double> facts;
};

// A step of loss 2 over 2 rows (a mean of 1) that counts itself.
TrainingLoop::Hooks counting(RecordingHost& host, std::vector<long long>* epochsBegun = nullptr)
{
    TrainingLoop::Hooks h;
    h.step = [&host](const LoopPosition&) {
        ++host.steps;
        return StepResult{2.0, 2.0, false, false};
    };
    if (epochsBegun)
        h.beginEpoch = [epochsBegun](long long e) { epochsBegun->push_back(e); };
    return h;
}

} // namespace

class TestTrainingLoop : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void epochsWithCheckpointsAtTheirEnds()
    {
        RecordingHost host;
        std::vector<long long> begun;
        TrainingLoop loop(host);
        QCOMPARE(loop.run(TrainingLoop::epochs(3, 4), counting(host, &begun)), LoopEnd::Completed);
        QCOMPARE(host.steps, 12);
        QCOMPARE(begun, (std::vector<long long>{0, 1, 2}));
        QCOMPARE(host.points.size(), std::size_t(3));
        for (int e = 0; e < 3; ++e) {
            QCOMPARE(host.points[std::size_t(e)].epoch, double(e + 1));
            QCOMPARE(host.points[std::size_t(e)].loss, 1.0);  // the mean of the epoch's steps
        }
        QCOMPARE(loop.position().step, 12LL);
    }

    void checkpointEveryStepsButNotTwiceAtAnEpochEnd()
    {
        RecordingHost host;
        TrainingLoop loop(host);
        loop.checkpointEvery(2);
        TrainingLoop::Hooks h = counting(host);
        // The loss of step k is k (rows 1): mid-epoch checkpoints report the mean since the
        // epoch began, and the reported loss goes through checkpointLoss.
        h.step = [&](const LoopPosition& at) {
            ++host.steps;
            return StepResult{double(at.stepInEpoch), 1.0, false, false};
        };
        h.checkpointLoss = [](double mean) { return mean + 100; };
        QCOMPARE(loop.run(TrainingLoop::epochs(2, 4), h), LoopEnd::Completed);
        // Per epoch: after step 2 (epoch 0.5, mean 1.5), at the end (mean 2.5).
        QCOMPARE(host.points.size(), std::size_t(4));
        QCOMPARE(host.points[0].epoch, 0.5);
        QCOMPARE(host.points[0].loss, 101.5);
        QCOMPARE(host.points[1].epoch, 1.0);
        QCOMPARE(host.points[1].loss, 102.5);
        QCOMPARE(host.points[2].epoch, 1.5);
        QCOMPARE(host.points[3].epoch, 2.0);
        QCOMPARE(host.points[3].loss, 102.5);
    }

    void aCadenceOfItsOwnReportsTheMeanSinceTheLastCheckpoint()
    {
        RecordingHost host;
        TrainingLoop loop(host);
        TrainingLoop::Hooks h;
        h.step = [&](const LoopPosition& at) {
            ++host.steps;
            return StepResult{double(at.step), 1.0, false, false};
        };
        int before = 0;
        h.beforeCheckpoint = [&](const LoopPosition&) { ++before; };
        loop.checkpointWhen([](const LoopPosition& at) { return at.step == 1 || at.step == 4; });
        QCOMPARE(loop.run(TrainingLoop::steps(5, [&] { return host.steps / 2.0; }), h), LoopEnd::Completed);
        QCOMPARE(host.points.size(), std::size_t(2));
        QCOMPARE(host.points[0].loss, 1.0);
        QCOMPARE(host.points[1].loss, 3.0);  // (2 + 3 + 4) / 3
        QCOMPARE(host.points[1].epoch, 2.0); // epochOf() after step 4
        QCOMPARE(before, 2);
    }

    void stopEndsTheLoopBeforeTheNextStep()
    {
        RecordingHost host;
        host.stopBeforeStep = 5;
        TrainingLoop loop(host);
        QCOMPARE(loop.run(TrainingLoop::epochs(3, 4), counting(host)), LoopEnd::Stopped);
        QCOMPARE(host.steps, 5);
        QCOMPARE(host.points.size(), std::size_t(1));  // the first epoch's end only
    }

    void aStepThatSawStopEndsWithoutACheckpoint()
    {
        RecordingHost host;
        TrainingLoop loop(host);
        TrainingLoop::Hooks h = counting(host);
        h.step = [&](const LoopPosition& at) {
            ++host.steps;
            return StepResult{1.0, 1.0, at.step == 4, false};
        };
        QCOMPARE(loop.run(TrainingLoop::epochs(1, 4), h), LoopEnd::Stopped);
        QVERIFY(host.points.empty());
    }

    void aCheckpointAnsweredStopEndsTheLoop()
    {
        RecordingHost host;
        host.stopAtCheckpoint = 2;
        TrainingLoop loop(host);
        QCOMPARE(loop.run(TrainingLoop::epochs(5, 2), counting(host)), LoopEnd::Stopped);
        QCOMPARE(host.steps, 4);
        QCOMPARE(host.points.size(), std::size_t(2));
    }

    void theBudgetEndsTheEpochWhereItIs()
    {
        RecordingHost host;
        host.budgetAfterStep = 6;
        TrainingLoop loop(host);
        loop.pollBudget(true);
        TrainingLoop::Hooks h = counting(host);
        std::vector<double> epochLosses;
        h.epochLoss = [&](const LoopPosition& at) -> std::optional<double> {
            epochLosses.push_back(at.epochs);
            return 7.0;
        };
        QCOMPARE(loop.run(TrainingLoop::epochs(10, 4), h), LoopEnd::Budget);
        QCOMPARE(host.steps, 6);
        QCOMPARE(host.points.size(), std::size_t(2));
        QCOMPARE(host.points[1].epoch, 1.5);  // two steps into the second epoch
        QCOMPARE(host.points[1].loss, 7.0);
        QCOMPARE(epochLosses, (std::vector<double>{1.0, 1.5}));
        // Without polling, the budget is the host's business (it answers Stop at a checkpoint).
        RecordingHost other;
        other.budgetAfterStep = 6;
        TrainingLoop plain(other);
        QCOMPARE(plain.run(TrainingLoop::epochs(3, 4), counting(other)), LoopEnd::Completed);
        QCOMPARE(other.steps, 12);
    }

    void aStopAtTheBudgetIsTheBudget()
    {
        // The host answers Stop at an epoch's end because the budget is spent: Budget, not Stopped.
        RecordingHost host;
        host.budgetAfterStep = 4;
        host.stopAtCheckpoint = 1;
        TrainingLoop loop(host);
        loop.pollBudget(true);
        QCOMPARE(loop.run(TrainingLoop::epochs(3, 4), counting(host)), LoopEnd::Budget);
        QCOMPARE(host.points.size(), std::size_t(1));
    }

    void earlyStoppingRestoresTheBestWeights()
    {
        // Held-out losses 5, 3, 4, 4, 4 …: the best is epoch 2; with patience 2 the run ends after
        // epoch 4, the weights of epoch 2 restored before its checkpoint.
        RecordingHost host;
        TrainingLoop loop(host);
        const std::vector<double> held{5, 3, 4, 4, 4, 4};
        int epoch = 0, saved = -1, restored = -1, weights = 0;
        TrainingLoop::Hooks h = counting(host);
        h.beginEpoch = [&](long long e) {
            epoch = int(e);
            weights = int(e) + 1;  // "the weights after epoch e + 1"
        };
        loop.earlyStopping(
            2, [&]() -> std::optional<double> { return held[std::size_t(epoch)]; }, [&] { saved = weights; },
            [&] { restored = saved; });
        QCOMPARE(loop.run(TrainingLoop::epochs(10, 3), h), LoopEnd::EarlyStopped);
        QCOMPARE(host.points.size(), std::size_t(4));
        QCOMPARE(saved, 2);
        QCOMPARE(restored, 2);
        QCOMPARE(loop.bestEpoch(), 2LL);
        QCOMPARE(host.facts["early_stopped_at_epoch"], 4.0);
        QCOMPARE(host.facts["best_epoch"], 2.0);
        QVERIFY(!host.logs.empty() && host.logs.back().find("restored the weights of epoch 2") != std::string::npos);
    }

    void earlyStoppingAtTheLastEpochStillRestores()
    {
        RecordingHost host;
        TrainingLoop loop(host);
        int epoch = 0;
        bool restored = false;
        TrainingLoop::Hooks h = counting(host);
        h.beginEpoch = [&](long long e) { epoch = int(e); };
        loop.earlyStopping(
            10, [&]() -> std::optional<double> { return epoch == 0 ? 1.0 : 2.0; }, [] {}, [&] { restored = true; });
        QCOMPARE(loop.run(TrainingLoop::epochs(3, 1), h), LoopEnd::Completed);
        QVERIFY(restored);
        QVERIFY(host.facts.count("early_stopped_at_epoch") == 0);
    }

    void divergenceIsReportedAtInfinity()
    {
        RecordingHost host;
        TrainingLoop loop(host);
        TrainingLoop::Hooks h = counting(host);
        h.step = [&](const LoopPosition& at) {
            ++host.steps;
            return StepResult{at.step == 7 ? std::numeric_limits<double>::quiet_NaN() : 1.0, 1.0, false, false};
        };
        bool before = false;
        h.beforeDivergence = [&](const LoopPosition&) { before = true; };
        loop.divergenceMessage([](const LoopPosition& at, double) { return "gone at " + std::to_string(at.step); });
        QCOMPARE(loop.run(TrainingLoop::epochs(5, 4), h), LoopEnd::Diverged);
        QCOMPARE(host.steps, 7);
        QVERIFY(before);
        QCOMPARE(host.points.back().epoch, 1.75);
        QVERIFY(std::isinf(host.points.back().loss));
        QCOMPARE(host.facts["diverged_at_epoch"], 1.75);
        QCOMPARE(host.logs.back(), std::string("gone at 7"));
        // A non-finite loss at an epoch's end too.
        RecordingHost end;
        TrainingLoop second(end);
        TrainingLoop::Hooks e = counting(end);
        e.epochLoss = [](const LoopPosition&) -> std::optional<double> { return std::numeric_limits<double>::infinity(); };
        QCOMPARE(second.run(TrainingLoop::epochs(2, 2), e), LoopEnd::Diverged);
        QCOMPARE(end.points.size(), std::size_t(1));
        QVERIFY(end.logs.back().find("epoch's loss") != std::string::npos);
    }

    void anInterruptedEpochLossEndsWithoutACheckpoint()
    {
        RecordingHost host;
        TrainingLoop loop(host);
        TrainingLoop::Hooks h = counting(host);
        h.epochLoss = [](const LoopPosition&) -> std::optional<double> { return std::nullopt; };
        QCOMPARE(loop.run(TrainingLoop::epochs(2, 2), h), LoopEnd::Stopped);
        QVERIFY(host.points.empty());
    }

    void aFinishedAlgorithmEndsTheLoop()
    {
        RecordingHost host;
        TrainingLoop loop(host);
        TrainingLoop::Hooks h = counting(host);
        h.step = [&](const LoopPosition& at) {
            ++host.steps;
            return StepResult{1.0, 1.0, false, at.step == 3};
        };
        QCOMPARE(loop.run(TrainingLoop::epochs(5, 4), h), LoopEnd::Completed);
        QCOMPARE(host.steps, 3);
        QCOMPARE(host.points.size(), std::size_t(1));
        QCOMPARE(host.points[0].epoch, 0.75);
        QCOMPARE(std::string(loopEndName(LoopEnd::EarlyStopped)), std::string("early stopped"));
    }
};

QTEST_GUILESS_MAIN(TestTrainingLoop)
#include "tst_trainingloop.moc"
