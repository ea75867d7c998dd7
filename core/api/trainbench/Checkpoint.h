#pragma once
/// @file Checkpoint.h
/// What a trainer reports at a checkpoint, and what the host answers.

#include <QString>
#include <limits>

namespace tb {

/// Reported by the trainer. Everything but @ref epoch is optional.
struct Checkpoint {
    double epoch = 0;   ///< epochs done; fractional for mid-epoch checkpoints
    double loss = std::numeric_limits<double>::quiet_NaN();  ///< training objective if known
    QString note;       ///< short free text shown in logs (e.g. "fallback: eigen, rank 783")
    /// This checkpoint ends an independent solve: the host's training clock for the next point
    /// starts again from zero. For single-shot learners that draw an anytime curve as a ladder
    /// of solves from scratch (LIBLINEAR at a looser, then a tighter tolerance): each point's
    /// time is then what its own solve took — everything fit() did since the previous such
    /// checkpoint, the preprocessing it repeats per solve included — never the sum of the solves
    /// before it. The host lists these checkpoints in the run's fact "clock_restarts"; the run's
    /// total training time (the fact "final"'s train_seconds, "measured_seconds") and its time
    /// budget still count every solve. An iterative method whose k-th iterate does not depend
    /// on what follows (conjugate gradients from zero) leaves it false: its cumulative time up to
    /// a checkpoint already is that iterate's own cost. Default false: a point's time is the
    /// run's training time up to it.
    bool restartClock = false;
};

/// The host's answer to a checkpoint.
enum class CheckpointAction {
    Continue,  ///< keep training
    Stop       ///< stop now and return from fit() (Stop pressed, time budget, early stop)
};

} // namespace tb
