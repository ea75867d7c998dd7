#pragma once
/// @file ResultIO.h
/// Experiment results to CSV, and back from the run store.

#include "ExperimentRunner.h"

#include <QString>

namespace tb {

class RunStore;

/// Writes every checkpoint of every run (learning curve) or every sweep point (noise sweep)
/// as CSV with a header row. Returns false and sets @p error (naming the path) on failure.
bool writeResultCsv(const ExperimentResult& result, const QString& path, QString* error);

/// Rebuilds an experiment's result (curves grouped by algorithm in run order, or sweep
/// points) from the store. Returns nullopt with @p error if the id is unknown.
std::optional<ExperimentResult> loadResult(RunStore& store, qint64 experimentId, QString* error);

} // namespace tb
