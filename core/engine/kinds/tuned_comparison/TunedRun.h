#pragma once
/// @file TunedRun.h
/// One tuned comparison as it runs: every algorithm's trials drawn from its search space and
/// trained under the same budget, the best chosen on the validation split, then the chosen and the
/// default configurations retrained on fresh seeds and reported on test.

#include <engine/ExperimentContext.h>
#include "SearchSpaces.h"
#include "TuningSection.h"

#include <QSet>
#include <QStringList>
#include <QVariantMap>
#include <mutex>
#include <vector>

namespace tb {

class PreparedConfiguration;

/// Cells, in this order (a cell is one stored run): the trials, trial-major (trial t of every
/// algorithm before trial t + 1, so that a stopped tuning leaves every algorithm with as many
/// trials as the others), then per algorithm its final runs — the chosen configuration on
/// final.seeds seeds, then its defaults on the same seeds. Trial t trains with seed
/// deriveSeed(seed, t); final seed f is deriveSeed(seed, trialCap + f): fresh, and the same for
/// the tuned and the default configuration (paired comparisons).
class TunedRun {
public:
    TunedRun(ExperimentContext& ctx, const ExperimentSpec& spec, const TuningSection& section, qint64 experimentId,
             ExperimentObserver* obs);
    ExperimentResult run();

    /// The configurations a tuned comparison's result compares, in order: per algorithm "<label>
    /// (tuned)" then, with final.defaults, "<label> (defaults)".
    static QList<AlgorithmCurves> configurations(const ExperimentSpec& spec, const TuningSection& section,
                                                 const PluginRegistry* registry);
    /// Every cell the experiment plans: the trials (an algorithm with nothing to search runs one)
    /// and the final runs. Without @p registry, an algorithm without a "search" of its own counts
    /// as searched (an upper bound; the run's experimentStarted() gives the exact count).
    static int plannedCells(const ExperimentSpec& spec, const TuningSection& section, const PluginRegistry* registry);

private:
    struct Cell {
        int algorithm = 0;
        int trial = -1;       ///< a trial's number (−1: a final run, or a rung's place not yet filled)
        int rung = -1;        ///< a trial's rung of successive halving (0 without), −1 for a final run
        int finalSeed = -1;   ///< a final run's seed number f
        bool defaults = false; ///< a final run of the untuned defaults
        bool isTrial() const { return rung >= 0; }
    };
    /// OverBudget: not a run — its algorithm's CPU budget was spent before it, or it is a rung's
    /// place that no trial was promoted to.
    enum class Outcome : char { Pending, Ran, OverBudget };

    bool loadData();
    void planCells();
    bool checkMemory();
    QVariantMap paramsOf(int cell) const;
    /// Cell @p cell's job; with @p prepare, its configuration prepared (PluginRegistry::prepared:
    /// only for the job that trains or is recorded, not for a label or a seed).
    RunJob jobOf(int cell, bool prepare = true) const;
    QString phaseOf(int cell) const;
    bool takeFinished(int first, int count);
    /// Cells first … first + count − 1, one at a time with every thread; trials under the CPU
    /// budget. @p here: in this process even under MPI (the workers have gone).
    void runCells(int first, int count, bool here);
    /// Fills rung @p k's places of every halved algorithm with the best of its rung k − 1.
    void promote(int k);
    /// A run's validation score, higher better (accuracy, or −RMSE); NaN unless it finished.
    static double scoreOf(const RunResult& rr);
    void tune();
    void choose();
    void trainFinals();
    /// Cell @p cell's run is done (@p notify: tell the observer; not for runs a resume took).
    void cellDone(int cell, RunResult&& rr, bool notify = true);
    void reportStatus();
    void gather(bool record);

    ExperimentContext& m_ctx;
    const ExperimentSpec& m_spec;
    const TuningSection& m_section;
    const qint64 m_experimentId;
    ExperimentObserver* const m_obs;
    const int m_threads;
    std::shared_ptr<const data::DatasetPair> m_data;
    QString m_description;
    QStringList m_labels;
    QList<QList<SearchAxis>> m_axes;        ///< per algorithm
    QList<QVariantMap> m_fixed;             ///< per algorithm: its params as written
    QList<QVariantMap> m_defaults;          ///< per algorithm: the searched keys' default values
    QList<QList<double>> m_rungs;           ///< per algorithm: its rungs' fractions of the budget ({1}: not halved)
    QStringList m_resourceKey;              ///< per algorithm: the parameter a rung scales ("epochs", "iterations"), or
                                            ///< empty: its time budget (or nothing, when it is not halved)
    std::vector<int> m_rungFirst;           ///< per rung: its first cell (rung k's cells end where k + 1's begin)
    std::vector<Cell> m_cells;
    int m_trialCells = 0;                   ///< cells 0 … m_trialCells − 1 are trials
    std::vector<QVariantMap> m_drawn;       ///< per trial cell: its drawn values
    std::vector<QVariantMap> m_chosen;      ///< per algorithm: the chosen trial's drawn values
    std::vector<int> m_chosenTrial;         ///< per algorithm: its number, −1 before choose()
    std::vector<RunResult> m_results;
    std::vector<char> m_ran;                ///< per cell: its result is in m_results
    std::vector<Outcome> m_outcome;
    std::mutex m_mutex;                     ///< m_cpuUsed, m_trialsDone, the status
    std::vector<double> m_cpuUsed;          ///< per algorithm: its trials' training CPU seconds
    std::vector<int> m_trialsDone;
    int m_done = 0;
    int m_overBudget = 0;
    ExperimentResult m_result;
    QSet<QString> m_errors;
};

} // namespace tb
