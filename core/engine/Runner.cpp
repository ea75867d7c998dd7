#include "Runner.h"

#include <store/BuildInfo.h>

#include "CostPrediction.h"
#include "HostBudget.h"
#include "MemoryCheck.h"
#include "PeakMemory.h"
#include "PluginRegistry.h"
#include "PreparedConfiguration.h"
#include <store/RunLog.h>

#include <numerics/Metrics.h>
#include <data/MemoryBudget.h>
#include <trainbench/RunContext.h>
#include <trainbench/SparseTrainer.h>
#include <trainbench/Trainer.h>

#include <QJsonArray>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <new>
#include <optional>

#ifndef TB_APP_VERSION
#define TB_APP_VERSION "0.0.0"
#endif

namespace tb {
namespace {

using Clock = std::chrono::steady_clock;

// Runs in fit() in this process, and how often one started while another trained: a run on the
// cpu clock counts the process's CPU time, its own only when it trained alone (PeakMemory tells
// overlaps apart the same way).
std::atomic<int> g_training{0};
std::atomic<quint64> g_overlaps{0};

class TrainingMark {
public:
    TrainingMark()
    {
        if (g_training.fetch_add(1) > 0) {
            g_overlaps.fetch_add(1);
            m_alone = false;
        }
        m_overlaps = g_overlaps.load();
    }
    ~TrainingMark() { g_training.fetch_sub(1); }
    TrainingMark(const TrainingMark&) = delete;
    TrainingMark& operator=(const TrainingMark&) = delete;
    /// Another run trained in the process at some time since this mark.
    bool overlapped() const { return !m_alone || g_overlaps.load() != m_overlaps; }

private:
    bool m_alone = true;
    quint64 m_overlaps = 0;
};

enum class Evaluation {
    Finite,     ///< every prediction finite: the point is complete
    NonFinite,  ///< some prediction is NaN/Inf: the run diverged
    Interrupted ///< Stop reached predict() (it returned no rows): no point
};

// Fills the metrics of @p p from the trainer's predictions. A trainer whose prediction is long
// may poll the run's stop token inside predict() and return an empty matrix once it fires
// (docs/plugin-guide.md, "Stop"): that evaluation is Interrupted, never a shape error.
// The trainer's outputs for @p set's rows: predictSparse() on sparse inputs (only a SparseTrainer
// is ever given them), predict() on dense ones.
Eigen::MatrixXd predictOn(const Trainer& trainer, const data::Dataset& set)
{
    if (!set.isSparse())
        return trainer.predict(set.x);
    const auto* sparse = dynamic_cast<const SparseTrainer*>(&trainer);
    if (!sparse)
        throw std::logic_error("sparse inputs reached a trainer that is not a SparseTrainer");
    return sparse->predictSparse(set.xSparse);
}

Evaluation evaluate(const Trainer& trainer, const data::DatasetPair& d, MetricPoint& p, const StopSource& stop)
{
    auto interrupted = [&](const Eigen::MatrixXd& pred, const data::Dataset& set) {
        return pred.rows() == 0 && set.rows() > 0 && stop.stopRequested();
    };
    const Eigen::MatrixXd trainPred = predictOn(trainer, d.train);
    if (interrupted(trainPred, d.train))
        return Evaluation::Interrupted;
    const Eigen::MatrixXd testPred = d.test.rows() > 0 ? predictOn(trainer, d.test) : Eigen::MatrixXd();
    if (interrupted(testPred, d.test))
        return Evaluation::Interrupted;
    const Eigen::MatrixXd valPred = d.hasValidation() ? predictOn(trainer, d.validation) : Eigen::MatrixXd();
    if (interrupted(valPred, d.validation))
        return Evaluation::Interrupted;
    auto shapeCheck = [](const Eigen::MatrixXd& pred, const data::Dataset& set, const char* which) {
        if (pred.rows() != set.y.rows() || pred.cols() != set.y.cols())
            throw std::runtime_error(QStringLiteral("predict() on the %1 set returned %2x%3, expected %4x%5")
                                         .arg(which)
                                         .arg(pred.rows()).arg(pred.cols())
                                         .arg(set.y.rows()).arg(set.y.cols())
                                         .toStdString());
    };
    shapeCheck(trainPred, d.train, "training");
    if (d.test.rows() > 0)
        shapeCheck(testPred, d.test, "test");
    if (d.hasValidation())
        shapeCheck(valPred, d.validation, "validation");
    const bool finite = trainPred.allFinite() && testPred.allFinite() && valPred.allFinite();
    if (d.train.task == Task::Classification) {
        p.trainAccuracy = num::accuracy(trainPred, d.train.y);
        if (d.test.rows() > 0)
            p.testAccuracy = num::accuracy(testPred, d.test.y);
        if (d.hasValidation())
            p.validationAccuracy = num::accuracy(valPred, d.validation.y);
    } else {
        // Standardised targets ("standardise_targets"): RMSE in the targets' own units.
        p.trainRmse = num::rmse(d.train.targetsInOriginalUnits(trainPred), d.train.targetsInOriginalUnits(d.train.y));
        if (d.test.rows() > 0)
            p.testRmse = num::rmse(d.test.targetsInOriginalUnits(testPred), d.test.targetsInOriginalUnits(d.test.y));
        if (d.hasValidation())
            p.validationRmse = num::rmse(d.validation.targetsInOriginalUnits(valPred),
                                         d.validation.targetsInOriginalUnits(d.validation.y));
    }
    return finite ? Evaluation::Finite : Evaluation::NonFinite;
}

// The RunContext a trainer sees: owns the training clock and the budget's clock.
class RunExecution final : public RunContext {
public:
    RunExecution(const RunJob& job, const StopSource& stop, RunLog* store, RunObserver* observer, qint64 runId)
        : m_job(job), m_stop(&stop), m_store(store), m_observer(observer), m_runId(runId), m_cpu(ClockKind::Cpu)
    {
    }

