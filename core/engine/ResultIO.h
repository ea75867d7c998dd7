#pragma once
/// @file ResultIO.h
/// Experiment results to CSV, and back from the run store.

#include "ExperimentRunner.h"

#include <QString>

namespace tb {

class PluginRegistry;
class RunStore;

/// Writes every checkpoint of every run (learning curve) or every sweep point (noise sweep)
/// as CSV with a header row. Returns false and sets @p error (naming the path) on failure.
bool writeResultCsv(const ExperimentResult& result, const QString& path, QString* error);

/// Rebuilds an experiment's result (curves grouped by algorithm in run order, or sweep
/// points) from the store. Returns nullopt with @p error if the id is unknown or a read failed
/// (a damaged file: the message says what PRAGMA quick_check found), never a shortened result.
std::optional<ExperimentResult> loadResult(RunStore& store, qint64 experimentId, QString* error);

/// Writes @p result, which @p spec produced in this session, into @p store as a new experiment:
/// the experiment row (spec with absolute data paths), one run per (algorithm, repeat) of a
/// learning curve with its status, error, facts and every checkpoint, or one run per algorithm
/// and the sweep points of a noise sweep — the rows ExperimentRunner would have written, with
/// seeds derived as it derives them (deriveSeed(spec.seed, repeat)) and parameters normalised by
/// @p registry's schemas, so every run can be repeated from its row. For saving a session's
/// results elsewhere after its own store failed (ExperimentResult::storeError). Start and end
/// times are those of the save. Returns the new experiment's id, or −1 with @p error naming the
/// store and the cause (nothing is left half-written that the store could remove).
qint64 saveResult(RunStore& store, const ExperimentSpec& spec, const ExperimentResult& result,
                  const PluginRegistry& registry, QString* error);

} // namespace tb
