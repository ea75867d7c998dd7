#pragma once
/// @file NoiseSweepRun.h
/// One noise sweep as it runs: its cells, their results, the one stored row per algorithm.

#include <engine/ExperimentContext.h>
#include "NoiseSweepSection.h"

#include <QJsonObject>
#include <QSet>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace tb {

class PreparedConfiguration;

/// The noise sweep of NoiseSweepKind::run(), step by step: the data checked on a probe, the memory
/// check, the stored rows (new, or those of an experiment being resumed), the cost predictions, the
/// lock-step packs, the cells trained by the executor, the summary points. One object per run;
/// run() once. The executor's callbacks reach it from worker threads: what they share is guarded
/// (atomics, errorMutex) or written per cell only.
class NoiseSweepRun {
public:
    NoiseSweepRun(ExperimentContext& ctx, const ExperimentSpec& spec, const NoiseSweepSection& section,
                  qint64 experimentId, ExperimentObserver* observer);

    ExperimentResult run();

private:
    // A pack of consecutive Monte-Carlo cells of one σ: the executor's unit of work.
    struct Cells {
        int first, count;
    };

    bool loadProbe();
    bool checkMemory();
    bool restoreStoredCells();
    void createRows();
    void predictCosts(tbb::task_arena& arena);
    void chooseLockstep();
    void countPending();
    CellPlan plan(tbb::task_arena& arena);
    CellOutput trainPack(int unit);
    void trainInLockstep(int a, const Cells& c, const std::vector<std::shared_ptr<const data::DatasetPair>>& data,
                         std::vector<char>& trained, CellOutput& out);
    void finishCell(int cell, const CellOutput& out, int i);
    void finishRows();

    RunJob cellJob(int a) const;
    Cells cellsOf(int unit) const;
    SummaryPoint pointAt(int a, int s) const;
    std::uint64_t seedOf(int cell) const;

    ExperimentContext& m_ctx;
    const ExperimentSpec& m_spec;
    const NoiseSweepSection& m_section;
    const qint64 m_experimentId;
    ExperimentObserver* const m_obs;
    ExperimentResult m_result;

    const int m_threads, m_nAlg, m_nSigma, m_mc;
    const qint64 m_cells;
    const int m_total;
    const QString m_description;
    QStringList m_labels;
    std::vector<std::shared_ptr<const PreparedConfiguration>> m_prepared; // each algorithm's, read once for its cells
    std::shared_ptr<const data::DatasetPair> m_probe;  // the first cell's data, until the cells start
    ProblemShape m_cellShape;                           // every cell's (the probe's)

    // Results by [algorithm][cell]; NaN where a cell failed, diverged or was skipped.
    std::vector<std::vector<double>> m_trainRmse, m_testRmse;
    std::vector<std::vector<char>> m_status;  // 0 skipped 1 ok 2 failed 3 diverged
    std::vector<char> m_cellDone;
    // [algorithm][cell]: stored before a resume. Such a run is neither trained nor stored again
    // (its metric row exists: a second one would break the row's key), even when the cell's
    // other algorithms run again — a sweep stopped in the middle of a cell leaves some stored.
    std::vector<std::vector<char>> m_kept;
    QVector<qint64> m_runIds;            // one row per algorithm stands for all its cells
    QVector<QJsonObject> m_cellCosts;    // each algorithm's predicted cost of one cell
    std::unique_ptr<Runner> m_runner;    // trains cells (no store: the sweep stores its own rows)
    std::vector<int> m_lockstepWidth;
    int m_pack = 1;
    qint64 m_packsPerSigma = 0, m_packs = 0;

    std::atomic<int> m_done{0};
    std::atomic<int> m_lastReported{-1};
    std::mutex m_errorMutex;
    QSet<QString> m_errors;
    // Cells still running per σ: when one reaches zero its points are final and are shown at
    // once, so a live chart grows σ by σ instead of appearing at the end.
    std::vector<std::atomic<int>> m_pendingPerSigma;
    std::vector<char> m_reported;
};

} // namespace tb