    /// The trainer, and the data it trains and is evaluated on (the job's, or their dense copy).
    void attach(Trainer* t, const data::DatasetPair& data)
    {
        m_trainer = t;
        m_data = &data;
    }
    /// The budget checked at checkpoints: the job's, or the one its parameters gave.
    void setBudget(const RunBudget& b) { m_budget = b; }
    const RunBudget& budget() const { return m_budget; }
    void startClock()
    {
        if (m_observer)
            m_observer->trainingClock(m_job, true);
        m_t0 = Clock::now();
        m_running = true;
        if (m_budget.clock == ClockKind::Cpu || m_job.measureCpu)
            m_cpu.start();
    }
    void stopClock()
    {
        m_elapsed += std::chrono::duration<double>(Clock::now() - m_t0).count();
        m_running = false;
        m_cpu.pause();
        if (m_observer)
            m_observer->trainingClock(m_job, false);
    }
    /// The run's whole training time: every solve of a ladder (the budget's and the final fact's).
    double elapsed() const { return m_elapsed; }
    /// The process's CPU time while the run trained (RunJob::measureCpu or a cpu budget; else 0).
    double cpuSeconds() const { return m_cpu.elapsed(); }
    /// The run's clock, which its checkpoints' times are on: the budget's clock — the process's
    /// CPU time with a cpu budget (immune to other jobs on the machine), else the training clock.
    /// Read while the clock is stopped (at a checkpoint, after fit()).
    double clockTime() const { return m_budget.clock == ClockKind::Cpu ? m_cpu.elapsed() : m_elapsed; }
    /// Seconds the budget's clock counted: the training clock (wall) or the process's CPU time
    /// while the run trained (checkpoints left out either way).
    double budgetUsed() const
    {
        if (m_budget.clock == ClockKind::Cpu)
            return m_cpu.elapsed();
        return m_elapsed + (m_running ? std::chrono::duration<double>(Clock::now() - m_t0).count() : 0.0);
    }
    bool budgetSpent() const override { return m_budget.isSet() && budgetUsed() >= m_budget.seconds; }
    /// The training time of the model fit() left: since the solve of its last checkpoint began
    /// (Checkpoint::restartClock), so the run's time when the trainer never restarted the clock.
    double modelSeconds() const { return clockTime() - m_lastSolveStart; }

