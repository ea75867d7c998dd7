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
};

/// The host's answer to a checkpoint.
enum class CheckpointAction {
    Continue,  ///< keep training
    Stop       ///< stop now and return from fit() (Stop pressed, time budget, early stop)
};

} // namespace tb
