#pragma once
/// @file RankStatistics.h
/// Comparing k algorithms over N data sets (Demšar, JMLR 7, 2006): average ranks with ties, the
/// Friedman test and the Iman–Davenport F, the Nemenyi critical difference, Holm's step-down
/// procedure against a control; the Bayesian signed-rank test of two algorithms over data sets
/// with a region of practical equivalence (Benavoli et al., JMLR 18, 2017); and performance
/// profiles (Dolan & Moré, Math. Prog. 91, 2002).
///
/// Scores are given as scores[set][algorithm]. NaN is a gap (the algorithm did not run on the
/// set); the rank statistics use the sets on which every algorithm has a score (complete rows)
/// and say how many they left out. The number of algorithms k is the widest row's length: a
/// shorter row has gaps in its missing columns.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tb::stats {

/// Average ranks, Friedman and Iman–Davenport over the complete rows of a score table.
/// χ²_F is Demšar's, without a correction for ties (SciPy's friedmanchisquare divides it by
/// 1 − Σ(t³ − t)/(N k (k² − 1)), so it differs when some set has ties). When not valid, the
/// statistics keep their defaults (0, p 1) and the ranks are those of the rows there were.
struct FriedmanResult {
    bool valid = false;             ///< false when fewer than 2 sets or 2 algorithms remain
    int sets = 0;                   ///< N: complete rows used
    int algorithms = 0;             ///< k
    int setsLeftOut = 0;            ///< rows with a gap (NaN), not ranked
    std::vector<std::vector<double>> ranks; ///< [used set][algorithm], 1 = best, ties get mid-ranks
    std::vector<double> averageRanks;       ///< R_j, per algorithm
    double chiSquare = 0;           ///< χ²_F = 12N/(k(k+1)) [Σ R_j² − k(k+1)²/4]
    double chiSquareP = 1;          ///< P(χ²_{k−1} ≥ χ²_F)
    double imanDavenportF = 0;      ///< F_F = (N−1)χ²_F / (N(k−1) − χ²_F); +∞ when every set ranks alike
    double imanDavenportP = 1;      ///< P(F_{k−1,(k−1)(N−1)} ≥ F_F)
    int df1 = 0;                    ///< k − 1
    int df2 = 0;                    ///< (k − 1)(N − 1)
    std::string note;               ///< why it is not valid, what was left out, or that F_F is infinite

    /// The p-value to decide "the algorithms differ" on: the Iman–Davenport test's (Demšar's
    /// advice), or the χ² test's when every set ranks alike (F_F is then infinite and its p 0, the
    /// limit of an approximation that no longer holds).
    double decisionP() const
    {
        return imanDavenportF < std::numeric_limits<double>::infinity() ? imanDavenportP : chiSquareP;
    }
};

/// One comparison of Holm's procedure: an algorithm against the control.
struct HolmRow {
    int algorithm = -1;             ///< index into the score table's columns
    double z = 0;                   ///< (R_i − R_control) / sqrt(k(k+1)/(6N)), sign: >0 control ranks better (rank 1 = best)
    double p = 1;                   ///< two-sided, unadjusted
    double adjustedAlpha = 0;       ///< α/(k−i) at its step i (1-based, smallest p first)
    double adjustedP = 1;           ///< Holm-adjusted p: max over steps ≤ i of min(1, (k−j)·p_j)
    bool rejected = false;          ///< the hypothesis "equal to the control" is rejected at α: adjustedP ≤ α
};

/// The Bayesian signed-rank test of a − b over data sets. When not valid, the probabilities
/// are 0 and the note says why.
struct BayesianSignedRankResult {
    bool valid = false;
    int n = 0;                      ///< pairs used (NaN pairs dropped)
    double rope = 0;                ///< half-width of the region of practical equivalence
    double left = 0;                ///< P(a − b < −rope): b practically better
    double equivalent = 0;          ///< P(|a − b| ≤ rope)
    double right = 0;               ///< P(a − b > rope): a practically better
    int samples = 0;                ///< Monte-Carlo draws of the Dirichlet process posterior
    std::string note;
};

/// A performance profile: for each algorithm, the fraction of sets on which its cost is within
/// a factor τ of the best cost on that set.
///
/// The choices, precisely: the best cost of a set is its least finite cost (≥ 0); a set without
/// one (every algorithm failed or has a gap) is left out of the denominator, its ratios +∞ for
/// the failures and NaN for the gaps. A gap in a counted set stays in the denominator and never
/// in the numerator: for ρ it is a failure, so every algorithm's curve is over the same sets and
/// one with gaps never reaches 1. A negative cost (−∞ too) is not a cost: it is taken as a gap,
/// and the note says so. A ratio that overflows is +∞.
struct PerformanceProfile {
    std::vector<std::vector<double>> ratios; ///< [set][algorithm]: cost / best cost on the set; +∞ failed; NaN gap
    std::vector<double> taus;                ///< the breakpoints, ascending, from 1 (every finite ratio once)
    std::vector<std::vector<double>> rho;    ///< [algorithm][tau index]: fraction of the `sets` with ratio ≤ τ
    int sets = 0;                            ///< sets with at least one finite cost (the denominator)
    std::string note;
};

