#include "RankStatistics.h"

#include "Distributions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace tb::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

void addNote(std::string& note, const std::string& what)
{
    if (!note.empty())
        note += "; ";
    note += what;
}

std::string plural(size_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The widest row: the number of algorithms (a shorter row has gaps in its missing columns).
size_t columns(const std::vector<std::vector<double>>& table)
{
    size_t k = 0;
    for (const auto& row : table)
        k = std::max(k, row.size());
    return k;
}

// The random numbers of the Bayesian test, from the raw 64-bit output of std::mt19937_64 (whose
// sequence the standard fixes) by arithmetic of our own: std::uniform_real_distribution,
// std::normal_distribution and std::gamma_distribution are implementation-defined.
class Variates {
public:
    explicit Variates(std::uint64_t seed) : engine_(seed) {}

    // Uniform on (0, 1): the top 53 bits, centred in their cell, so never 0 nor 1.
    double uniform() { return (double(engine_() >> 11) + 0.5) * 0x1p-53; }

    // Standard normal by Marsaglia's polar method (only log and sqrt), the second of each
    // pair kept for the next call.
    double normal()
    {
        if (hasSpare_) {
            hasSpare_ = false;
            return spare_;
        }
        double u, v, s;
        do {
            u = 2 * uniform() - 1;
            v = 2 * uniform() - 1;
            s = u * u + v * v;
        } while (s >= 1 || s == 0);
        const double f = std::sqrt(-2 * std::log(s) / s);
        spare_ = v * f;
        hasSpare_ = true;
        return u * f;
    }

    // Gamma(shape, 1): shape 1 is the exponential −log U; shape ≥ 1 Marsaglia & Tsang (ACM TOMS
    // 26, 2000); shape < 1 their boost Gamma(shape + 1) · U^{1/shape}; shape 0 is 0.
    double gamma(double shape)
    {
        if (shape <= 0)
            return 0;
        if (shape == 1)
            return -std::log(uniform());
        if (shape < 1)
            return gamma(shape + 1) * std::pow(uniform(), 1 / shape);
        const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
        for (;;) {
            double x, v;
            do {
                x = normal();
                v = 1 + c * x;
            } while (v <= 0);
            v = v * v * v;
            const double u = uniform();
            if (u < 1 - 0.0331 * (x * x) * (x * x))
                return d * v;
            if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))
                return d * v;
        }
    }

private:
    std::mt19937_64 engine_;
    bool hasSpare_ = false;
    double spare_ = 0;
};

} // namespace

std::vector<double> RankStatistics::ranks(const std::vector<double>& values, bool higherIsBetter)
{
    std::vector<double> r(values.size(), kNaN);
    std::vector<size_t> order;
    order.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i)
        if (!std::isnan(values[i]))
            order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) {
        return higherIsBetter ? values[i] > values[j] : values[i] < values[j];
    });
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
            ++j;
        const double mid = 0.5 * double(i + 1 + j + 1); // the mean of ranks i + 1 … j + 1
        for (size_t t = i; t <= j; ++t)
            r[order[t]] = mid;
        i = j + 1;
    }
    return r;
}

