#include "AcrossSetsTables.h"

#include "ComparisonTables.h"

#include <stats/WilcoxonSignedRank.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tb {
namespace {

QString rankText(double r)
{
    return QString::number(r, 'f', r == std::round(r) ? 0 : 2);
}

// The configurations in order of their average rank (best first).
std::vector<int> byRank(const AcrossSetsResult& r)
{
    std::vector<int> order(r.friedman.averageRanks.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return r.friedman.averageRanks[size_t(a)] < r.friedman.averageRanks[size_t(b)];
    });
    return order;
}

// One metric on every set: it; else nullopt.
std::optional<MetricId> oneMetric(const AcrossSetsResult& r)
{
    if (r.sets.isEmpty())
        return std::nullopt;
    for (const AcrossSetsColumn& c : r.sets)
        if (c.metric != r.sets.first().metric)
            return std::nullopt;
    return r.sets.first().metric;
}

QString friedmanLine(const AcrossSetsResult& r)
{
    const stats::FriedmanResult& f = r.friedman;
    // Every set ranking alike makes F infinite and its p 0, which would read as certainty: say why.
    const QString fPart = std::isinf(f.imanDavenportF)
                              ? QStringLiteral("∞: every set ranks the configurations alike, and the F approximation "
                                               "has no p-value there")
                              : QStringLiteral("%1, p = %2").arg(f.imanDavenportF, 0, 'f', 3).arg(ComparisonTables::formatP(f.imanDavenportP));
    return QStringLiteral("Friedman χ²(%1) = %2, p = %3; Iman–Davenport F(%4, %5) = %6 (k = %7 configurations, N = %8 "
                          "data sets)")
        .arg(f.df1)
        .arg(f.chiSquare, 0, 'f', 3)
        .arg(ComparisonTables::formatP(f.chiSquareP))
        .arg(f.df1)
        .arg(f.df2)
        .arg(fPart)
        .arg(f.algorithms)
        .arg(f.sets);
}

} // namespace

TextTable AcrossSetsTables::perSet(const AcrossSetsResult& r)
{
    QStringList header{QStringLiteral("data set"), QStringLiteral("metric")};
    header << r.configurations;
    TextTable t(header);
    t.setTitle(QStringLiteral("Per data set: mean over seeds (rank on the set); * marks the best of a set"));
    for (int c = 2; c < header.size(); ++c)
        t.setAlign(c, TextTable::Align::Right);
    for (size_t d = 0; d < r.scores.size(); ++d) {
        const AcrossSetsColumn& col = r.sets[int(d)];
        const std::vector<double>& ranks = r.setRanks[d];
        QStringList row{col.dataset, RunMetric::label(col.metric)};
        for (size_t j = 0; j < r.scores[d].size(); ++j) {
            if (std::isnan(r.scores[d][j])) {
                row << QStringLiteral("—");
                continue;
            }
            const bool best = std::find(r.winners[d].begin(), r.winners[d].end(), int(j)) != r.winners[d].end();
            row << QStringLiteral("%1 (%2)%3").arg(RunMetric::format(col.metric, r.scores[d][j]), rankText(ranks[j]),
                                                   best ? QStringLiteral(" *") : QStringLiteral("  "));
        }
        t.addRow(row);
    }
    if (r.friedman.valid) {
        QStringList row{QStringLiteral("average rank"), QStringLiteral("over %1 sets").arg(r.friedman.sets)};
        for (double a : r.friedman.averageRanks)
            row << QString::number(a, 'f', 2) + QStringLiteral("  ");
        t.addRow(row);
    }
    for (const QString& g : r.gaps)
        t.addNote(QStringLiteral("— %1.").arg(g));
    if (r.friedman.setsLeftOut > 0)
        t.addNote(QStringLiteral("The average ranks leave out the %1 set(s) with a gap: ranks compare configurations "
                                 "on the sets they all ran on.")
                      .arg(r.friedman.setsLeftOut));
    return t;
}

