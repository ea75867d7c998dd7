#pragma once
/// @file ExperimentRunner.h
/// Runs a whole experiment, whatever its kind (ExperimentKind), in one TBB arena.

#include "CellExecutor.h"
#include "ExperimentSpec.h"
#include <store/RunTypes.h>
#include "Runner.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <atomic>
#include <memory>

namespace tb {

class ExperimentContext;
class PluginRegistry;
class RunStore;

/// Every repeat of one configuration's learning curve: an algorithm of a learning curve, one
/// (data-set option, algorithm, parameter point) of a param sweep — whatever the experiment's
/// kind calls a configuration (ExperimentKind::configurations()).
struct AlgorithmCurves {
    QString algorithmId;
    int algorithmIndex = -1;  ///< its entry in ExperimentSpec::algorithms (−1: unknown, e.g. read from a store)
    QString label;
    QList<QVector<MetricPoint>> repeats;
    QList<RunStatus> statuses;
    QList<QJsonObject> infos; ///< per repeat: the run's facts (RunResult::info, RunRecord::info)
    QStringList errors;       ///< per repeat: the run's error message, empty when it has none
    QList<int> repeatNumbers; ///< per repeat: its number r (seed = deriveSeed(seed, r)), 0-based
    QList<std::uint64_t> seeds; ///< per repeat: the run's seed
    QList<qint64> runIds;       ///< per repeat: its run row, −1 when nothing was stored
    QVariantMap setting;      ///< the varied parameters' values (ExperimentResult::variedKeys); empty when none vary
    QString configuration;    ///< the label without the data-set option: a result matrix's row
    QString dataset;          ///< the data set's description (DataSource::describe)
    int datasetIndex = 0;     ///< the data-set option, for a kind that has several (a param sweep's)
    /// The stored experiment its runs belong to when it is not the result's (a suite's merged
    /// result: each set's own); −1: ExperimentResult::experimentId.
    qint64 experimentId = -1;
    /// The clock the repeats' checkpoint times are on: the CPU clock when the runs' budget is on
    /// it (HostBudget::timesClock of their facts), else the training (wall) clock.
    ClockKind clock = ClockKind::Wall;
};

/// The one run row that stands for an algorithm's summary points (a noise sweep's cells have no
/// rows of their own: they are aggregated into SummaryPoints).
struct SummaryRun {
    QString algorithmId;
    QString label;
    qint64 runId = -1;
    std::uint64_t seed = 0;
    RunStatus status = RunStatus::Finished;
};

/// What an experiment produced.
struct ExperimentResult {
    qint64 experimentId = -1;
    QString kind;                    ///< the experiment's kind (ExperimentKind::id())
    /// One per configuration, in the order of the kind's configurations() (a learning curve: one
    /// per algorithm; a param sweep: one per (data-set option, algorithm, point)).
    QList<AlgorithmCurves> curves;
    /// Statistics the kind keeps instead of each run's curve (a noise sweep's), ordered by
    /// algorithm then x; their axis is the kind's summaryAxis().
    QList<SummaryPoint> summary;
    QList<SummaryRun> summaryRuns;   ///< the rows that stand for the summary points, per algorithm
    /// The runs that chose the compared configurations (a tuned comparison's trials), one entry
    /// per algorithm, its repeats the candidates in the order they were drawn, their facts
    /// naming each one's phase, number and drawn values (ExperimentKind::placeOf()). Stored and
    /// exported like every run, drawn by the charts that read them (SelectionCurves), never
    /// compared with the configurations in `curves`.
    QList<AlgorithmCurves> selection;
    int runsPlanned = 0;             ///< in the kind's unit (ExperimentKind::unit(): runs, cells …)
    int runsFinished = 0;
    int runsFailed = 0;              ///< failed or diverged
    int runsCancelled = 0;           ///< stopped while running, or never started (runsNotStarted)
    int runsNotStarted = 0;          ///< stopped before they began; stored as cancelled
    bool cancelled = false;
    QString error;                   ///< set when the experiment could not start (bad data …)
    QStringList runErrors;           ///< distinct messages of failed / diverged runs
    /// Set when a write to the run store failed (the first failure, naming the file and the cause):
    /// the experiment was stopped there, the runs it stopped are Failed with this message, and this
    /// result is the only complete copy of what was trained (see saveResult() in SavedResult.h).
    QString storeError;
    QStringList warnings;            ///< about the data (e.g. a set with one class); the runs went on
    double wallSeconds = 0;
    QStringList variedKeys;          ///< the parameters that differ between configurations (a param sweep's grid)
    /// A suite's merged result (SuiteRunner): its sets' names, in order (AlgorithmCurves::datasetIndex
    /// indexes them); empty for one experiment. Charts of one data set's runs are not exported for it.
    QStringList suiteSets;
};

/// Progress of an experiment as a whole. Called from worker threads; implementations must
/// be thread-safe and quick.
class ExperimentObserver : public RunObserver {
public:
    virtual void experimentStarted(qint64 experimentId, const ExperimentSpec& spec, int totalUnits)
    {
        Q_UNUSED(experimentId); Q_UNUSED(spec); Q_UNUSED(totalUnits);
    }
    /// A suite's set @p index of @p sets starts as experiment @p spec (SuiteRunner: before its
    /// experimentStarted(), which a suite calls once, for its first set, with the suite's total).
    virtual void suiteSetStarted(int index, int sets, const ExperimentSpec& spec)
    {
        Q_UNUSED(index); Q_UNUSED(sets); Q_UNUSED(spec);
    }
    /// @p done of @p total units (ExperimentKind::unit()) are complete.
    virtual void progress(int done, int total) { Q_UNUSED(done); Q_UNUSED(total); }
    /// A summary point is final (a noise sweep's σ whose cells are all done).
    virtual void summaryPointReady(const SummaryPoint& p) { Q_UNUSED(p); }
    /// What the experiment has done beyond counts, one line per part, for a progress panel (a
    /// tuned comparison: per algorithm "Adam: 12 of 30 trials, 3.1 CPU s; best 91.2 % (lr=0.013)").
    virtual void statusChanged(const QStringList& lines) { Q_UNUSED(lines); }
    /// Cell @p cell (its index in the kind's list of cells) is done, and its run belongs to
    /// configuration @p configuration (an index into ExperimentResult::curves); its run's
    /// runFinished() came first.
    virtual void cellFinished(int cell, int configuration, const RunResult& r)
    {
        Q_UNUSED(cell); Q_UNUSED(configuration); Q_UNUSED(r);
    }
};

/// Runs experiments. One instance may run one experiment at a time; requestStop() may be
/// called from any thread and takes effect at the trainers' next stop poll (≤ 200 ms for
/// conforming plugins).
///
/// An experiment is a list of cells, each depending only on its index (its kind defines them: a
/// learning curve's runs, a noise sweep's (σ, Monte-Carlo) cells …); a CellExecutor decides
/// where they train (this process by default, MPI ranks with core/cluster). Every cell's result
/// reaches the store as it arrives.
///
/// Nothing is lost silently: a write to the store that fails (disk full, a lock held longer than
/// the store's busy timeout, a damaged file) stops the experiment as Stop would, and the result
/// says so in ExperimentResult::storeError while keeping every curve in memory. A data set that
/// fails to load leaves no experiment row behind.
class ExperimentRunner {
public:
    /// @p store may be null. @p executor (may be null: this process) runs the cells; it must
    /// outlive the runner.
    ExperimentRunner(const PluginRegistry& registry, RunStore* store, CellExecutor* executor = nullptr);
    ~ExperimentRunner();