FriedmanResult RankStatistics::friedman(const std::vector<std::vector<double>>& scores, bool higherIsBetter)
{
    FriedmanResult f;
    const size_t k = columns(scores);
    f.algorithms = int(k);
    for (const auto& row : scores) {
        const bool complete = row.size() == k && std::none_of(row.begin(), row.end(), [](double v) { return std::isnan(v); });
        if (!complete) {
            ++f.setsLeftOut;
            continue;
        }
        f.ranks.push_back(ranks(row, higherIsBetter));
    }
    const size_t n = f.ranks.size();
    f.sets = int(n);
    if (f.setsLeftOut > 0)
        addNote(f.note, plural(size_t(f.setsLeftOut), "set with a gap left out", "sets with a gap left out"));

    // Rank sums, doubled: ranks are multiples of 1/2, so these are integers and every sum below
    // is exact in a double while N²k³ stays below 2^50 or so (N = 10⁴ sets of k = 50: 1.25e13).
    std::vector<double> twiceSum(k, 0.0);
    for (const auto& row : f.ranks)
        for (size_t j = 0; j < k; ++j)
            twiceSum[j] += 2 * row[j];
    if (n > 0)
        for (size_t j = 0; j < k; ++j)
            f.averageRanks.push_back(twiceSum[j] / (2.0 * double(n)));

    if (k < 2) {
        addNote(f.note, "fewer than 2 algorithms (" + std::to_string(k) + ")");
        return f;
    }
    if (n < 2) {
        addNote(f.note, "fewer than 2 sets on which every algorithm has a score (" + std::to_string(n) + ")");
        return f;
    }
    f.valid = true;
    f.df1 = int(k) - 1;
    f.df2 = int(k - 1) * int(n - 1);

    const double N = double(n), K = double(k);
    double sumSquares = 0; // Σ (2 S_j)²
    for (double t : twiceSum)
        sumSquares += t * t;
    // χ²_F = 12/(N k (k+1)) Σ S_j² − 3N(k+1) = [3 Σ(2S_j)² − 3N²k(k+1)²] / (N k (k+1)), and
    // N(k−1) − χ²_F = [2N²k(k+1)(2k+1) − 3 Σ(2S_j)²] / (N k (k+1)): both numerators integers,
    // so "every set ranks alike" (the second 0) is found exactly, not through rounding.
    const double scale = N * K * (K + 1);
    const double chiNumerator = 3 * sumSquares - 3 * N * N * K * (K + 1) * (K + 1);
    const double restNumerator = 2 * N * N * K * (K + 1) * (2 * K + 1) - 3 * sumSquares;
    f.chiSquare = std::max(0.0, chiNumerator / scale);
    f.chiSquareP = Distributions::chiSquareUpperTail(f.chiSquare, f.df1);
    if (restNumerator <= 0) {
        f.imanDavenportF = kInf;
        f.imanDavenportP = 0;
        addNote(f.note, "every set ranks the algorithms alike: F_F is infinite");
    } else {
        f.imanDavenportF = (N - 1) * std::max(0.0, chiNumerator) / restNumerator;
        f.imanDavenportP = Distributions::fUpperTail(f.imanDavenportF, f.df1, f.df2);
    }
    return f;
}

double RankStatistics::nemenyiQ(int k, double alpha)
{
    if (k < 2 || k > 50 || !(alpha > 0) || !(alpha < 1))
        return kNaN;
    return Distributions::studentizedRangeUpperQuantile(alpha, k) / std::sqrt(2.0);
}

double RankStatistics::nemenyiCriticalDifference(int k, int n, double alpha)
{
    if (n < 1)
        return kNaN;
    return nemenyiQ(k, alpha) * std::sqrt(double(k) * (k + 1) / (6.0 * n));
}

std::vector<HolmRow> RankStatistics::holm(const FriedmanResult& f, int control, double alpha)
{
    const int k = f.algorithms;
    if (!f.valid || k < 2 || f.sets < 1 || control < 0 || control >= k || int(f.averageRanks.size()) != k)
        return {};
    const double se = std::sqrt(double(k) * (k + 1) / (6.0 * f.sets));
    std::vector<HolmRow> rows;
    for (int j = 0; j < k; ++j) {
        if (j == control)
            continue;
        HolmRow r;
        r.algorithm = j;
        r.z = (f.averageRanks[size_t(j)] - f.averageRanks[size_t(control)]) / se;
        r.p = Distributions::normalTwoSided(r.z);
        rows.push_back(r);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const HolmRow& a, const HolmRow& b) { return a.p < b.p; });
    double adjusted = 0;
    bool rejecting = true;
    for (size_t i = 0; i < rows.size(); ++i) {
        const double hypotheses = double(k - 1 - int(i)); // k − step, step = i + 1
        rows[i].adjustedAlpha = alpha / hypotheses;
        adjusted = std::max(adjusted, std::min(1.0, hypotheses * rows[i].p));
        rows[i].adjustedP = adjusted;
        rejecting = rejecting && adjusted <= alpha;
        rows[i].rejected = rejecting;
    }
    return rows;
}