    std::uint64_t seed() const override { return m_job.seed; }
    int threads() const override { return m_job.threads; }
    // The experiment's Stop, or this run's own end (time budget, divergence).
    StopToken stopToken() const override { return m_stop.token(); }

    CheckpointAction checkpoint(const Checkpoint& cp) override
    {
        // A checkpoint that evaluates nothing (a noise-sweep cell) and whose time nothing reads —
        // no observer, no budget, no clock restart — leaves the training clock running: it is a
        // few counters, and the two clock reads were 5 % of a toy sweep of 1000 checkpoints a run.
        const bool timed = m_job.evaluateCheckpoints || m_observer || m_budget.isSet() || cp.restartClock;
        if (timed)
            stopClock();
        if (!m_job.evaluateCheckpoints) {
            m_lastEpoch = cp.epoch;
            m_checkpoints++;
            if (std::isinf(cp.loss))
                markDiverged(cp.epoch, "loss is infinite");
        } else {
            MetricPoint p;
            p.seq = int(m_points.size());
            p.epoch = cp.epoch;
            p.trainTime = clockTime() - m_solveStart; // this solve's time alone after a restart
            p.loss = cp.loss;
            const Evaluation e = evaluate(*m_trainer, *m_data, p, m_stop);
            if (e == Evaluation::Interrupted) {
                // Stop came during this checkpoint's evaluation: its point would be partial, so
                // the checkpoint does not count (the run is cancelled, not completed by it).
                startClock();
                return CheckpointAction::Stop;
            }
            m_lastEpoch = cp.epoch;
            m_checkpoints++;
            const bool finite = e == Evaluation::Finite && !std::isinf(cp.loss);
            m_points.append(p);
            if (m_store && m_runId >= 0)
                m_store->appendMetric(m_runId, p);
            if (m_observer)
                m_observer->checkpointLogged(m_job, m_runId, p);
            if (!finite)
                markDiverged(cp.epoch, "non-finite predictions or loss");
            else if (m_observer)
                m_observer->modelReady(m_job, *m_trainer, p, m_info, false); // clock still stopped
        }
        // The checkpoint counted: the model now is its solve's; a restart makes the next
        // point's time count from here. The budget keeps counting every solve.
        m_lastSolveStart = m_solveStart;
        if (cp.restartClock) {
            m_solveStart = clockTime();
            m_restarts.append(m_checkpoints - 1);
        }
        if (!cp.note.isEmpty())
            log(cp.note);
        // The budget, on its clock: the same check for every plugin, at every checkpoint.
        if (m_budget.isSet() && budgetUsed() >= m_budget.seconds) {
            m_budgetHit = true;
            m_stop.requestStop();
        }
        const bool stop = stopRequested();
        if (timed)
            startClock();
        return stop ? CheckpointAction::Stop : CheckpointAction::Continue;
    }

    /// Appends a point evaluated by the host after fit() and logs it like a checkpoint.
    void appendPoint(MetricPoint p)
    {
        p.seq = int(m_points.size());
        m_points.append(p);
        if (m_store && m_runId >= 0)
            m_store->appendMetric(m_runId, p);
        if (m_observer)
            m_observer->checkpointLogged(m_job, m_runId, p);
    }

    void record(const QString& key, const QJsonValue& value) override
    {
        // A trainer's own value would silently replace the host's: a plugin bug, made loud.
        if (reservedFactKeys().contains(key))
            throw std::logic_error(QStringLiteral("the trainer recorded the fact \"%1\", which the host records "
                                                  "itself (reserved: %2)")
                                       .arg(key, reservedFactKeys().join(", "))
                                       .toStdString());
        m_info.insert(key, value);
    }
    /// The host's own facts (reservedFactKeys()).
    void recordHostFact(const QString& key, const QJsonValue& value) { m_info.insert(key, value); }
    void log(const QString& message) override
    {
        if (m_log.size() < 200)
            m_log.append(message);
    }

    const QVector<MetricPoint>& points() const { return m_points; }
    QJsonObject info() const
    {
        QJsonObject i = m_info;
        if (!m_log.isEmpty())
            i.insert("log", m_log);
        if (!m_restarts.isEmpty())
            i.insert("clock_restarts", m_restarts);
        return i;
    }
    bool diverged() const { return m_diverged; }
    QString divergence() const { return m_divergence; }
    bool budgetHit() const { return m_budgetHit; }
    int checkpoints() const { return m_checkpoints; }
    double lastEpoch() const { return m_lastEpoch; }