    /// Blocks until the experiment is done or stopped; how its cells train is its kind's
    /// (ExperimentKind::run(): one at a time with every thread so that timings compare, or side
    /// by side). The caller should have validated @p spec.
    ExperimentResult run(const ExperimentSpec& spec, ExperimentObserver* observer = nullptr);

    /// Runs the cells of stored experiment @p experimentId (an earlier run of @p spec, see
    /// resumable()) that did not finish, into the same experiment: its finished runs (or a
    /// kind's finished cells) are kept and returned as they are, its other rows of those cells
    /// (cancelled, failed, interrupted) are deleted and trained again with the same seeds. The
    /// result is the whole experiment. Needs a store.
    ExperimentResult resume(const ExperimentSpec& spec, qint64 experimentId, ExperimentObserver* observer = nullptr);

    /// The newest experiment in @p store stored from @p spec with the same settings (name, data,
    /// algorithms, seeds, threads …), or −1 with a message in @p error naming the file. @p spec
    /// as it runs: upgraded (ExperimentSpec::upgradeParams()), as run() stores it.
    static qint64 resumable(const RunStore& store, const ExperimentSpec& spec, QString* error);
    /// The experiment's settings as stored with it (ExperimentRecord::spec): dataset paths absolute.
    static QJsonObject storedSpec(const ExperimentSpec& spec);

    void requestStop() { m_stop.requestStop(); }
    bool stopRequested() const { return m_stop.stopRequested(); }

private:
    ExperimentResult execute(const ExperimentSpec& spec, ExperimentObserver* observer, qint64 resumeId);

    const PluginRegistry& m_registry;
    RunStore* m_store;
    LocalCellExecutor m_local;
    CellExecutor* m_executor;
    StopSource m_stop;
    std::unique_ptr<ExperimentContext> m_context; ///< what the kinds use of this runner
};

} // namespace tb