BayesianSignedRankResult RankStatistics::bayesianSignedRank(const std::vector<double>& a, const std::vector<double>& b,
                                                            double rope, double prior, int samples, std::uint64_t seed)
{
    BayesianSignedRankResult r;
    r.rope = rope;
    r.samples = samples;
    if (a.size() != b.size()) {
        r.note = "the two samples differ in length (" + std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")";
        return r;
    }
    if (!(rope >= 0)) {
        r.note = "the rope must be ≥ 0";
        return r;
    }
    if (!(prior >= 0) || std::isinf(prior)) {
        r.note = "the prior's weight must be finite and ≥ 0";
        return r;
    }
    if (samples < 1) {
        r.note = "no Monte-Carlo draws asked for";
        return r;
    }
    // z[0] = 0 is the prior's pseudo-observation; z[1..n] the differences.
    std::vector<double> z{0.0};
    size_t dropped = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = a[i] - b[i];
        if (std::isnan(d)) // a NaN, or ∞ − ∞
            ++dropped;
        else
            z.push_back(d);
    }
    r.n = int(z.size()) - 1;
    if (dropped > 0)
        addNote(r.note, plural(dropped, "pair with a NaN dropped", "pairs with a NaN dropped"));
    if (r.n == 0) {
        addNote(r.note, "no pairs");
        return r;
    }
    r.valid = true;

    // θ_right = Σ_i Σ_j w_i w_j [z_i + z_j > 2·rope] (θ_left likewise < −2·rope). For each i
    // the j of each bracket form a suffix (a prefix) of z in ascending order, since a floating-
    // point sum is monotone in each term: found once by binary search on the very predicate,
    // then every draw costs O(n) through prefix sums of the weights in that order.
    const size_t m = z.size();
    std::vector<size_t> order(m);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return z[i] < z[j]; });
    std::vector<double> sorted(m);
    for (size_t t = 0; t < m; ++t)
        sorted[t] = z[order[t]];
    const double twoRope = 2 * rope;
    std::vector<size_t> rightFrom(m), leftUpTo(m);
    for (size_t i = 0; i < m; ++i) {
        const double zi = z[i];
        rightFrom[i] = size_t(std::partition_point(sorted.begin(), sorted.end(), [&](double v) { return !(zi + v > twoRope); }) - sorted.begin());
        leftUpTo[i] = size_t(std::partition_point(sorted.begin(), sorted.end(), [&](double v) { return zi + v < -twoRope; }) - sorted.begin());
    }

    // The weights are quantised to integers summing to about 2^52, so that the inner sums are
    // exact and do not depend on the order they are taken in: swapping a and b then swaps
    // θ_left and θ_right to the bit (the outer sums run over the same i in the same order).
    Variates random(seed);
    std::vector<double> gammas(m);
    std::vector<std::int64_t> weight(m), prefix(m + 1);
    std::vector<double> weightD(m), leftInner(m), ropeInner(m), rightInner(m);
    auto outer = [&](const std::vector<double>& inner) {
        double s = 0;
        for (size_t i = 0; i < m; ++i)
            s += weightD[i] * inner[i];
        return s;
    };
    long long leftWins = 0, ropeWins = 0, rightWins = 0; // in sixths of a draw: ties share it
    for (int s = 0; s < samples; ++s) {
        double total = 0;
        for (size_t i = 0; i < m; ++i) {
            gammas[i] = random.gamma(i == 0 ? prior : 1.0);
            total += gammas[i];
        }
        for (size_t i = 0; i < m; ++i) {
            weight[i] = std::llround(gammas[i] / total * 0x1p52);
            weightD[i] = double(weight[i]);
        }
        prefix[0] = 0;
        for (size_t t = 0; t < m; ++t)
            prefix[t + 1] = prefix[t] + weight[order[t]];
        const std::int64_t all = prefix[m];
        for (size_t i = 0; i < m; ++i) {
            const std::int64_t left = prefix[leftUpTo[i]], right = all - prefix[rightFrom[i]];
            leftInner[i] = double(left);
            rightInner[i] = double(right);
            ropeInner[i] = double(all - left - right);
        }
        const double thetaLeft = outer(leftInner), thetaRope = outer(ropeInner), thetaRight = outer(rightInner);
        const double best = std::max({thetaLeft, thetaRope, thetaRight});
        const int ties = int(thetaLeft == best) + int(thetaRope == best) + int(thetaRight == best);
        const int share = 6 / ties;
        leftWins += thetaLeft == best ? share : 0;
        ropeWins += thetaRope == best ? share : 0;
        rightWins += thetaRight == best ? share : 0;
    }
    const double draws = 6.0 * samples;
    r.left = double(leftWins) / draws;
    r.equivalent = double(ropeWins) / draws;
    r.right = double(rightWins) / draws;
    return r;
}

