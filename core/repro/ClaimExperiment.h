#pragma once
/// @file ClaimExperiment.h
/// The experiment a claim runs: its file (or inline object) with the claim's overrides, its
/// number of seeds and, with --quick, its declared quick variant applied.

#include "Claim.h"

#include <engine/ExperimentSpec.h>

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace tb::repro {

class ClaimsFile;

/// Pure functions (they read the experiment file); reentrant.
class ClaimExperiment {
public:
    /// The keys "overrides" (and "quick.overrides") may set:
    ///  - "seed", "threads", "time_budget_s", "time_budget_clock", "name": replace the experiment's;
    ///  - "dataset": an object merged into the experiment's data set (a key set to null is removed);
    ///  - "algorithms": labels of the algorithm entries to keep, in the experiment's order;
    ///  - "params": an object merged into every kept algorithm's parameters;
    ///  - "algorithm_params": {label: object} merged into that algorithm's parameters;
    ///  - "sigma": a noise sweep's σ values.
    /// The number of seeds is not an override: it is the claim's "n" ("repeats" of learning curves
    /// and param sweeps, "sweep.monte_carlo" of noise sweeps).
    static QStringList overrideKeys();

    /// Seeds the claim runs with: the quick variant's n when @p quick and it declares one, else n.
    static int seeds(const Claim& claim, bool quick);

    /// The experiment object of @p claim with everything applied, or nullopt with @p error naming
    /// the claims file, the claim and the key at fault.
    static std::optional<QJsonObject> json(const ClaimsFile& file, const Claim& claim, bool quick,
                                           QString* error);

    /// The name errors about the experiment of @p claim use (ExperimentSpec::fromObject's
    /// sourceName): its file and the claim, or the claims file and the claim's key path.
    static QString sourceName(const ClaimsFile& file, const Claim& claim);

    /// As json(), parsed: sourcePath and baseDir are the experiment file's (an inline experiment's:
    /// the claims file's), so relative data paths resolve as they would for the file alone.
    /// Structure errors (ExperimentSpec::fromObject) name the claim too.
    static std::optional<ExperimentSpec> spec(const ClaimsFile& file, const Claim& claim, bool quick,
                                              QString* error);
};

} // namespace tb::repro