    void markDiverged(double epoch, const char* what)
    {
        if (m_diverged)
            return;
        m_diverged = true;
        m_stop.requestStop();
        m_divergence = QStringLiteral("diverged at epoch %1: %2").arg(epoch).arg(QLatin1String(what));
    }

private:
    const RunJob& m_job;
    StopSource m_stop;  // a child of the experiment's source
    RunLog* m_store;
    RunObserver* m_observer;
    qint64 m_runId;
    const data::DatasetPair* m_data = nullptr;
    Trainer* m_trainer = nullptr;
    Clock::time_point m_t0;
    bool m_running = false;
    double m_elapsed = 0;
    RunBudget m_budget;
    RunClock m_cpu;
    double m_solveStart = 0;     // clockTime() when the current solve began (Checkpoint::restartClock)
    double m_lastSolveStart = 0; // the same for the solve of the last counted checkpoint
    QJsonArray m_restarts;       // checkpoints that restarted the clock ("clock_restarts")
    double m_lastEpoch = 0;
    int m_checkpoints = 0;
    bool m_budgetHit = false;
    bool m_diverged = false;
    QString m_divergence;
    QVector<MetricPoint> m_points;
    QJsonObject m_info;
    QJsonArray m_log;
};

// One run of Runner::execute, one step a method: the row opened and the facts known before
// training, the checks, the trainer's inputs (sparse as they are, or a dense copy), fit() on the
// clock, the final evaluation and facts, the run's status; finish() ends the run in every case.
class ExecutedRun {
public:
    // The configuration, prepared once for all its runs, and the run's row (a run row always
    // stores the complete parameters): the observer is told the run started.
    ExecutedRun(const Runner& runner, const PluginRegistry& registry, RunLog* store, const RunJob& job,
                const StopSource& stop, RunObserver* observer)
        : m_runner(runner), m_registry(registry), m_store(store), m_job(job), m_stop(stop), m_observer(observer),
          m_entry(registry.algorithm(job.algorithmId)), m_prepared(runner.preparedOf(job)),
          m_budget(m_prepared->budgetOr(job.budget)), m_ctx(job, stop, store, observer, openRow())
    {
    }

    // The budget, the build and the CPU, the notes of renamed ids and former spellings.
    void recordStartFacts()
    {
        m_ctx.setBudget(m_budget);
        if (m_budget.isSet())
            m_ctx.recordHostFact("time_budget", HostBudget::fact(m_budget));
        // The build and the CPU that train a stored run (machineFacts()). Cells without a row of
        // their own (a noise sweep's) skip them: their kind records them once in its row, and 77,000
        // toy-sweep cells would spend 2 % of their time writing facts they drop.
        if (m_job.logToStore) {
            const QJsonObject machine = Runner::machineFacts();
            for (auto it = machine.begin(); it != machine.end(); ++it)
                m_ctx.recordHostFact(it.key(), it.value());
        }
        if (const QString renamed = m_registry.renamedNote(m_job.algorithmId); !renamed.isEmpty())
            m_ctx.log(renamed);
        for (const QString& note : m_prepared->notes()) // former spellings, upgraded
            m_ctx.log(note);
    }

    // Why the run cannot start (an unknown algorithm, invalid parameters, no data); empty when it can.
    QString configurationProblem() const
    {
        if (!m_entry)
            return QStringLiteral("unknown algorithm \"%1\"").arg(m_job.algorithmId);
        if (!m_prepared->hasParams())
            return QStringLiteral("%1: %2").arg(m_job.algorithmId, m_prepared->error());
        if (!m_job.data)
            return QStringLiteral("no data");
        return {};
    }

