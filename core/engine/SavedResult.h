#pragma once
/// @file SavedResult.h
/// A session's results written into another database after its own store failed (issue 17:
/// nothing trained is lost silently). The GUI's "Save results to another database…" calls it.

#include "ExperimentRunner.h"
#include "ExperimentSpec.h"

#include <QString>

namespace tb {

class PluginRegistry;
class RunStore;

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
