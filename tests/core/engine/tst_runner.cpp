#include <store/BuildInfo.h>
#include <data/DataSource.h>
#include <numerics/LaneExp.h>
#include <engine/ExperimentRunner.h>
#include <engine/PluginRegistry.h>
#include <engine/PreparedConfiguration.h>
#include <store/RunStore.h>
#include <engine/Runner.h>

#include <FixtureSlices.h>
#include <QJsonArray>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QtTest>
#include <StopMeter.h>
#include <trainbench/LockstepTrainer.h>
#include <trainbench/Seeds.h>
#include <trainbench/testing/TestRunContext.h>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <tbb/task_arena.h>
#include <thread>

using namespace tb;
using tb::testsupport::fixtureCounter;
using tb::testsupport::fixtureSliceCounter;
using tb::testsupport::runAndStop;
using tb::testsupport::StopWhen;

namespace {
std::shared_ptr<const data::DatasetPair> moons()
{
    return std::make_shared<const data::DatasetPair>(data::DataSource::load(
        QJsonObject{{"source", "moons"}, {"samples", 200}, {"noise", 0.1}}, QString(), data::DataOverrides{{}, 3}));
}

RunJob job(const QString& id, QVariantMap params, std::uint64_t seed = 1)
{
    RunJob j;
    j.algorithmId = id;
    j.label = id;
    j.params = std::move(params);
    j.seed = seed;
    j.data = moons();
    j.datasetDescription = "moons";
    j.threads = 2;
    return j;
}

ExperimentSpec parse(const QByteArray& json)
{
    QString err;
    auto s = ExperimentSpec::fromJson(json, "test", &err);
    if (!s)
        qFatal("%s", qPrintable(err));
    return *s;
}

/// Stops an experiment once @p after units (runs, or sweep cells × algorithms) are done.
class StopAfter : public ExperimentObserver {
public:
    StopAfter(ExperimentRunner& runner, int after) : m_runner(runner), m_after(after) {}
    void progress(int done, int) override
    {
        if (done >= m_after)
            m_runner.requestStop();
    }

private:
    ExperimentRunner& m_runner;
    int m_after;
};

/// Holds a run at its first evaluated checkpoint — inside fit(), so that it counts as training —
/// until release() (or a minute, so that a failing test cannot hang). Two runs overlap when the
/// second starts while the first is held: an event to wait for, where a sleep before the second
/// run is outlasted by a first run that a busy machine starts late.
class HoldAtFirstCheckpoint : public RunObserver {
public:
    void modelReady(const RunJob&, const Trainer&, const MetricPoint&, const QJsonObject&, bool final) override
    {
        std::unique_lock lock(m_mutex);
        if (final || m_held)
            return;
        m_held = true;
        m_changed.notify_all();
        m_changed.wait_for(lock, std::chrono::minutes(1), [&] { return m_released; });
    }
    /// Waits until the run is held (at most a minute); false when it never was.
    bool waitUntilHeld()
    {
        std::unique_lock lock(m_mutex);
        return m_changed.wait_for(lock, std::chrono::minutes(1), [&] { return m_held; });
    }
    void release()
    {
        std::lock_guard lock(m_mutex);
        m_released = true;
        m_changed.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_held = false, m_released = false;
};

/// Requests Stop of an experiment at its first checkpoint: the run is then stopped while it
/// trains, whenever the machine lets it start.
class StopAtFirstCheckpoint : public ExperimentObserver {
public:
    explicit StopAtFirstCheckpoint(ExperimentRunner& runner) : m_runner(runner) {}
    void checkpointLogged(const RunJob&, qint64, const MetricPoint&) override { m_runner.requestStop(); }

private:
    ExperimentRunner& m_runner;
};

/// Every checkpoint's metrics of the stored runs of @p experimentId, keyed by (algorithm, repeat,
/// sweep cell): what must not depend on how the experiment was split up.
QMap<QString, QList<double>> storedMetrics(const RunStore& store, qint64 experimentId)
{
    QMap<QString, QList<double>> out;
    for (const RunRecord& r : store.runs(experimentId)) {
        const QString key = QStringLiteral("%1/%2/%3/%4")
                                .arg(r.algorithmId, r.algorithmName)
                                .arg(r.repeat)
                                .arg(r.info.value("sweep_cell").toObject().value("index").toInt(-1));
        QList<double> v{double(int(r.status)), double(r.seed)};
        for (const MetricPoint& p : store.metrics(r.id))
            v << p.seq << p.epoch << p.loss << p.trainAccuracy << p.testAccuracy << p.trainRmse << p.testRmse;
        out.insert(key, v);
    }
    return out;
}

bool sameNumbers(const QList<double>& a, const QList<double>& b)
{
    if (a.size() != b.size())
        return false;
    for (int i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))))
            return false;
    return true;
}
} // namespace