    // Creates the trainer (or takes @p given) and trains it; an exception becomes a failed run.
    RunResult train(std::unique_ptr<Trainer> given)
    {
        // A combination the schema cannot express failed in create(): when the file used former
        // spellings, the message also says what they are now called.
        std::unique_ptr<Trainer> trainer = std::move(given);
        if (!trainer) {
            QString error;
            trainer = m_prepared->newTrainer(&error);
            if (!trainer)
                return finish(RunStatus::Failed, error);
        }
        try {
            return trainWith(*trainer);
        } catch (const std::bad_alloc&) {
            // A bare "std::bad_alloc" tells the user nothing: say what was being built.
            m_ctx.stopClock();
            const data::Dataset& train = m_job.data->train;
            return finish(RunStatus::Failed,
                          QStringLiteral("out of memory while %1 trained on %2×%3 → %4 data (std::bad_alloc): its "
                                         "parameters (e.g. hidden layer sizes) or the data need more memory than is free")
                              .arg(m_job.algorithmId)
                              .arg(train.rows())
                              .arg(train.inputs())
                              .arg(train.outputs()));
        } catch (const std::exception& e) {
            m_ctx.stopClock();
            return finish(RunStatus::Failed, QString::fromUtf8(e.what()));
        } catch (...) {
            m_ctx.stopClock();
            return finish(RunStatus::Failed, QStringLiteral("unknown exception"));
        }
    }

    // Ends the run with @p status: the result and its final facts, the row finished, the observer told.
    RunResult finish(RunStatus status, const QString& error)
    {
        m_result.status = status;
        m_result.error = error;
        m_result.points = m_ctx.points();
        m_result.trainSeconds = m_ctx.elapsed();
        m_result.info = m_ctx.info();
        if (!m_result.points.isEmpty())
            m_result.last = m_result.points.last();
        QJsonObject fin;
        auto put = [&](const char* k, double v) {
            if (std::isfinite(v))
                fin.insert(k, v);
        };
        put("train_accuracy", m_result.last.trainAccuracy);
        put("test_accuracy", m_result.last.testAccuracy);
        put("train_rmse", m_result.last.trainRmse);
        put("test_rmse", m_result.last.testRmse);
        put("validation_accuracy", m_result.last.validationAccuracy);
        put("validation_rmse", m_result.last.validationRmse);
        put("loss", m_result.last.loss);
        put("epochs", m_result.last.epoch);
        fin.insert("train_seconds", m_result.trainSeconds);
        if (m_job.measureCpu)
            fin.insert("train_cpu_seconds", m_ctx.cpuSeconds());
        m_result.info.insert("final", fin);
        for (auto it = m_job.hostFacts.begin(); it != m_job.hostFacts.end(); ++it)
            m_result.info.insert(it.key(), it.value());
        const QJsonObject replaced = Runner::replacementFact(m_entry);
        for (auto it = replaced.begin(); it != replaced.end(); ++it)
            m_result.info.insert(it.key(), it.value());
        if (m_store && m_result.runId >= 0)
            m_store->finishRun(m_result.runId, status, error, m_result.info);
        if (m_observer)
            m_observer->runFinished(m_job, m_result);
        return m_result;
    }

private:
    // Creates the run's row (when it is stored) and tells the observer; returns its id (−1: none).
    qint64 openRow()
    {
        m_result.params = m_prepared->hasParams() ? m_prepared->params() : m_job.params;
        if (m_store && m_job.logToStore) {
            RunRecord rec = m_runner.record(m_job);
            rec.params = m_result.params;
            m_result.runId = m_store->createRun(rec);
        }
        if (m_observer)
            m_observer->runStarted(m_job, m_result.runId);
        return m_result.runId;
    }