/// Pure functions; thread-safe (the Bayesian test takes its seed).
class RankStatistics {
public:
    /// Ranks of @p values within one set, 1 = best (the highest when @p higherIsBetter), ties the
    /// mean of the ranks they span. Meant for values without NaN; a NaN gets rank NaN and the
    /// others are ranked among themselves.
    static std::vector<double> ranks(const std::vector<double>& values, bool higherIsBetter);

    /// The Friedman test of @p scores [set][algorithm] (Demšar §3.2.2), on the complete rows.
    static FriedmanResult friedman(const std::vector<std::vector<double>>& scores, bool higherIsBetter);

    /// q_α of the Nemenyi test for @p k algorithms (Studentized range statistic with infinite
    /// degrees of freedom, divided by √2; Demšar Table 5a), for 2 ≤ k ≤ 50 and α in (0, 1);
    /// NaN otherwise.
    static double nemenyiQ(int k, double alpha);
    /// The Nemenyi critical difference CD = q_α √(k(k+1)/(6N)) for @p k algorithms on @p n sets.
    static double nemenyiCriticalDifference(int k, int n, double alpha);

    /// The groups of the critical-difference diagram: the maximal sets of algorithms whose
    /// average @p ranks differ pairwise by less than @p cd (a difference of exactly cd is
    /// significant), each in ascending rank (ties in index order), ordered by their best rank.
    /// Groups of one are left out; empty when cd is not > 0 or fewer than 2 ranks are given.
    static std::vector<std::vector<int>> nemenyiGroups(const std::vector<double>& ranks, double cd);

    /// Holm's step-down procedure of every algorithm against @p control (Demšar §3.2.2), from the
    /// average ranks of @p f; rows ordered by ascending p (equal p: by algorithm index). Empty when
    /// @p f is not valid or @p control is not one of its columns.
    static std::vector<HolmRow> holm(const FriedmanResult& f, int control, double alpha);

    /// Benavoli et al.'s Bayesian signed-rank test of @p a − @p b (one value per data set, e.g.
    /// each algorithm's mean accuracy there): the Dirichlet-process posterior with the prior's
    /// pseudo-observation at 0 of weight @p prior (their s and z0 = 0; baycomp's default 0.5),
    /// @p samples Monte-Carlo draws seeded by @p seed; each probability is the fraction of draws
    /// in which that region has the largest posterior mass (as baycomp's SignedRankTest reports).
    /// With z_0 = 0 and z_i = a_i − b_i, a draw's masses are θ_left = Σ_i Σ_j w_i w_j [z_i + z_j <
    /// −2·rope], θ_right the same with > 2·rope, θ_rope the rest (the boundary included). This is
    /// baycomp's SignedRankTest(x = b, y = a, rope) but for two measure-zero details: a pair sum
    /// exactly at ±2·rope counts in the rope here (baycomp splits it half-half), and a draw in
    /// which two regions tie for the largest mass is shared between them (baycomp gives it to the
    /// first), which makes swapping a and b swap left and right exactly. Pairs whose difference
    /// is NaN (a NaN, or ∞ − ∞) are dropped; a pair sum ∞ − ∞ counts in the rope. Not valid when
    /// the lengths differ, no pair remains, rope < 0, prior < 0 or not finite, or samples < 1.
    /// The draws come from std::mt19937_64's raw output through samplers of our own (Marsaglia
    /// & Tsang's gamma), not the implementation-defined <random> distributions, so a seed gives
    /// the same result with any standard library (a libm whose log or pow differed by an ulp
    /// could move a weight's last bit, and a count only through a draw that ties to that bit).
    /// The weights are quantised to integers (sum 2^52) so that the pair sums are exact.
    /// O(n log n) once, then O(n) a draw: n = 300 sets and 50,000 draws take about 0.2 s.
    static BayesianSignedRankResult bayesianSignedRank(const std::vector<double>& a, const std::vector<double>& b,
                                                       double rope, double prior = 0.5, int samples = 50000,
                                                       std::uint64_t seed = 1);

    /// Dolan–Moré performance profile of @p costs [set][algorithm] (lower is better, > 0; +∞
    /// where the algorithm failed, e.g. never reached the target; NaN where it did not run).
    /// A set whose best cost is 0 gives ratio 1 to every algorithm at 0 and +∞ to the others.
    /// The treatment of failures, gaps and sets without a finite cost: PerformanceProfile.
    static PerformanceProfile performanceProfile(const std::vector<std::vector<double>>& costs);
};

} // namespace tb::stats