QList<QList<int>> AcrossSetsTables::cliques(const AcrossSetsResult& r)
{
    QList<QList<int>> out;
    if (!r.friedman.valid)
        return out;
    for (const std::vector<int>& g : stats::RankStatistics::nemenyiGroups(r.friedman.averageRanks, r.criticalDifference))
        out << QList<int>(g.begin(), g.end());
    return out;
}

TextTable AcrossSetsTables::ranks(const AcrossSetsResult& r)
{
    TextTable t({QStringLiteral("configuration"), QStringLiteral("average rank"), QStringLiteral("sets won")});
    t.setAlign(1, TextTable::Align::Right);
    t.setAlign(2, TextTable::Align::Right);
    t.setTitle(QStringLiteral("Average ranks over data sets (1 = best), Friedman test, Nemenyi critical difference"));
    if (!r.friedman.valid) {
        t.addNote(QStringLiteral("No rank test: %1.").arg(QString::fromStdString(r.friedman.note)));
        return t;
    }
    std::vector<double> won(size_t(r.configurations.size()), 0.0);
    for (const std::vector<int>& w : r.winners)
        for (int j : w)
            won[size_t(j)] += 1.0 / double(w.size()); // a tie shares the win
    for (int j : byRank(r))
        t.addRow({r.configurations[j], QString::number(r.friedman.averageRanks[size_t(j)], 'f', 3),
                  QString::number(won[size_t(j)], 'g', 3)});
    t.addNote(friedmanLine(r) + QLatin1Char('.'));
    t.addNote(QStringLiteral("Nemenyi critical difference at α = %1: CD = %2 (q = %3): two configurations whose average "
                             "ranks differ by more are significantly different.")
                  .arg(r.alpha)
                  .arg(r.criticalDifference, 0, 'f', 3)
                  .arg(stats::RankStatistics::nemenyiQ(r.friedman.algorithms, r.alpha), 0, 'f', 3));
    const QList<QList<int>> groups = cliques(r);
    for (const QList<int>& g : groups) {
        QStringList names;
        for (int j : g)
            names << r.configurations[j];
        t.addNote(QStringLiteral("Not significantly different (within CD): %1.").arg(names.join(QStringLiteral(", "))));
    }
    if (r.friedman.decisionP() >= r.alpha)
        t.addNote(QStringLiteral("The Friedman test does not reject \"all configurations rank alike\" at α = %1: the "
                                 "post-hoc tests below are not warranted (Demšar 2006, §3.2.2).")
                      .arg(r.alpha));
    if (r.friedman.sets < 5)
        t.addNote(QStringLiteral("Only %1 data sets: the χ² and normal approximations behind these p-values want more "
                                 "(Demšar suggests N > 10, k > 5 for χ²_F); read them as rough.")
                      .arg(r.friedman.sets));
    return t;
}

TextTable AcrossSetsTables::holm(const AcrossSetsResult& r)
{
    TextTable t({QStringLiteral("configuration"), QStringLiteral("average rank"), QStringLiteral("z"),
                 QStringLiteral("p"), QStringLiteral("Holm α"), QStringLiteral("adjusted p"), QStringLiteral("differs")});
    for (int c = 1; c < 6; ++c)
        t.setAlign(c, TextTable::Align::Right);
    if (!r.friedman.valid) {
        t.setTitle(QStringLiteral("Holm's procedure against a control"));
        t.addNote(QStringLiteral("No rank test: %1.").arg(QString::fromStdString(r.friedman.note)));
        return t;
    }
    t.setTitle(QStringLiteral("Holm's procedure against %1 (average rank %2)")
                   .arg(r.configurations.value(r.control))
                   .arg(r.friedman.averageRanks[size_t(r.control)], 0, 'f', 3));
    for (const stats::HolmRow& h : r.holm)
        t.addRow({r.configurations[h.algorithm], QString::number(r.friedman.averageRanks[size_t(h.algorithm)], 'f', 3),
                  QString::number(h.z, 'f', 3), ComparisonTables::formatP(h.p), QString::number(h.adjustedAlpha, 'g', 3),
                  ComparisonTables::formatP(h.adjustedP), h.rejected ? QStringLiteral("yes") : QStringLiteral("no")});
    t.addNote(QStringLiteral("z = (R_i − R_control) / √(k(k+1)/(6N)); step-down from the smallest p, each against α/(k − i); "
                             "\"differs\": rejected at α = %1.")
                  .arg(r.alpha));
    return t;
}