    // The run once its trainer exists: inputs checked and prepared, fit(), evaluation, facts, status.
    RunResult trainWith(Trainer& trainer)
    {
        // Sparse inputs go as they are to a trainer that takes them, and as a dense copy to any
        // other — made only once the run is known to fit, the copy included.
        const data::DatasetPair* sets = m_job.data.get();
        const ProblemShape given = CostPrediction::shapeOf(sets->train);
        const bool densify = MemoryCheck::needsDensifying(m_registry, m_job.algorithmId, given);
        const ProblemShape shape = MemoryCheck::shapeSeenBy(m_registry, m_job.algorithmId, given);
        if (given.isSparse() && !densify && !dynamic_cast<SparseTrainer*>(&trainer))
            return finish(RunStatus::Failed, QStringLiteral("plugin \"%1\" says %2 takes sparse inputs, but its trainer is "
                                                            "not a tb::SparseTrainer (SparseTrainer.h)")
                                                 .arg(m_entry->plugin->id, m_job.algorithmId));
        const QJsonObject cost = predictCost(trainer, shape);
        // What cannot fit is refused before fit() allocates it (the experiment checked before its
        // first run; memory may have gone since, or the run is not part of one).
        if (const QString refusal = MemoryCheck::refusal(
                m_registry, MemoryCheck::Demand{m_job.label, m_job.algorithmId, m_result.params, shape, 1},
                CostPrediction(cost));
            !refusal.isEmpty())
            return finish(RunStatus::Failed, refusal);
        std::optional<data::DatasetPair> dense;
        if (densify) {
            if (const QString refusal = makeDense(*sets, given, dense); !refusal.isEmpty())
                return finish(RunStatus::Failed, refusal);
            sets = &*dense;
        }
        m_ctx.attach(&trainer, *sets);
        const data::Dataset& train = sets->train;
        const DatasetView view = train.view();

        // Memory: measured around fit() and the host's evaluations, outside nothing else the
        // run needs; or only registered, so that a measured run elsewhere sees the overlap.
        std::optional<PeakMemory> memory;
        std::optional<PeakMemory::Guard> training;
        if (m_job.measureMemory)
            memory.emplace();
        else
            training.emplace();
        fit(trainer, view);
        evaluateFinalModel(trainer, *sets);
        if (!cost.isEmpty())
            m_ctx.recordHostFact("measured_seconds", m_ctx.elapsed());
        recordMemory(memory);
        return conclude(trainer);
    }

    // The trainer's predicted cost for @p shape, recorded and told to the observer. The prediction
    // is for the run's row and the observer; a noise-sweep cell has neither (its algorithm's
    // prediction is made once for all cells).
    QJsonObject predictCost(const Trainer& trainer, const ProblemShape& shape)
    {
        QJsonObject cost = m_job.logToStore || m_observer ? trainer.predictCost(shape) : QJsonObject();
        if ((m_job.logToStore || m_observer) && std::isnan(CostPrediction(cost).memoryBytes())) {
            // Not silently: the run, its row and the CLI say that nothing was checked.
            const QString why = QStringLiteral("%1 states no working memory (its Trainer::predictCost() has no "
                                               "\"memory_bytes\"): the run started without the memory check "
                                               "before allocation")
                                    .arg(m_job.algorithmId);
            m_ctx.log(why);
            cost.insert("memory_unchecked", why);
        }
        if (!cost.isEmpty()) {
            cost.insert("shape", CostPrediction::describeShape(shape)); // the shape it was predicted for
            m_ctx.recordHostFact("predicted_cost", cost);
            if (m_observer)
                m_observer->costPredicted(m_job, m_result.runId, cost);
        }
        return cost;
    }

    // The dense copy of @p sets (shape @p given) into @p dense, logged and recorded; or why it
    // does not fit in memory (then nothing is copied).
    QString makeDense(const data::DatasetPair& sets, const ProblemShape& given, std::optional<data::DatasetPair>& dense)
    {
        const std::uint64_t bytes = sets.train.denseBytes() + sets.test.denseBytes() + sets.validation.denseBytes();
        if (const QString refusal = MemoryCheck::densifyRefusal(m_registry, m_job.label, m_job.algorithmId, given, bytes);
            !refusal.isEmpty())
            return refusal;
        dense.emplace();
        dense->train = sets.train.densified();
        dense->test = sets.test.densified();
        dense->validation = sets.validation.densified();
        dense->warnings = sets.warnings;
        m_ctx.log(QStringLiteral("sparse inputs made dense for %1, which takes dense inputs only: %2 (%3×%4, %5 "
                                 "non-zeros)")
                      .arg(m_job.algorithmId, data::MemoryBudget::formatBytes(bytes))
                      .arg(given.rows)
                      .arg(given.inputs)
                      .arg(given.nonZeros));
        m_ctx.recordHostFact("densified", QJsonObject{{"bytes", double(bytes)}, {"non_zeros", double(given.nonZeros)}});
        return {};
    }