class TestRunner : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_reg;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR});
        QVERIFY(m_reg.algorithm("test.sleepy"));
        QVERIFY(m_reg.algorithm("linear.ridge"));
    }

    void stopIsHonouredWithin200ms()
    {
        // test.sleepy works in 10 ms slices and polls Stop between them. Stop once it has slept
        // 15 slices: the run is cancelled, and after the flag at most the slice under way and
        // one that began as the count was read run — counted, not timed, so a busy machine
        // cannot fail it (tests/support/StopMeter.h).
        const auto slices = fixtureSliceCounter(TB_TEST_PLUGIN_DIR);
        StopSource stop;
        Runner runner(m_reg, nullptr);
        const long long s0 = slices();
        long long atStop = 0;
        const StopWhen when{.cpuMs = 0, .ready = [&] { return slices() - s0 >= 15; }, .readyCpuMs = 1e9,
                            .beforeStop = [&] { atStop = slices(); }};
        const auto r = runAndStop(stop, when, [&] {
            return runner.execute(job("test.sleepy", {{"epochs", 10000}, {"epoch_ms", 1000}}), stop);
        });
        QVERIFY(!r.endedBeforeStop);
        QCOMPARE(r.value.status, RunStatus::Cancelled);
        QVERIFY2(slices() - atStop <= 2, qPrintable(QString("%1 slices after Stop").arg(slices() - atStop)));
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
    }

    void stopDuringAPredictionCancelsWithoutAPartialPoint()
    {
        // test.slowpredict's every evaluation takes 100 slices of 10 ms but answers Stop with no
        // rows: Stop during the first one cancels the run, not fails it for a wrong shape, logs
        // no point, and at most two slices run after the flag (see above).
        const auto slices = fixtureSliceCounter(TB_TEST_PLUGIN_DIR);
        StopSource stop;
        Runner runner(m_reg, nullptr);
        const long long s0 = slices();
        long long atStop = 0;
        const StopWhen when{.cpuMs = 0, .ready = [&] { return slices() - s0 >= 30; }, .readyCpuMs = 1e9,
                            .beforeStop = [&] { atStop = slices(); }};
        const auto r = runAndStop(stop, when, [&] {
            return runner.execute(job("test.slowpredict", {{"epochs", 100}, {"epoch_ms", 1000}}), stop);
        });
        QVERIFY(!r.endedBeforeStop);
        QVERIFY2(r.value.status == RunStatus::Cancelled, qPrintable(runStatusName(r.value.status) + ": " + r.value.error));
        QVERIFY(r.value.points.isEmpty());
        QVERIFY2(slices() - atStop <= 2, qPrintable(QString("%1 slices after Stop").arg(slices() - atStop)));
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
    }

    void exceptionMarksRunFailedWithMessage()
    {
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("test.throws", {}), stop);
        QCOMPARE(r.status, RunStatus::Failed);
        QCOMPARE(r.error, QStringLiteral("deliberate failure at epoch 2"));
        QCOMPARE(r.points.size(), 1); // the checkpoint before the failure is kept
    }

    void nonFinitePredictionsMarkRunDiverged()
    {
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("test.diverge", {{"epochs", 10}}), stop);
        QCOMPARE(r.status, RunStatus::Diverged);
        QVERIFY2(r.error.contains("epoch 3"), qPrintable(r.error));
        QCOMPARE(r.points.size(), 3); // stopped at the first non-finite checkpoint
    }

    void reservedFactKeysAreRefused()
    {
        // A trainer recording a fact the host records itself fails loudly instead of silently
        // overwriting (or being overwritten by) the host's value.
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("test.reserved", {}), stop);
        QCOMPARE(r.status, RunStatus::Failed);
        QVERIFY2(r.error.contains("\"measured_seconds\"") && r.error.contains("reserved"), qPrintable(r.error));
        tb::testing::TestRunContext ctx;
        QVERIFY_THROWS_EXCEPTION(std::logic_error, ctx.record("predicted_cost", 1.0));
        ctx.record("my_fact", 1.0);
        QCOMPARE(ctx.records.value("my_fact").toDouble(), 1.0);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, ctx.record("git_hash", "x"));
    }

    void everyRunNamesTheBuildThatTrainedIt()
    {
        // A resumed experiment's later runs may come from a later build than its row names: each
        // run's facts name its own.
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("test.mean", {}), stop);
        QCOMPARE(r.status, RunStatus::Finished);
        QCOMPARE(r.info.value("git_hash").toString(), tb::gitHash());
        QVERIFY(!tb::gitHash().isEmpty());
    }

    void peakMemoryIsMeasured()
    {
        // test.memory touches 64 MiB and holds it until fit() returns. The measured growth must
        // cover those pages and not much else. Slack: Linux ≥ 6.2 keeps RSS in per-CPU
        // counters read approximately (batches of ≥ 32 pages per CPU), so ±2 MiB; above, 8 MiB
        // for the evaluation of 200 rows, TBB's and malloc's own pages and huge-page rounding.
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("test.memory", {{"alloc_mb", 64}}), stop);
        QCOMPARE(r.status, RunStatus::Finished);
        const qint64 mib = qint64(1) << 20;
        QVERIFY2(r.peakMemoryBytes >= 62 * mib && r.peakMemoryBytes <= 72 * mib,
                 qPrintable(QString::number(r.peakMemoryBytes)));
        QCOMPARE(qint64(r.info.value("peak_memory_bytes").toDouble()), r.peakMemoryBytes);
        // Freed memory that malloc kept from the last run does not hide the next run's growth.
        const RunResult again = Runner(m_reg, nullptr).execute(job("test.memory", {{"alloc_mb", 64}}), stop);
        QVERIFY2(again.peakMemoryBytes >= 62 * mib, qPrintable(QString::number(again.peakMemoryBytes)));
        const RunResult small = Runner(m_reg, nullptr).execute(job("test.memory", {{"alloc_mb", 0}}), stop);
        QVERIFY2(small.peakMemoryBytes >= 0 && small.peakMemoryBytes < 8 * mib,
                 qPrintable(QString::number(small.peakMemoryBytes)));
    }

    void overlappingRunsAreNotMeasured()
    {
        // Two runs training at once in one process share the high-water mark: neither may
        // claim a number; both say why in their log.
        // The quick run trains from start to end while the slow one is held inside its fit().
        StopSource stop;
        Runner runner(m_reg, nullptr);
        HoldAtFirstCheckpoint hold;
        auto slow = std::async(std::launch::async, [&] {
            return runner.execute(job("test.sleepy", {{"epochs", 2}, {"epoch_ms", 10}}), stop, &hold);
        });
        const auto releaseSlow = qScopeGuard([&] { hold.release(); }); // also when a check fails
        QVERIFY2(hold.waitUntilHeld(), "the slow run never reached its first checkpoint");
        const RunResult quick = runner.execute(job("test.memory", {{"alloc_mb", 8}}), stop);
        hold.release();
        const RunResult first = slow.get();
        for (const RunResult* r : {&quick, &first}) {
            QCOMPARE(r->status, RunStatus::Finished);
            QCOMPARE(r->peakMemoryBytes, qint64(-1));
            QVERIFY(!r->info.contains("peak_memory_bytes"));
            QVERIFY2(QJsonDocument(r->info.value("log").toArray()).toJson().contains("another run"),
                     qPrintable(QJsonDocument(r->info).toJson()));
        }
        // A run that does not measure still counts as training (noise-sweep cells).
        RunJob unmeasured = job("test.sleepy", {{"epochs", 2}, {"epoch_ms", 10}});
        unmeasured.measureMemory = false;
        HoldAtFirstCheckpoint cellHold;
        auto cell = std::async(std::launch::async, [&] { return runner.execute(unmeasured, stop, &cellHold); });
        const auto releaseCell = qScopeGuard([&] { cellHold.release(); });
        QVERIFY2(cellHold.waitUntilHeld(), "the cell never reached its first checkpoint");
        QCOMPARE(runner.execute(job("test.memory", {{"alloc_mb", 1}}), stop).peakMemoryBytes, qint64(-1));
        cellHold.release();
        // It was not measured by design: nothing in its log says another run spoilt a measurement.
        QVERIFY(!QJsonDocument(cell.get().info.value("log").toArray()).toJson().contains("another run"));
    }

    void invalidParametersFailCleanly()
    {
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("linear.ridge", {{"ridge", "big"}}), stop);
        QCOMPARE(r.status, RunStatus::Failed);
        QVERIFY2(r.error.contains("ridge"), qPrintable(r.error));
        // A bad value under a former key names both spellings.
        const RunResult old = Runner(m_reg, nullptr).execute(job("linear.ridge", {{"lambda", "big"}}), stop);
        QCOMPARE(old.status, RunStatus::Failed);
        QVERIFY2(old.error.contains("\"gram_ridge\"") && old.error.contains("\"lambda\""), qPrintable(old.error));
    }

    void formerParameterSpellingsRunWithANote()
    {
        // Experiment files written before the parameter names were unified keep running: the
        // former spelling is upgraded, the run's log says so, the stored parameters are current.
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("linear.ridge", {{"lambda", 0.5}, {"relative", true}}), stop);
        QCOMPARE(r.status, RunStatus::Finished);
        QCOMPARE(r.params.value("relative_ridge").toDouble(), 0.5);
        QCOMPARE(r.params.value("ridge").toDouble(), 0.0);
        QVERIFY(!r.params.contains("lambda"));
        const QString log = r.info.value("log").toVariant().toStringList().join('\n');
        QVERIFY2(log.contains("deprecated") && log.contains("relative_ridge"), qPrintable(log));
        // A current run gives the same numbers as the upgraded one.
        const RunResult now = Runner(m_reg, nullptr).execute(job("linear.ridge", {{"relative_ridge", 0.5}}), stop);
        QCOMPARE(now.last.trainRmse, r.last.trainRmse);
        QVERIFY(!now.info.contains("log"));
    }

    void sameSeedSameMetrics()
    {
        StopSource stop;
        tbb::task_arena arena(2);
        RunResult a, b, c;
        arena.execute([&] {
            a = Runner(m_reg, nullptr).execute(job("test.noise", {{"epochs", 4}}, 11), stop);
            b = Runner(m_reg, nullptr).execute(job("test.noise", {{"epochs", 4}}, 11), stop);
            c = Runner(m_reg, nullptr).execute(job("test.noise", {{"epochs", 4}}, 12), stop);
        });
        QCOMPARE(a.points.size(), 4);
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(a.points[i].trainAccuracy, b.points[i].trainAccuracy);
            QCOMPARE(a.points[i].testAccuracy, b.points[i].testAccuracy);
        }
        bool differs = false;
        for (int i = 0; i < 4; ++i)
            differs = differs || a.points[i].trainAccuracy != c.points[i].trainAccuracy;
        QVERIFY(differs);
    }

    void trainingClockExcludesEvaluation()
    {
        // test.sleepy sleeps 50 ms per epoch; the clock must add up to about that, and the
        // times must be increasing.
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("test.sleepy", {{"epochs", 3}, {"epoch_ms", 50}}), stop);
        QCOMPARE(r.status, RunStatus::Finished);
        QCOMPARE(r.points.size(), 3);
        QVERIFY(r.points[0].trainTime >= 0.045 && r.points[1].trainTime > r.points[0].trainTime);
    }

    void trainingClockIsReportedToObservers()
    {
        // An observer keeping a clock of its own (bench/support: CPU time) must see the host's
        // clock start before fit(), stop before every checkpoint's evaluation and after fit().
        // The model comes while the clock is stopped: what an observer does with it — the
        // teaching view draws it and holds each epoch for its pace — is no training time.
        class Events : public RunObserver {
        public:
            QStringList seen;
            void trainingClock(const RunJob&, bool running) override { seen << (running ? "on" : "off"); }
            void checkpointLogged(const RunJob&, qint64, const MetricPoint&) override { seen << "point"; }
            void modelReady(const RunJob&, const Trainer&, const MetricPoint&, const QJsonObject&, bool final) override
            {
                seen << (final ? "final model" : "model");
            }
        } events;
        StopSource stop;
        RunResult r;
        tbb::task_arena(2).execute(
            [&] { r = Runner(m_reg, nullptr).execute(job("test.noise", {{"epochs", 3}}), stop, &events); });
        QCOMPARE(r.status, RunStatus::Finished);
        QCOMPARE(r.points.size(), 3);
        QCOMPARE(events.seen, QStringList({"on", "off", "point", "model", "on", "off", "point", "model", "on", "off",
                                           "point", "model", "on", "off", "final model"}));

        // Checkpoints that are not evaluated (noise-sweep cells): the clock still pauses, and the
        // final point and model come after the last stop.
        Events cells;
        RunJob cell = job("test.noise", {{"epochs", 2}});
        cell.evaluateCheckpoints = false;
        tbb::task_arena(2).execute([&] { r = Runner(m_reg, nullptr).execute(cell, stop, &cells); });
        QCOMPARE(r.status, RunStatus::Finished);
        QCOMPARE(cells.seen, QStringList({"on", "off", "on", "off", "on", "off", "point", "final model"}));
    }

    void learningCurveLogsReproducibleRuns()
    {
        QString err;
        auto store = RunStore::open(m_dir.filePath("lc.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        ExperimentRunner runner(m_reg, store.get());
        const ExperimentSpec spec = parse(R"({"name": "lc", "kind": "learning-curve", "repeats": 2, "seed": 5, "threads": 2,
            "dataset": {"source": "moons", "samples": 300, "noise": 0.1},
            "algorithms": [{"id": "linear.ridge", "params": {"ridge": 0.01}}, {"id": "test.noise", "params": {"epochs": 3}}]})");
        const ExperimentResult res = runner.run(spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QCOMPARE(res.curves.size(), 2);
        QCOMPARE(res.curves[0].repeats.size(), 2);
        QCOMPARE(res.runsFinished, 4);
        // Linear least squares separates two moons well above chance (85 % is typical).
        QVERIFY(res.curves[0].repeats[0].last().trainAccuracy > 0.8);
        const auto runs = store->runs(res.experimentId);
        QCOMPARE(runs.size(), 4);
        for (const auto& r : runs) {
            QCOMPARE(r.status, RunStatus::Finished);
            QCOMPARE(r.threads, 2);
            QVERIFY(!r.pluginVersion.isEmpty());
            QVERIFY(!r.appVersion.isEmpty());
            QVERIFY(r.params.contains("epochs") || r.params.contains("ridge"));
        }
        QCOMPARE(runs[0].seed, runs[2].seed);      // repeat 0 of both algorithms: paired
        QVERIFY(runs[0].seed != runs[1].seed);     // repeats differ
        QCOMPARE(store->metrics(runs[3].id).size(), 3);
        const auto exp = store->experiment(res.experimentId);
        QVERIFY(exp);
        QCOMPARE(exp->spec.value("seed").toInt(), 5);
    }

    void anytimeLaddersStoreOneTimedCheckpointPerSolve()
    {
        // A single-shot learner with a tolerance ladder: one checkpoint per complete solve, each
        // timed alone (Checkpoint::restartClock, listed in "clock_restarts"), so the points' times
        // add up to at most the run's training time — cumulative times would add up to more.
        StopSource stop;
        for (const auto& [id, ladder] : {std::pair<QString, QVariantList>{"liblinear.classify", {0.1, 0.01, 0.001}},
                                         std::pair<QString, QVariantList>{"libsvm.classify", {0.1, 0.001}}}) {
            const RunResult r = Runner(m_reg, nullptr).execute(job(id, {{"tolerance_ladder", ladder}}), stop);
            QVERIFY2(r.status == RunStatus::Finished, qPrintable(id + ": " + r.error));
            QCOMPARE(r.points.size(), ladder.size());
            QJsonArray restarts;
            double sum = 0;
            for (int i = 0; i < r.points.size(); ++i) {
                QCOMPARE(r.points[i].epoch, double(i + 1));
                QVERIFY(r.points[i].trainTime > 0);
                QVERIFY(r.points[i].testAccuracy > 0.5); // every rung is a whole model
                sum += r.points[i].trainTime;
                restarts.append(i);
            }
            QCOMPARE(r.info.value("clock_restarts").toArray(), restarts);
            QVERIFY2(sum <= r.trainSeconds * (1 + 1e-12), qPrintable(QString("%1: %2 > %3").arg(id).arg(sum).arg(r.trainSeconds)));
        }
        // Conjugate-gradient iterates of ridge: an iterate's cost is the run's time up to it (no
        // restarts): cumulative, non-decreasing times.
        const RunResult cg = Runner(m_reg, nullptr).execute(job("linear.ridge", {{"iteration_ladder", QVariantList{1, 2, 5}}}), stop);
        QVERIFY2(cg.status == RunStatus::Finished, qPrintable(cg.error));
        QCOMPARE(cg.points.size(), 3);
        QVERIFY(!cg.info.contains("clock_restarts"));
        QVERIFY(cg.points[0].trainTime <= cg.points[1].trainTime && cg.points[1].trainTime <= cg.points[2].trainTime);
        // A ladder that does not tighten is refused, naming the parameter.
        const RunResult bad = Runner(m_reg, nullptr).execute(job("liblinear.classify", {{"tolerance_ladder", QVariantList{0.01, 0.1}}}), stop);
        QCOMPARE(bad.status, RunStatus::Failed);
        QVERIFY2(bad.error.contains("tolerance_ladder") && bad.error.contains("decreasing"), qPrintable(bad.error));
    }

    void validationIsMeasuredAtEveryCheckpointAndStored()
    {
        // A data set with a validation split: every checkpoint carries the validation metric,
        // which reaches the store and reads back; without one, it is NaN (not 0).
        QString err;
        auto store = RunStore::open(m_dir.filePath("val.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        ExperimentRunner runner(m_reg, store.get());
        const ExperimentSpec spec = parse(R"({"name": "val", "kind": "learning-curve", "seed": 5, "threads": 2,
            "dataset": {"source": "moons", "samples": 300, "validation_fraction": 0.3},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 3}}]})");
        const ExperimentResult res = runner.run(spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        const QVector<MetricPoint>& pts = res.curves[0].repeats[0];
        QCOMPARE(pts.size(), 3);
        for (const MetricPoint& p : pts) {
            QVERIFY(p.validationAccuracy >= 0 && p.validationAccuracy <= 1);
            QVERIFY(std::isnan(p.validationRmse));
        }
        const auto stored = store->metrics(res.curves[0].runIds[0]);
        QCOMPARE(stored.size(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(stored[i].validationAccuracy, pts[i].validationAccuracy);
        const auto runs = store->runs(res.experimentId);
        QCOMPARE(runs[0].info.value("final").toObject().value("validation_accuracy").toDouble(), pts.last().validationAccuracy);
        // Without a split: NaN, stored as NULL.
        const ExperimentResult plain = runner.run(parse(R"({"name": "plain", "kind": "learning-curve", "threads": 2,
            "dataset": {"source": "moons", "samples": 300}, "algorithms": [{"id": "test.noise", "params": {"epochs": 2}}]})"));
        for (const MetricPoint& p : store->metrics(plain.curves[0].runIds[0]))
            QVERIFY(std::isnan(p.validationAccuracy));
    }

    void firstRepeatReRunsOneStoredRunExactly()
    {
        // The GUI's "Re-run" of repeat r is {"repeats": 1, "first_repeat": r}: same seed, same
        // data, so the same metrics (training times aside).
        ExperimentRunner runner(m_reg, nullptr);
        const QByteArray base = R"({"kind": "learning-curve", "seed": 9, "threads": 1,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.2},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 4}}], )";
        const ExperimentResult all = runner.run(parse(base + R"("repeats": 3})"));
        const ExperimentResult one = runner.run(parse(base + R"("repeats": 1, "first_repeat": 2})"));
        QCOMPARE(all.curves[0].repeats.size(), 3);
        QCOMPARE(one.curves[0].repeats.size(), 1);
        const auto& a = all.curves[0].repeats[2];
        const auto& b = one.curves[0].repeats[0];
        QCOMPARE(a.size(), b.size());
        for (int i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].trainAccuracy, b[i].trainAccuracy);
            QCOMPARE(a[i].testAccuracy, b[i].testAccuracy);
            QCOMPARE(a[i].loss, b[i].loss);
        }
        // A different repeat index gives a different seed and so different numbers.
        QVERIFY(all.curves[0].repeats[1].last().trainAccuracy != b.last().trainAccuracy);
        QString err;
        QVERIFY(!ExperimentSpec::fromJson(R"({"kind": "noise-sweep", "first_repeat": 1, "dataset": {"source": "bpls_toy", "function": "linear"},
            "algorithms": [{"id": "linear.ridge"}], "sweep": {"sigma": [0], "monte_carlo": 1}})", "t", &err));
        QVERIFY2(err.contains("first_repeat"), qPrintable(err));
    }

    void stoppedLearningCurveLeavesCancelledRun()
    {
        QString err;
        auto store = RunStore::open(m_dir.filePath("cancel.sqlite"), &err);
        QVERIFY(store);
        ExperimentRunner runner(m_reg, store.get());
        const ExperimentSpec spec = parse(R"({"kind": "learning-curve", "threads": 1, "dataset": {"source": "moons"},
            "algorithms": [{"id": "test.sleepy", "params": {"epochs": 1000, "epoch_ms": 100}}]})");
        StopAtFirstCheckpoint stopper(runner);
        const ExperimentResult res = runner.run(spec, &stopper);
        QVERIFY(res.cancelled);
        const auto runs = store->runs(res.experimentId);
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs[0].status, RunStatus::Cancelled);
        QVERIFY(!store->metrics(runs[0].id).isEmpty()); // stopped while it trained, not before it began
    }

    void noiseSweepAggregatesCells()
    {
        QString err;
        auto store = RunStore::open(m_dir.filePath("sweep.sqlite"), &err);
        QVERIFY(store);
        ExperimentRunner runner(m_reg, store.get());
        const ExperimentSpec spec = parse(R"({"kind": "noise-sweep", "threads": 2, "seed": 3,
            "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.5], "monte_carlo": 20},
            "algorithms": [{"id": "linear.ridge", "label": "LS"}, {"id": "test.throws"}]})");
        const ExperimentResult res = runner.run(spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QCOMPARE(res.summary.size(), 4);
        const SummaryPoint& clean = res.summary[0];
        QCOMPARE(clean.x, 0.0);
        QCOMPARE(clean.count, 20);
        // The linear toy is exactly linear in x: with a bias, least squares fits it to rounding.
        QVERIFY(clean.trainRmseMean < 1e-9 && clean.testRmseMean < 1e-9);
        const SummaryPoint& noisy = res.summary[1];
        QVERIFY(noisy.trainRmseMean > 0.05 && noisy.testRmseStd > 0);
        QCOMPARE(res.summary[2].count, 0); // the failing algorithm contributes no cells
        QCOMPARE(res.runsFailed, 40);
        QVERIFY(!res.runErrors.isEmpty());
        QCOMPARE(store->summaryPoints(res.experimentId).size(), 4);
        const auto runs = store->runs(res.experimentId);
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs[0].status, RunStatus::Finished);
        QCOMPARE(runs[1].status, RunStatus::Failed);
        // The row that stands for an algorithm's cells records the build and CPU that trained
        // them (the cells themselves, which have no rows, do not: issue 43).
        for (const RunRecord& r : runs)
            for (const char* key : {"git_hash", "build", "cpu"})
                QVERIFY2(!r.info.value(QLatin1String(key)).toString().isEmpty(), key);

        // Same seed and threads: identical statistics.
        const ExperimentResult again = ExperimentRunner(m_reg, nullptr).run(spec);
        QCOMPARE(again.summary[1].trainRmseMean, noisy.trainRmseMean);
        QCOMPARE(again.summary[1].testRmseStd, noisy.testRmseStd);
    }

    void noiseSweepReportsEachSigmaOnceWhenItsCellsAreDone()
    {
        // A live chart needs points while the sweep runs: every (algorithm, σ) exactly once,
        // with the statistics the result ends with, and σ by σ (a σ's points together).
        struct Spy : ExperimentObserver {
            std::mutex m;
            QList<SummaryPoint> points;
            QList<int> progressAtPoint;
            std::atomic<int> lastProgress{0};
            void progress(int done, int) override { lastProgress = done; }
            void summaryPointReady(const SummaryPoint& p) override
            {
                std::lock_guard lock(m);
                points << p;
                progressAtPoint << lastProgress.load();
            }
        } spy;
        const ExperimentSpec spec = parse(R"({"kind": "noise-sweep", "threads": 2, "seed": 5,
            "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.2, 0.4, 0.6, 0.8, 1.0], "monte_carlo": 40},
            "algorithms": [{"id": "linear.ridge", "label": "A"}, {"id": "linear.ridge", "label": "B", "params": {"lambda": 1}}]})");
        const ExperimentResult res = ExperimentRunner(m_reg, nullptr).run(spec, &spy);
        QCOMPARE(res.summary.size(), 12);
        QCOMPARE(spy.points.size(), 12);
        // Reported before the end: the first σ's points arrive before all 480 runs are done.
        QVERIFY2(spy.progressAtPoint.first() < 480, qPrintable(QString::number(spy.progressAtPoint.first())));
        for (int i = 0; i < spy.points.size(); i += 2) {
            QCOMPARE(spy.points[i].x, spy.points[i + 1].x); // both algorithms of one σ together
            QCOMPARE(spy.points[i].algorithmName, QStringLiteral("A"));
        }
        for (const SummaryPoint& live : spy.points) {
            const auto it = std::find_if(res.summary.begin(), res.summary.end(), [&](const SummaryPoint& p) {
                return p.algorithmName == live.algorithmName && p.x == live.x;
            });
            QVERIFY(it != res.summary.end());
            QCOMPARE(live.count, 40);
            QCOMPARE(live.trainRmseMean, it->trainRmseMean);
            QCOMPARE(live.testRmseStd, it->testRmseStd);
        }
    }

    void storedSpecNamesDataFilesByAbsolutePath()
    {
        // A re-run from the database must find the same files wherever it is started from.
        QTemporaryDir dir;
        QFile csv(dir.filePath("d.csv"));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("x,y\n");
        for (int i = 0; i < 20; ++i)
            csv.write(QByteArray::number(i) + "," + QByteArray::number(2 * i + 1) + "\n");
        csv.close();
        QString err;
        auto spec = ExperimentSpec::fromJson(R"({"kind": "learning-curve", "dataset": {"source": "csv", "file": "d.csv",
            "target": "y", "task": "regression", "test_fraction": 0.25}, "algorithms": [{"id": "linear.ridge"}]})", "t", &err);
        QVERIFY2(spec, qPrintable(err));
        spec->baseDir = dir.path();
        auto store = RunStore::open(m_dir.filePath("paths.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        const ExperimentResult res = ExperimentRunner(m_reg, store.get()).run(*spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        const auto rec = store->experiment(res.experimentId);
        QVERIFY(rec);
        QCOMPARE(rec->spec.value("dataset").toObject().value("file").toString(), QDir(dir.path()).filePath("d.csv"));
        const QJsonObject generator{{"source", "moons"}};
        QCOMPARE(data::DataSource::withAbsolutePaths(generator, dir.path()), generator); // generators are unchanged
    }

    // A configuration's parameters are read once (PreparedConfiguration, issue 44): the checks, the
    // memory check, the cost prediction and every run of it share one preparation and one create()
    // of the plugin; each run trains a fresh() copy. The offsets are this test's own, so that no
    // other test has prepared the same configurations in this process before.
    void eachConfigurationIsPreparedOnce_data()
    {
        QTest::addColumn<QByteArray>("spec");
        QTest::addColumn<int>("configurations");
        QTest::addColumn<int>("runs");
        QTest::newRow("learning curve") << QByteArray(R"({"name": "once-lc", "kind": "learning-curve", "repeats": 4, "seed": 7,
            "threads": 2, "dataset": {"source": "moons", "samples": 120, "noise": 0.2},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 2, "offset": 0.0101}},
                           {"id": "test.mean", "params": {"offset": 0.0102}}]})") << 2 << 8;
        // The grid's three configurations, and the algorithm's own parameters, which the
        // experiment's checks read as given.
        QTest::newRow("param sweep") << QByteArray(R"({"name": "once-ps", "kind": "param-sweep", "seed": 4, "threads": 2,
            "dataset": {"source": "friedman1", "samples": 120},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 2, "offset": 0.0201}}],
            "repeats": 2, "sweep": {"grid": {"offset": [0.0202, 0.0203, 0.0204]}}})") << 4 << 6;
        // Six cells (one run row, were there a store).
        QTest::newRow("noise sweep") << QByteArray(R"({"name": "once-ns", "kind": "noise-sweep", "seed": 3, "threads": 2,
            "dataset": {"source": "bpls_toy", "function": "linear"}, "sweep": {"sigma": [0, 0.5], "monte_carlo": 3},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 2, "offset": 0.0301}}]})") << 1 << 6;
    }
    void eachConfigurationIsPreparedOnce()
    {
        QFETCH(QByteArray, spec);
        QFETCH(int, configurations);
        QFETCH(int, runs);
        const auto creates = fixtureCounter(TB_TEST_PLUGIN_DIR, "tb_test_creates");
        const auto copies = fixtureCounter(TB_TEST_PLUGIN_DIR, "tb_test_fresh");
        const long long c0 = creates(), f0 = copies();
        const std::uint64_t p0 = PreparedConfiguration::preparations();
        const ExperimentSpec s = parse(spec);
        QVERIFY2(s.validate(m_reg).isEmpty(), qPrintable(s.validate(m_reg).join("\n")));
        const ExperimentResult res = ExperimentRunner(m_reg, nullptr).run(s);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QCOMPARE(res.runsFinished, runs);
        QCOMPARE(qint64(PreparedConfiguration::preparations() - p0), qint64(configurations));
        QCOMPARE(creates() - c0, qint64(configurations));
        // One copy per run, and a noise sweep's one look at whether its algorithm trains in lock step.
        QCOMPARE(copies() - f0, qint64(runs + (s.kind == "noise-sweep" ? 1 : 0)));
    }

    void resumeRunsOnlyTheCellsThatDidNotFinish_data()
    {
        QTest::addColumn<QByteArray>("spec");
        QTest::addColumn<int>("stopAfter");
        QTest::newRow("learning curve") << QByteArray(R"({"name": "resume-lc", "kind": "learning-curve", "repeats": 3, "seed": 7, "threads": 2,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.2},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 3}}, {"id": "linear.ridge"}]})") << 2;
        QTest::newRow("param sweep") << QByteArray(R"({"name": "resume-ps", "kind": "param-sweep", "seed": 4, "threads": 2,
            "dataset": {"source": "friedman1", "samples": 120},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 2}}],
            "repeats": 2, "sweep": {"grid": {"epochs": [1, 2, 3]}}})") << 3;
        QTest::newRow("noise sweep") << QByteArray(R"({"name": "resume-ns", "kind": "noise-sweep", "seed": 3, "threads": 2,
            "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.5, 1], "monte_carlo": 6},
            "algorithms": [{"id": "linear.ridge"}, {"id": "test.noise", "params": {"epochs": 2}}]})") << 10;
        // The trials are cells of their own (trial-major); the final runs follow the choice.
        QTest::newRow("tuned comparison") << QByteArray(R"({"name": "resume-tc", "kind": "tuned-comparison", "format": 2, "seed": 6, "threads": 2,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.2, "validation_fraction": 0.25},
            "algorithms": [{"id": "test.noise", "search": {"epochs": {"integer": [1, 5]}}},
                           {"id": "linear.ridge", "search": {"ridge": {"log_uniform": [0.001, 10]}}}],
            "tuning": {"trials": 5, "seed": 3}, "final": {"seeds": 2}})") << 5;
        QTest::newRow("tuned comparison, stopped in its final runs") << QByteArray(R"({"name": "resume-tf", "kind": "tuned-comparison", "format": 2, "seed": 6, "threads": 2,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.2, "validation_fraction": 0.25},
            "algorithms": [{"id": "test.noise", "search": {"epochs": {"integer": [1, 5]}}},
                           {"id": "linear.ridge", "search": {"ridge": {"log_uniform": [0.001, 10]}}}],
            "tuning": {"trials": 5, "seed": 3}, "final": {"seeds": 2}})") << 12;
        // Successive halving: stopped in rung 1 (12 trials at rung 0; test.noise promotes 3 to rung 1,
        // linear.ridge has no epochs to halve), resumed to the same promotions.
        QTest::newRow("tuned comparison with successive halving") << QByteArray(R"({"name": "resume-th", "kind": "tuned-comparison", "format": 2, "seed": 6, "threads": 2,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.2, "validation_fraction": 0.25},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 8}, "search": {"offset": {"uniform": [0, 0.3]}}},
                           {"id": "linear.ridge", "search": {"ridge": {"log_uniform": [0.001, 10]}}}],
            "tuning": {"trials": 6, "seed": 3, "halving": {"eta": 2, "min_fraction": 0.25}}, "final": {"seeds": 2}})") << 14;
        // gradient.adam trains its cells in lock step (packs of 8 and 3), test.noise one by one.
        QTest::newRow("noise sweep in lock step") << QByteArray(R"({"name": "resume-ls", "kind": "noise-sweep", "seed": 8, "threads": 2,
            "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.5, 1], "monte_carlo": 11},
            "algorithms": [{"id": "gradient.adam", "params": {"epochs": 30, "hidden": [3], "activation": "identity", "init": "uniform"}},
                           {"id": "test.noise", "params": {"epochs": 2}}]})") << 20;
    }

    void resumeBesideAnotherLiveProcessIsRefused()
    {
        // Issue 50, item 2: an experiment whose run another live process is training (a run or a
        // resume of it in another trainbench) is not resumed here: that would delete its live run
        // and train its cells twice. Once that process is gone its run reads as interrupted, and
        // the resume goes ahead.
        const ExperimentSpec s = parse(R"({"name": "claimed", "kind": "learning-curve", "repeats": 3, "seed": 7, "threads": 1,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.2},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 3}}]})");
        QString err;
        const QString path = m_dir.filePath("claimed.sqlite");
        auto store = RunStore::open(path, &err);
        QVERIFY2(store, qPrintable(err));
        ExperimentRunner runner(m_reg, store.get());
        StopAfter stop(runner, 1);
        const ExperimentResult first = runner.run(s, &stop);
        QVERIFY(first.cancelled);
        QVERIFY(store->flush());
        // A live process of this host and boot takes the last run over, as if it trained it now.
        QProcess other;
        other.start(QStringLiteral("sleep"), {QStringLiteral("60")});
        QVERIFY(other.waitForStarted());
        qint64 ticks = 0;
        bool zombie = false;
        QVERIFY(RunStoreOwner::readProcStat(other.processId(), &ticks, &zombie));
        const qint64 taken = store->runs(first.experimentId).last().id;
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("claim"));
            raw.setDatabaseName(path);
            QVERIFY(raw.open());
            QSqlQuery q(raw);
            QVERIFY2(q.exec(QStringLiteral("UPDATE runs SET status = 'running', owner_pid = %1, owner_start = %2 WHERE id = %3")
                                .arg(other.processId())
                                .arg(ticks)
                                .arg(taken)),
                     qPrintable(q.lastError().text()));
            raw.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("claim"));
        const int rowsBefore = int(store->runs(first.experimentId).size());
        const ExperimentResult refused = runner.resume(s, first.experimentId);
        QVERIFY2(refused.error.contains(QStringLiteral("another process (pid %1").arg(other.processId())) &&
                     refused.error.contains(QStringLiteral("is training its run %1 now").arg(taken)) &&
                     refused.error.contains(path),
                 qPrintable(refused.error));
        QCOMPARE(int(store->runs(first.experimentId).size()), rowsBefore); // nothing deleted, nothing added
        other.kill();
        other.waitForFinished();
        const ExperimentResult resumed = runner.resume(s, first.experimentId);
        QVERIFY2(resumed.error.isEmpty(), qPrintable(resumed.error));
        QCOMPARE(resumed.runsFinished, 3);
    }

    void aResumeWaitsForTheClaimOfALiveProcess()
    {
        // Issue 50, item 2: an experiment claimed by another live process (a run or a resume of it,
        // between its runs or before its first) is not resumed; the claim of a process that has
        // died is taken over; the experiment's own run and resume claim and release it.
        const ExperimentSpec s = parse(R"({"name": "claim", "kind": "learning-curve", "repeats": 2, "seed": 5, "threads": 1,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.2},
            "algorithms": [{"id": "test.noise", "params": {"epochs": 2}}]})");
        QString err;
        const QString path = m_dir.filePath("claim.sqlite");
        auto store = RunStore::open(path, &err);
        QVERIFY2(store, qPrintable(err));
        ExperimentRunner runner(m_reg, store.get());
        StopAfter stop(runner, 1);
        const ExperimentResult first = runner.run(s, &stop);
        QVERIFY(first.cancelled);
        QVERIFY(store->flush());
        auto claimOf = [&] {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("claim-read"));
            raw.setDatabaseName(path);
            QString c = QStringLiteral("(unreadable)");
            if (raw.open()) {
                QSqlQuery q(raw);
                if (q.exec(QStringLiteral("SELECT claim FROM experiments WHERE id = %1").arg(first.experimentId)) && q.next())
                    c = q.value(0).toString();
                q.finish();
                raw.close();
            }
            raw = QSqlDatabase();
            QSqlDatabase::removeDatabase(QStringLiteral("claim-read"));
            return c;
        };
        QCOMPARE(claimOf(), QString()); // released when the run ended
        QProcess other;
        other.start(QStringLiteral("sleep"), {QStringLiteral("60")});
        QVERIFY(other.waitForStarted());
        qint64 ticks = 0;
        bool zombie = false;
        QVERIFY(RunStoreOwner::readProcStat(other.processId(), &ticks, &zombie));
        const RunStoreOwner& me = RunStoreOwner::current();
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("claim"));
            raw.setDatabaseName(path);
            QVERIFY(raw.open());
            QSqlQuery q(raw);
            q.prepare(QStringLiteral("UPDATE experiments SET claim = ? WHERE id = ?"));
            q.addBindValue(QStringLiteral("%1\t%2\t%3\t%4").arg(me.host, me.bootId).arg(other.processId()).arg(ticks));
            q.addBindValue(first.experimentId);
            QVERIFY2(q.exec(), qPrintable(q.lastError().text()));
            q.finish();
            raw.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("claim"));
        const int rowsBefore = int(store->runs(first.experimentId).size());
        QString holder;
        QVERIFY(!store->claimExperiment(first.experimentId, &holder));
        QCOMPARE(holder, QStringLiteral("pid %1 on %2").arg(other.processId()).arg(me.host));
        const ExperimentResult refused = runner.resume(s, first.experimentId);
        QVERIFY2(refused.error.contains(QStringLiteral("another process (pid %1 on %2) is running or resuming it now")
                                            .arg(other.processId())
                                            .arg(me.host)),
                 qPrintable(refused.error));
        QCOMPARE(int(store->runs(first.experimentId).size()), rowsBefore);
        other.kill();
        other.waitForFinished();
        const ExperimentResult resumed = runner.resume(s, first.experimentId); // a dead claim is taken over
        QVERIFY2(resumed.error.isEmpty(), qPrintable(resumed.error));
        QCOMPARE(resumed.runsFinished, 2);
        QVERIFY(store->flush());
        QCOMPARE(claimOf(), QString());
    }

    void noiseSweepLockstepCellsAreTheCellsAlone()
    {
        // The gradient methods fit a σ's Monte-Carlo cells in lock step (11 cells: packs of 8 and
        // 3); every stored cell must be what Runner::execute gives for that cell alone — status,
        // epochs, loss, train and test RMSE — including cells that diverge (SGD at η = 0.06: most, not all) and
        // next to an algorithm without the capability (test.noise) and BPLS-like one-by-one ones.
        if (!m_reg.algorithm("gradient.adam"))
            QSKIP("the gradient plugin is not built");
        const QByteArray json = R"({"kind": "noise-sweep", "threads": 2, "seed": 9,
            "dataset": {"source": "bpls_toy", "function": "nonlinear"},
            "sweep": {"sigma": [0, 0.5], "monte_carlo": 11},
            "algorithms": [
              {"id": "gradient.adam", "params": {"epochs": 40, "hidden": [3], "activation": "sigmoid", "output_activation": "sigmoid", "init": "uniform", "init_low": -1, "init_high": 1}},
              {"id": "gradient.sgd", "params": {"epochs": 40, "lr": 0.06, "hidden": [3], "activation": "identity", "init": "uniform", "init_low": -1, "init_high": 1}},
              {"id": "test.noise", "params": {"epochs": 2}},
              {"id": "linear.ridge"},
              {"id": "gradient.rmsprop", "params": {"epochs": 40, "hidden": [3], "activation": "tanh", "init": "uniform"}}]})";
        const ExperimentSpec spec = parse(json);
        // The gradient methods do offer lock step for these cells.
        const auto probe = data::DataSource::load(spec.dataset, spec.baseDir, data::DataOverrides{0.0, 1});
        Runner runner(m_reg, nullptr);
        for (int a : {0, 1, 4}) {
            RunJob job;
            job.algorithmId = spec.algorithms[a].id;
            job.params = spec.algorithms[a].params;
            QString err;
            const std::unique_ptr<Trainer> t = runner.createTrainer(job, &err);
            const auto* l = dynamic_cast<const LockstepTrainer*>(t.get());
            QVERIFY2(l, qPrintable(err));
            QVERIFY(l->lockstepWidth(ProblemShape{probe.train.rows(), probe.train.inputs(), probe.train.outputs(),
                                                  probe.train.task}) >= 2);
        }
        QString err;
        auto store = RunStore::open(m_dir.filePath("lockstep.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        const ExperimentResult res = ExperimentRunner(m_reg, store.get()).run(spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QVERIFY(store->flush());
        const auto runs = store->runs(res.experimentId);
        QCOMPARE(runs.size(), spec.algorithms.size());
        int finished = 0, notFinished = 0, diverged = 0;
        for (int a = 0; a < int(spec.algorithms.size()); ++a) {
            const RunRecord& run = runs[a];
            QMap<int, MetricPoint> stored;
            for (const MetricPoint& p : store->metrics(run.id))
                stored.insert(p.seq, p);
            for (int cell = 0; cell < 22; ++cell) {
                RunJob job;
                job.algorithmId = spec.algorithms[a].id;
                job.params = spec.algorithms[a].params;
                job.seed = deriveSeed(spec.seed, std::uint64_t(cell));
                job.sigma = spec.toJson().value("sweep").toObject().value("sigma").toArray().at(cell / 11).toDouble();
                job.data = std::make_shared<const data::DatasetPair>(data::DataSource::load(
                    spec.dataset, spec.baseDir, data::DataOverrides{job.sigma, job.seed}));
                job.evaluateCheckpoints = false;
                job.logToStore = false;
                job.measureMemory = false;
                job.threads = 2;
                const RunResult ref = runner.execute(job, StopSource());
                const QString at = QStringLiteral("%1 cell %2").arg(job.algorithmId).arg(cell);
                QCOMPARE(stored.contains(cell), ref.status == RunStatus::Finished);
                if (ref.status != RunStatus::Finished) {
                    ++notFinished;
                    diverged += ref.status == RunStatus::Diverged;
                    continue;
                }
                ++finished;
                const MetricPoint& p = stored[cell];
                QVERIFY2(sameNumbers({p.epoch, p.loss, p.trainRmse, p.testRmse},
                                     {ref.last.epoch, ref.last.loss, ref.last.trainRmse, ref.last.testRmse}),
                         qPrintable(at));
            }
        }
        QCOMPARE(res.runsFinished, finished);
        QCOMPARE(res.runsFailed, notFinished);
        QVERIFY2(diverged > 0 && diverged < 22, qPrintable(QString::number(diverged)));  // SGD: some cells alone
        // Each algorithm's row says which path its cells took: packs of 8 for the gradient
        // methods (the lanes this build compiles to), one by one for the others.
        for (int a : {0, 1, 4}) {
            QCOMPARE(runs[a].info.value("lock_step_width").toInt(), num::kLanes);
            QCOMPARE(runs[a].info.value("lock_step_lanes").toString(), QString::fromLatin1(num::kLanesInstructionSet));
            QCOMPARE(runs[a].info.value("lock_step_exp").toString(), QString::fromLatin1(num::laneExpPath()));
        }
        for (int a : {2, 3}) {
            QCOMPARE(runs[a].info.value("lock_step_width").toInt(-1), 0);
            QVERIFY(!runs[a].info.contains("lock_step_lanes"));
            QVERIFY(!runs[a].info.contains("lock_step_exp"));
        }
    }

    void resumeRunsOnlyTheCellsThatDidNotFinish()
    {
        // A stopped experiment resumed into the same row ends with exactly the rows and numbers
        // of one uninterrupted run; the runs that had finished are kept, not trained again.
        QFETCH(QByteArray, spec);
        QFETCH(int, stopAfter);
        const ExperimentSpec s = parse(spec);
        QString err;
        auto whole = RunStore::open(m_dir.filePath(QString("whole-%1.sqlite").arg(QTest::currentDataTag())), &err);
        auto split = RunStore::open(m_dir.filePath(QString("split-%1.sqlite").arg(QTest::currentDataTag())), &err);
        QVERIFY2(whole && split, qPrintable(err));
        const ExperimentResult reference = ExperimentRunner(m_reg, whole.get()).run(s);
        QVERIFY2(reference.error.isEmpty(), qPrintable(reference.error));

        ExperimentRunner runner(m_reg, split.get());
        QCOMPARE(ExperimentRunner::resumable(*split, s, &err), -1); // nothing stored yet
        QVERIFY2(err.contains("nothing to resume") && err.contains(split->path()), qPrintable(err));
        StopAfter stop(runner, stopAfter);
        const ExperimentResult first = runner.run(s, &stop);
        QVERIFY(first.cancelled);
        QVERIFY(first.runsFinished < reference.runsFinished);
        QVERIFY(split->flush());
        QList<qint64> keptIds;
        for (const RunRecord& r : split->runs(first.experimentId))
            if (r.status == RunStatus::Finished)
                keptIds << r.id;

        err.clear();
        const qint64 id = ExperimentRunner::resumable(*split, s, &err);
        QCOMPARE(id, first.experimentId);
        // A corrected description is still the same experiment; another setting is not.
        ExperimentSpec reworded = s;
        reworded.description = QStringLiteral("the same settings, described anew");
        QCOMPARE(ExperimentRunner::resumable(*split, reworded, &err), id);
        ExperimentSpec reseeded = s;
        reseeded.seed = s.seed + 1;
        QCOMPARE(ExperimentRunner::resumable(*split, reseeded, &err), -1);
        const ExperimentResult resumed = runner.resume(s, id);
        QVERIFY2(resumed.error.isEmpty(), qPrintable(resumed.error));
        QVERIFY2(resumed.storeError.isEmpty(), qPrintable(resumed.storeError));
        QVERIFY(!resumed.cancelled);
        QCOMPARE(resumed.experimentId, first.experimentId);
        QCOMPARE(resumed.runsFinished, reference.runsFinished);
        QCOMPARE(resumed.runsCancelled, 0);
        QVERIFY(split->flush());
        QCOMPARE(split->experiments().size(), 1);
        QList<qint64> ids;
        for (const RunRecord& r : split->runs(id))
            ids << r.id;
        for (qint64 kept : keptIds)
            QVERIFY2(ids.contains(kept), "a finished run was trained again");
        // The same rows and numbers as the uninterrupted run (training times aside).
        QCOMPARE(split->runs(id).size(), whole->runs(reference.experimentId).size());
        const auto a = storedMetrics(*whole, reference.experimentId), b = storedMetrics(*split, id);
        QCOMPARE(b.keys(), a.keys());
        for (const QString& k : a.keys())
            QVERIFY2(sameNumbers(a[k], b[k]), qPrintable(k));
        QCOMPARE(resumed.summary.size(), reference.summary.size());
        for (int i = 0; i < reference.summary.size(); ++i) {
            QCOMPARE(resumed.summary[i].count, reference.summary[i].count);
            QCOMPARE(resumed.summary[i].trainRmseMean, reference.summary[i].trainRmseMean);
            QCOMPARE(resumed.summary[i].testRmseStd, reference.summary[i].testRmseStd);
        }
        QCOMPARE(split->summaryPoints(id).size(), reference.summary.size());
        // A complete experiment resumes to itself: nothing runs, nothing changes.
        const ExperimentResult again = runner.resume(s, id);
        QCOMPARE(again.runsFinished, reference.runsFinished);
        QVERIFY(split->flush());
        QVERIFY(sameNumbers(storedMetrics(*split, id).value(a.firstKey()), a.first()));
    }

    void noiseSweepStoppedInsideACellResumes()
    {
        // Stop can come between two algorithms of one cell: the stored sweep then has some
        // algorithms' rows of that cell and not the others'. Resuming trains only the missing
        // ones — storing a kept one again would break its metric row's key (run, seq), which
        // stopped the resumed sweep with a database error before — and ends with one
        // uninterrupted run's rows and numbers. Lock-step packs with kept cells in them included.
        if (!m_reg.algorithm("gradient.adam"))
            QSKIP("the gradient plugin is not built");
        const ExperimentSpec s = parse(R"({"name": "resume-mid-cell", "kind": "noise-sweep", "seed": 6, "threads": 2,
            "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.5], "monte_carlo": 11},
            "algorithms": [{"id": "linear.ridge"},
                           {"id": "gradient.adam", "params": {"epochs": 20, "hidden": [3], "activation": "identity", "init": "uniform"}},
                           {"id": "test.noise", "params": {"epochs": 2}}]})");
        QString err;
        const QString splitPath = m_dir.filePath("mid-cell-split.sqlite");
        auto whole = RunStore::open(m_dir.filePath("mid-cell-whole.sqlite"), &err);
        auto split = RunStore::open(splitPath, &err);
        QVERIFY2(whole && split, qPrintable(err));
        const ExperimentResult reference = ExperimentRunner(m_reg, whole.get()).run(s);
        QVERIFY2(reference.error.isEmpty(), qPrintable(reference.error));
        const ExperimentResult first = ExperimentRunner(m_reg, split.get()).run(s);
        QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
        QVERIFY(split->flush());
        const QList<RunRecord> runs = split->runs(first.experimentId);
        QCOMPARE(runs.size(), 3);
        split.reset();
        // The state a Stop inside cells leaves: cell 3 has only ridge's row, cell 4 lacks Adam's,
        // cell 5 lacks ridge's, cell 12 (σ = 0.5) lacks Adam's.
        {
            const QString name = QStringLiteral("mid-cell");
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(splitPath);
                QVERIFY(db.open());
                QSqlQuery q(db);
                const QList<QPair<int, int>> drop{{1, 3}, {2, 3}, {1, 4}, {0, 5}, {1, 12}};
                for (const auto& [a, cell] : drop)
                    QVERIFY2(q.exec(QStringLiteral("DELETE FROM metrics WHERE run_id = %1 AND seq = %2")
                                        .arg(runs[a].id)
                                        .arg(cell)) &&
                                 q.numRowsAffected() == 1,
                             qPrintable(q.lastError().text()));
            }
            QSqlDatabase::removeDatabase(name);
        }
        split = RunStore::open(splitPath, &err);
        QVERIFY2(split, qPrintable(err));
        const ExperimentResult resumed = ExperimentRunner(m_reg, split.get()).resume(s, first.experimentId);
        QVERIFY2(resumed.error.isEmpty(), qPrintable(resumed.error));
        QVERIFY2(resumed.storeError.isEmpty(), qPrintable(resumed.storeError));  // no write refused
        QCOMPARE(resumed.runsFinished, reference.runsFinished);
        QVERIFY(split->flush());
        const auto a = storedMetrics(*whole, reference.experimentId), b = storedMetrics(*split, first.experimentId);
        QCOMPARE(b.keys(), a.keys());
        for (const QString& k : a.keys())
            QVERIFY2(sameNumbers(a[k], b[k]), qPrintable(k));
        QCOMPARE(resumed.summary.size(), reference.summary.size());
        for (int i = 0; i < reference.summary.size(); ++i) {
            QCOMPARE(resumed.summary[i].count, reference.summary[i].count);
            QCOMPARE(resumed.summary[i].trainRmseMean, reference.summary[i].trainRmseMean);
            QCOMPARE(resumed.summary[i].testRmseStd, reference.summary[i].testRmseStd);
        }
    }

    void badDataFailsTheExperimentNotTheProcess()
    {
        ExperimentRunner runner(m_reg, nullptr);
        const ExperimentSpec spec = parse(R"({"kind": "learning-curve", "dataset": {"source": "csv", "file": "/nonexistent/x.csv", "target": "y", "task": "regression", "test_fraction": 0.2},
            "algorithms": [{"id": "linear.ridge"}]})");
        const ExperimentResult res = runner.run(spec);
        QVERIFY2(res.error.contains("/nonexistent/x.csv"), qPrintable(res.error));
    }
};

QTEST_GUILESS_MAIN(TestRunner)
#include "tst_runner.moc"