double AcrossSetsTables::defaultRope(const AcrossSetsResult& r)
{
    const auto metric = oneMetric(r);
    if (!metric)
        return NaN;
    switch (*metric) {
    case MetricId::TestAccuracy:
    case MetricId::TrainAccuracy:
    case MetricId::ValidationAccuracy: return 0.01;
    default: break;
    }
    std::vector<double> all;
    for (const auto& row : r.scores)
        for (double v : row)
            if (std::isfinite(v))
                all.push_back(std::abs(v));
    if (all.empty())
        return NaN;
    std::nth_element(all.begin(), all.begin() + long(all.size() / 2), all.end());
    return 0.01 * all[all.size() / 2];
}

TextTable AcrossSetsTables::pairs(const AcrossSetsResult& r, double rope, std::uint64_t seed)
{
    TextTable t({QStringLiteral("configuration"), QStringLiteral("sets"), QStringLiteral("Wilcoxon p"),
                 QStringLiteral("P(control better)"), QStringLiteral("P(equivalent)"), QStringLiteral("P(this better)")});
    for (int c = 1; c < 6; ++c)
        t.setAlign(c, TextTable::Align::Right);
    const QString control = r.configurations.value(r.control);
    t.setTitle(QStringLiteral("Against %1 over the data sets: Wilcoxon signed-rank and Bayesian signed-rank tests").arg(control));
    const auto metric = oneMetric(r);
    if (!metric) {
        t.addNote(QStringLiteral("The sets are scored on different metrics (accuracy and RMSE): differences across them do "
                                 "not add up; give one metric (compare --metric) to test pairs over sets."));
        return t;
    }
    if (std::isnan(rope))
        rope = defaultRope(r);
    const bool higher = RunMetric::better(*metric) == stats::Better::Higher;
    for (int j = 0; j < r.configurations.size(); ++j) {
        if (j == r.control)
            continue;
        std::vector<double> mine, theirs;
        for (const auto& row : r.scores)
            if (!std::isnan(row[size_t(j)]) && !std::isnan(row[size_t(r.control)])) {
                // Oriented so that positive means "this configuration is better".
                mine.push_back(higher ? row[size_t(j)] : -row[size_t(j)]);
                theirs.push_back(higher ? row[size_t(r.control)] : -row[size_t(r.control)]);
            }
        const stats::WilcoxonResult w = stats::WilcoxonSignedRank::compute(mine, theirs);
        const stats::BayesianSignedRankResult b = stats::RankStatistics::bayesianSignedRank(mine, theirs, rope, 0.5, 50000, seed);
        t.addRow({r.configurations[j], QString::number(mine.size()), w.valid ? ComparisonTables::formatP(w.pValue) : QStringLiteral("-"),
                  b.valid ? QString::number(b.left, 'f', 3) : QStringLiteral("-"),
                  b.valid ? QString::number(b.equivalent, 'f', 3) : QStringLiteral("-"),
                  b.valid ? QString::number(b.right, 'f', 3) : QStringLiteral("-")});
    }
    t.addNote(QStringLiteral("Each set counts once, with its mean over seeds (%1). Bayesian signed-rank test (Benavoli et al. "
                             "2017): region of practical equivalence ±%2, prior weight 0.5 at 0, 50,000 posterior draws "
                             "(seed %3); a probability is the share of draws in which that region is the most likely.")
                  .arg(RunMetric::label(*metric), RunMetric::format(*metric, rope))
                  .arg(seed));
    return t;
}

} // namespace tb
