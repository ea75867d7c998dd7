#pragma once
/// @file BatchSchedule.h
/// The minibatches of a stochastic run and when it checkpoints.

#include <Eigen/Core>
#include <cstdint>
#include <random>
#include <vector>

namespace tb::dsgd {

/// Visits floor(epochs·n) training rows (at least one) in minibatches of b rows: every epoch
/// is a fresh seeded permutation of the n rows (tb::train::shuffle), cut into ⌈n/b⌉ batches
/// (the last one of an epoch, or of the run, may be shorter). Also decides the checkpoints:
/// every `every` steps, or, for every = 0, after steps 1 … 10, then whenever the step count
/// has grown by a factor 1.2, and at every epoch end if the run has at most kEpochCheckpoints
/// epochs; always after the last step.
/// Not thread-safe.
class BatchSchedule {
public:
    /// Runs of more epochs than this do not checkpoint at every epoch end (every = 0).
    static constexpr Eigen::Index kEpochCheckpoints = 100;

    /// @p rows ≥ 1, @p batch ≥ 1 (clamped to rows), @p epochs > 0.
    BatchSchedule(Eigen::Index rows, Eigen::Index batch, double epochs, std::uint64_t seed);

    /// Steps of the whole run, known in advance.
    Eigen::Index totalSteps() const { return m_totalSteps; }
    /// Rows the run visits: floor(epochs·n), at least 1.
    Eigen::Index totalRows() const { return m_totalRows; }
    Eigen::Index batch() const { return m_batch; }
    /// Steps for a run of @p rows rows (the same count as the constructor's).
    static Eigen::Index stepsFor(Eigen::Index rows, Eigen::Index batch, double epochs);

    /// The next minibatch's row indices into @p out; false when the run is over.
    bool next(std::vector<Eigen::Index>& out);
    /// Steps taken so far.
    Eigen::Index step() const { return m_step; }
    /// Rows visited / n: the fractional epoch reached (never above the epochs asked for).
    double epochsDone() const { return double(m_visited) / double(m_rows); }
    /// Whether to checkpoint after the step just taken, for checkpoint_every = @p every.
    bool checkpointDue(Eigen::Index every);

private:
    static Eigen::Index rowsFor(Eigen::Index rows, double epochs);

    Eigen::Index m_rows, m_batch, m_totalRows, m_totalSteps;
    Eigen::Index m_step = 0, m_visited = 0, m_posInEpoch = 0;
    bool m_epochEnded = false;
    double m_nextAuto = 1;
    std::vector<Eigen::Index> m_order;
    std::mt19937_64 m_gen;
};

} // namespace tb::dsgd
