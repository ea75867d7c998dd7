#pragma once
/// @file TuningSection.h
/// The "tuning" and "final" objects of a tuned-comparison experiment, and each algorithm entry's
/// "search", as parsed (docs/experiments.md, "Tuned comparison").

#include <KindSection.h>
#include <trainbench/ParamSpec.h>

#include <QList>
#include <QString>
#include <cstdint>

namespace tb {

/// One searched parameter: its key and how it is drawn.
struct SearchAxis {
    QString key;
    SearchSpace space;
};

/// How the trials' points are drawn in the unit cube.
enum class TrialSearch { Random, Sobol };

/// A tuned comparison's section (its KindSection).
struct TuningSection : KindSection {
    /// Trials per algorithm (tuning.trials); 0 = not given: then the CPU budget alone ends the
    /// trials, at most maxTrials.
    int trials = 0;
    /// Training CPU seconds of tuning per algorithm (tuning.cpu_seconds); 0 = no CPU budget.
    double cpuSeconds = 0;
    TrialSearch search = TrialSearch::Random;
    std::uint64_t seed = 1;  ///< tuning.seed: the draws' stream (not the runs' seeds)
    int finalSeeds = 5;      ///< final.seeds: fresh seeds the chosen configuration is retrained on
    bool defaults = true;    ///< final.defaults: also train every algorithm's untuned defaults on them
    /// Per algorithm entry: its "search" as written (overridden = true), else empty and the
    /// plugin's default space applies.
    QList<QList<SearchAxis>> overrides;
    QList<bool> overridden;

    /// The trial cap when only a CPU budget is given, and the largest tuning.trials.
    static constexpr int maxTrials = 1000;
    /// Trials each algorithm may run: tuning.trials, or maxTrials under a CPU budget alone.
    int trialCap() const { return trials > 0 ? trials : maxTrials; }
    /// "random" or "sobol".
    static QString searchName(TrialSearch s) { return s == TrialSearch::Sobol ? QStringLiteral("sobol") : QStringLiteral("random"); }
};

} // namespace tb