    // fit() on the training clock, and the budget's fact: how much of it was used, and whether
    // another run shared the cpu clock.
    void fit(Trainer& trainer, const DatasetView& view)
    {
        std::optional<TrainingMark> mark(std::in_place);
        m_ctx.startClock();
        trainer.fit(view, m_ctx);
        m_ctx.stopClock();
        const bool overlapped = mark->overlapped();
        mark.reset();
        if (m_budget.isSet()) {
            QJsonObject fact = HostBudget::fact(m_budget);
            fact.insert("used", m_ctx.budgetUsed());
            if (m_budget.clock == ClockKind::Cpu && overlapped) {
                // The process's CPU time included another run's: this run's budget ran out early.
                fact.insert("shared", true);
                m_ctx.log(QStringLiteral("time budget: another run trained in this process at the same time, so the "
                                         "cpu clock counted its CPU time too (the budget was used up sooner)"));
            }
            m_ctx.recordHostFact("time_budget", fact);
        }
    }

    // A final evaluation when the trainer never checkpointed, or when checkpoints were not
    // evaluated (noise sweeps). (Not after a Stop that came before any checkpoint: there may be
    // no model yet.)
    void evaluateFinalModel(const Trainer& trainer, const data::DatasetPair& sets)
    {
        const bool stoppedEarly = m_stop.stopRequested() && m_ctx.checkpoints() == 0;
        if (!m_ctx.diverged() && !stoppedEarly && (m_ctx.points().isEmpty() || !m_job.evaluateCheckpoints)) {
            MetricPoint p;
            p.epoch = m_ctx.lastEpoch();
            p.trainTime = m_ctx.modelSeconds();
            const Evaluation e = evaluate(trainer, sets, p, m_stop);
            if (e == Evaluation::NonFinite)
                m_ctx.markDiverged(m_ctx.lastEpoch(), "non-finite predictions");
            if (e != Evaluation::Interrupted)
                m_ctx.appendPoint(p);
        }
    }

    // The peak memory fact of a measured run, or why it was not measured.
    void recordMemory(std::optional<PeakMemory>& memory)
    {
        if (memory) {
            QString why;
            m_result.peakMemoryBytes = memory->finish(&why);
            if (m_result.peakMemoryBytes >= 0)
                m_ctx.recordHostFact("peak_memory_bytes", double(m_result.peakMemoryBytes));
            else
                m_ctx.log(QStringLiteral("peak memory not measured: %1").arg(why));
        } else if (!m_job.memoryNote.isEmpty()) {
            m_ctx.log(QStringLiteral("peak memory not measured: %1").arg(m_job.memoryNote));
        }
    }

    // The trained model to the observer, and the run's status: diverged, cancelled or finished.
    RunResult conclude(const Trainer& trainer)
    {
        if (m_observer && !m_ctx.diverged() && !m_ctx.points().isEmpty())
            m_observer->modelReady(m_job, trainer, m_ctx.points().last(), m_ctx.info(), true);
        if (m_ctx.diverged())
            return finish(RunStatus::Diverged, m_ctx.divergence());
        // Stop that came after the trainer's last planned checkpoint (e.g. during a one-solve
        // trainer's only checkpoint) leaves a complete model: that run finished.
        const double planned = m_entry->info.progress.plannedEpochs(m_result.params);
        const bool complete = planned > 0 && m_ctx.checkpoints() > 0 && m_ctx.lastEpoch() >= planned;
        if (m_stop.stopRequested() && !complete)
            return finish(RunStatus::Cancelled, QString());
        if (m_ctx.budgetHit())
            m_ctx.recordHostFact("stopped_by", HostBudget::stoppedBy(m_budget));
        return finish(RunStatus::Finished, QString());
    }

