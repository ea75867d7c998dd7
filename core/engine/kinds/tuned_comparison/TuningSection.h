#pragma once
/// @file TuningSection.h
/// The "tuning" and "final" objects of a tuned-comparison experiment, and each algorithm entry's
/// "search", as parsed (docs/experiments.md, "Tuned comparison").

#include <engine/KindSection.h>
#include <trainbench/ParamSpec.h>

#include <QList>
#include <QString>
#include <algorithm>
#include <cmath>
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
    /// Successive halving (tuning.halving), off when eta is 0: every trial first trains on the
    /// smallest fraction of its algorithm's epochs or time budget, and the best 1/eta of each rung
    /// are trained again on eta times more, up to the whole budget (rungs()).
    double halvingEta = 0;
    double halvingMinFraction = 0.1;

    /// The rungs' fractions of the budget, smallest first, the last 1: eta^(k − K) for k = 0 … K,
    /// K the largest with eta^−K ≥ min_fraction. One rung (no halving) when eta is 0.
    QList<double> rungs() const
    {
        QList<double> out{1.0};
        if (halvingEta <= 1)
            return out;
        while (out.first() / halvingEta >= halvingMinFraction * (1 - 1e-12))
            out.prepend(out.first() / halvingEta);
        return out;
    }
    /// How many of @p ran trials of a rung go on to the next: the best ⌊ran / eta⌋, at least one.
    int promoted(int ran) const { return ran <= 0 ? 0 : std::max(1, int(std::floor(ran / halvingEta + 1e-9))); }

    /// The trial cap when only a CPU budget is given, and the largest tuning.trials.
    static constexpr int maxTrials = 1000;
    /// Trials each algorithm may run: tuning.trials, or maxTrials under a CPU budget alone.
    int trialCap() const { return trials > 0 ? trials : maxTrials; }
    /// "random" or "sobol".
    static QString searchName(TrialSearch s) { return s == TrialSearch::Sobol ? QStringLiteral("sobol") : QStringLiteral("random"); }
};

} // namespace tb