PerformanceProfile RankStatistics::performanceProfile(const std::vector<std::vector<double>>& costs)
{
    PerformanceProfile p;
    const size_t k = columns(costs);
    size_t shortRows = 0, negatives = 0, noFinite = 0;
    std::vector<size_t> counted; // the denominator's sets
    for (size_t s = 0; s < costs.size(); ++s) {
        std::vector<double> row = costs[s];
        if (row.size() < k) {
            ++shortRows;
            row.resize(k, kNaN);
        }
        for (double& c : row)
            if (c < 0) { // −∞ too: not a cost
                ++negatives;
                c = kNaN;
            }
        double best = kInf;
        for (double c : row)
            if (std::isfinite(c))
                best = std::min(best, c);
        std::vector<double> ratio(k);
        for (size_t j = 0; j < k; ++j) {
            const double c = row[j];
            if (std::isnan(c))
                ratio[j] = kNaN;
            else if (std::isinf(best) || std::isinf(c))
                ratio[j] = kInf;
            else if (best == 0)
                ratio[j] = c == 0 ? 1 : kInf;
            else
                ratio[j] = c / best; // 1 exactly for the best; +∞ if the quotient overflows
        }
        if (std::isinf(best))
            ++noFinite;
        else
            counted.push_back(s);
        p.ratios.push_back(std::move(ratio));
    }
    p.sets = int(counted.size());
    if (shortRows > 0)
        addNote(p.note, plural(shortRows, "row shorter than the widest: its missing costs are gaps",
                               "rows shorter than the widest: their missing costs are gaps"));
    if (negatives > 0)
        addNote(p.note, plural(negatives, "negative cost treated as a gap", "negative costs treated as gaps"));
    if (noFinite > 0)
        addNote(p.note, plural(noFinite, "set without a finite cost left out", "sets without a finite cost left out"));

    for (size_t s : counted)
        for (double v : p.ratios[s])
            if (std::isfinite(v))
                p.taus.push_back(v);
    std::sort(p.taus.begin(), p.taus.end());
    p.taus.erase(std::unique(p.taus.begin(), p.taus.end()), p.taus.end());

    p.rho.assign(k, {});
    if (counted.empty()) {
        addNote(p.note, "no set has a finite cost");
        return p;
    }
    for (size_t j = 0; j < k; ++j) {
        std::vector<double> mine;
        for (size_t s : counted)
            if (std::isfinite(p.ratios[s][j]))
                mine.push_back(p.ratios[s][j]);
        std::sort(mine.begin(), mine.end());
        p.rho[j].reserve(p.taus.size());
        size_t within = 0;
        for (double tau : p.taus) {
            while (within < mine.size() && mine[within] <= tau)
                ++within;
            p.rho[j].push_back(double(within) / double(counted.size()));
        }
    }
    return p;
}

std::vector<std::vector<int>> RankStatistics::nemenyiGroups(const std::vector<double>& ranks, double cd)
{
    std::vector<std::vector<int>> out;
    if (!(cd > 0) || ranks.size() < 2)
        return out;
    std::vector<int> order(ranks.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ranks[size_t(a)] < ranks[size_t(b)]; });
    const size_t k = order.size();
    // The graph "ranks differ by less than cd" of points on a line: its maximal cliques are the
    // longest windows from each algorithm on; a window ending where the last one ended lies inside it.
    size_t lastEnd = 0;
    for (size_t i = 0; i < k; ++i) {
        size_t j = i;
        while (j + 1 < k && ranks[size_t(order[j + 1])] - ranks[size_t(order[i])] < cd)
            ++j;
        if (j > i && (out.empty() || j > lastEnd)) {
            out.emplace_back(order.begin() + std::ptrdiff_t(i), order.begin() + std::ptrdiff_t(j) + 1);
            lastEnd = j;
        }
    }
    return out;
}

} // namespace tb::stats