    const Runner& m_runner;
    const PluginRegistry& m_registry;
    RunLog* m_store;
    const RunJob& m_job;
    const StopSource& m_stop;
    RunObserver* m_observer;
    const AlgorithmEntry* m_entry;
    const std::shared_ptr<const PreparedConfiguration> m_prepared;
    const RunBudget m_budget;
    RunResult m_result; // before m_ctx: openRow() fills it while m_ctx is constructed
    RunExecution m_ctx;
};

} // namespace

Runner::Runner(const PluginRegistry& registry, RunLog* store) : m_registry(registry), m_store(store) {}

QJsonObject Runner::machineFacts()
{
    // The build that trains a run (a resumed experiment's runs may come from a later build than
    // the one its row names), the machine code it was compiled to and the CPU that runs it:
    // bit-identical re-runs need all three the same (StoredRuns::agreement() says which differs).
    static const QJsonObject facts{{QStringLiteral("git_hash"), gitHash()},
                                   {QStringLiteral("build"), buildDescription()},
                                   {QStringLiteral("cpu"), cpuModel()}};
    return facts;
}

QJsonObject Runner::replacementFact(const AlgorithmEntry* entry)
{
    if (!entry || entry->plugin->replaces.isEmpty())
        return {};
    return QJsonObject{{QStringLiteral("plugin_replaces"),
                        QJsonObject{{QStringLiteral("file"), entry->plugin->filePath},
                                    {QStringLiteral("replaces"), QJsonArray::fromStringList(entry->plugin->replaces)}}}};
}

RunRecord Runner::record(const RunJob& job) const
{
    const AlgorithmEntry* entry = m_registry.algorithm(job.algorithmId);
    RunRecord rec;
    rec.experimentId = job.experimentId;
    // A former id (PluginRegistry::algorithm() resolves it) is stored as the current one.
    rec.algorithmId = entry ? entry->info.id : job.algorithmId;
    rec.algorithmName = job.label.isEmpty() && entry ? entry->info.name : job.label;
    rec.pluginId = entry ? entry->plugin->id : QString();
    rec.pluginVersion = entry ? entry->plugin->version : QString();
    const auto prepared = preparedOf(job);
    rec.params = prepared->hasParams() ? prepared->params() : job.params;
    rec.dataset = job.datasetDescription;
    rec.seed = job.seed;
    rec.threads = job.threads;
    rec.repeat = job.repeat;
    rec.sigma = job.sigma;
    rec.status = RunStatus::Running;
    rec.started = QDateTime::currentDateTimeUtc();
    rec.appVersion = QStringLiteral(TB_APP_VERSION);
    // Which cell of its experiment the row is, from its first moment: a run whose process dies
    // is still recognised (and re-run) by a resumed experiment.
    rec.info = job.hostFacts;
    const QJsonObject replaced = replacementFact(entry);
    for (auto it = replaced.begin(); it != replaced.end(); ++it)
        rec.info.insert(it.key(), it.value());
    return rec;
}

std::shared_ptr<const PreparedConfiguration> Runner::preparedOf(const RunJob& job) const
{
    return job.prepared ? job.prepared : m_registry.prepared(job.algorithmId, job.params);
}

qint64 Runner::recordNotStarted(const RunJob& job) const
{
    if (!m_store || !job.logToStore)
        return -1;
    RunRecord rec = record(job);
    rec.status = RunStatus::Cancelled;
    rec.error = QStringLiteral("not started: the experiment was stopped before this run");
    rec.ended = rec.started;
    rec.info.insert(QStringLiteral("stopped_by"), QStringLiteral("stop before the run started"));
    return m_store->createRun(rec);
}

std::unique_ptr<Trainer> Runner::createTrainer(const RunJob& job, QString* error, RunBudget* budget) const
{
    const auto prepared = preparedOf(job);
    if (budget)
        *budget = prepared->budgetOr(job.budget);
    return prepared->newTrainer(error);
}

RunResult Runner::execute(const RunJob& job, const StopSource& stop, RunObserver* observer) const
{
    return execute(job, stop, observer, nullptr);
}

RunResult Runner::execute(const RunJob& job, const StopSource& stop, RunObserver* observer,
                          std::unique_ptr<Trainer> given) const
{
    ExecutedRun run(*this, m_registry, m_store, job, stop, observer); // the row opened
    run.recordStartFacts();
    if (const QString problem = run.configurationProblem(); !problem.isEmpty())
        return run.finish(RunStatus::Failed, problem);
    return run.train(std::move(given));
}

} // namespace tb
