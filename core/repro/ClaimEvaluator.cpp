#include "ClaimEvaluator.h"

#include "ClaimMetric.h"
#include "FactPath.h"

#include <algorithm>
#include <engine/Comparison.h>
#include <stats/Descriptive.h>
#include <stats/Distributions.h>

#include <cmath>

namespace tb::repro {
namespace {

constexpr double kConfidence = 0.95;

struct Interval {
    double mean = NaN, low = NaN, high = NaN;
    bool point = false;  // two or more identical values: no spread (ClaimEvaluator::decide)
};

// The interval of a summary, scaled by @p scale.
Interval intervalOf(const stats::Summary& s, double scale = 1.0)
{
    return {s.mean * scale, s.ciLow * scale, s.ciHigh * scale, s.identical};
}

// A summary of stored values as the claim reads them: complemented (error = 1 − accuracy) and
// scaled (accuracy in percent).
Interval transformed(double mean, double low, double high, bool complement, double scale)
{
    if (complement) {
        mean = 1 - mean;
        std::swap(low, high);
        low = 1 - low;
        high = 1 - high;
    }
    return {mean * scale, low * scale, high * scale, false};
}

bool isAccuracy(MetricId m)
{
    return m == MetricId::TestAccuracy || m == MetricId::TrainAccuracy || m == MetricId::ValidationAccuracy;
}

QString quoted(const QString& s)
{
    return QStringLiteral("“%1”").arg(s);
}

QString targetText(const ClaimStatistic& s)
{
    const auto m = ClaimMetric::fromKey(s.metric);
    if (m && isAccuracy(m->stored))
        return QString::number(100 * s.target, 'g', 4) + QStringLiteral(" %");
    return QString::number(s.target, 'g', 4);
}

// @p cpu: the configurations' runs are timed on the CPU clock (a cpu budget), so their times
// are CPU seconds, and the words say so.
QString describeStatistic(const ClaimStatistic& s, bool cpu)
{
    const QString training = cpu ? QStringLiteral("training CPU") : QStringLiteral("training");
    const QString metric = ClaimMetric::label(s.metric);
    const QString a = quoted(s.algorithm), b = quoted(s.against);
    if (s.kind == QLatin1String("final"))
        return QStringLiteral("%1 at the final checkpoint of %2").arg(metric, a);
    if (s.kind == QLatin1String("at_time"))
        return QStringLiteral("%1 of %2 after %3 s of %4 time (each run's last checkpoint by then)")
            .arg(metric, a, QString::number(s.seconds, 'g', 4), training);
    if (s.kind == QLatin1String("time_to_target"))
        return QStringLiteral("%1 seconds of %2 to reach %3 %4").arg(training, a, metric, targetText(s));
    if (s.kind == QLatin1String("time_ratio"))
        return QStringLiteral(
                   "%1's %5 time to reach %2 %3 over %4's, paired by seed (> 1: %4 is faster)")
            .arg(b, metric, targetText(s), a, training);
    if (s.kind == QLatin1String("win_tie_loss"))
        return QStringLiteral("wins of %1 against %2 on %3 over paired seeds (tie band %4 %)")
            .arg(a, b, metric, QString::number(100 * s.tieBand, 'g', 3));
    if (s.kind == QLatin1String("difference"))
        return QStringLiteral("%1 of %2 minus that of %3, paired by seed").arg(metric, a, b);
    if (s.kind == QLatin1String("slope"))
        return QStringLiteral("slope of log %1 against log %2 of %3 (checkpoints with %2 ≥ %4), per run")
            .arg(metric,
                 s.x == QLatin1String("time") ? training + QStringLiteral(" time") : QStringLiteral("epoch"), a,
                 QString::number(s.from, 'g', 4));
    const QString fact = quoted(s.fact), over = quoted(s.over.isEmpty() ? s.fact : s.over);
    if (s.kind == QLatin1String("fact"))
        return QStringLiteral("the run fact %1 of %2, per run").arg(fact, a);
    if (s.kind == QLatin1String("fact_ratio"))
        return s.against.isEmpty()
                   ? QStringLiteral("the run fact %1 over %2 of the same run of %3; geometric mean over runs")
                         .arg(fact, over, a)
                   : QStringLiteral("the run fact %1 of %2 over %3 of %4, paired by seed; geometric mean")
                         .arg(fact, a, over, b);
    if (s.kind == QLatin1String("fact_difference"))
        return s.against.isEmpty() ? QStringLiteral("the run fact %1 minus %2 of the same run of %3, per run")
                                         .arg(fact, over, a)
                                   : QStringLiteral("the run fact %1 of %2 minus %3 of %4, paired by seed")
                                         .arg(fact, a, over, b);
    if (s.kind == QLatin1String("sweep"))
        return QStringLiteral("%1 of %2 at σ = %3 over the noise sweep's Monte-Carlo cells")
            .arg(s.metric == QLatin1String("train_rmse") ? QStringLiteral("train RMSE")
                                                         : QStringLiteral("test RMSE"),
                 a, QString::number(s.sigma, 'g', 4));
    return s.kind;
}

// The samples of configuration @p name, on the claim's data set.
const ConfigurationSample* findSample(const QList<ConfigurationSample>& samples, const QString& name,
                                      const QString& dataset, QString* error)
{
    QList<const ConfigurationSample*> matches;
    QStringList names, datasets;
    for (const ConfigurationSample& s : samples) {
        if (!names.contains(s.configuration))
            names << s.configuration;
        if (!datasets.contains(s.dataset))
            datasets << s.dataset;
        if (s.configuration == name &&
            (dataset.isEmpty() || s.dataset.contains(dataset, Qt::CaseInsensitive)))
            matches << &s;
    }
    if (matches.size() == 1)
        return matches.first();
    if (matches.isEmpty())
        *error =
            names.contains(name)
                ? QStringLiteral(
                      "configuration \"%1\" did not run on a data set matching \"%2\" (data sets: %3)")
                      .arg(name, dataset, datasets.join(QStringLiteral("; ")))
                : QStringLiteral("no configuration \"%1\" in the experiment's results (configurations: %2)")
                      .arg(name, names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", ")));
    else
        *error = QStringLiteral(
                     "configuration \"%1\" ran on several data sets (%2): name one in statistic.dataset")
                     .arg(name, datasets.join(QStringLiteral("; ")));
    return nullptr;
}

// Least-squares slope of log y against log x; NaN for fewer than three usable points.
double logLogSlope(const std::vector<double>& x, const std::vector<double>& y)
{
    std::vector<double> lx, ly;
    for (size_t i = 0; i < x.size(); ++i)
        if (x[i] > 0 && y[i] > 0 && std::isfinite(x[i]) && std::isfinite(y[i])) {
            lx.push_back(std::log(x[i]));
            ly.push_back(std::log(y[i]));
        }
    if (lx.size() < 3)
        return NaN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < lx.size(); ++i) {
        mx += lx[i];
        my += ly[i];
    }
    mx /= double(lx.size());
    my /= double(ly.size());
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < lx.size(); ++i) {
        sxy += (lx[i] - mx) * (ly[i] - my);
        sxx += (lx[i] - mx) * (lx[i] - mx);
    }
    return sxx > 0 ? sxy / sxx : NaN;
}

bool lowerIsClaimed(const QString& rule)
{
    return rule == QLatin1String("mean_ci_contains_or_below") || rule == QLatin1String("mean_ci_below");
}

} // namespace

QString ClaimEvaluator::formatValue(double v, const QString& unit)
{
    if (!std::isfinite(v))
        return QStringLiteral("–");
    // Large figures in full ("1000×", not "1e+03×").
    if (unit != QLatin1String("%") && std::abs(v) >= 1000 && std::abs(v) < 1e9)
        return QString::number(v, 'f', 0) +
               (unit == QLatin1String("x") ? QStringLiteral("×") : QLatin1Char(' ') + unit);
    if (unit == QLatin1String("%"))
        return QString::number(v, 'f', 2) + QStringLiteral(" %");
    if (unit == QLatin1String("x"))
        return QString::number(v, 'g', 3) + QStringLiteral("×");
    if (unit == QLatin1String("s"))
        return QString::number(v, 'g', 3) + QStringLiteral(" s");
    if (unit == QLatin1String("points"))
        return QString::number(v, 'f', 2) + QStringLiteral(" points");
    if (unit == QLatin1String("wins"))
        return QString::number(v, 'g', 4) + QStringLiteral(" wins");
    if (unit.isEmpty() || unit == QLatin1String("slope"))
        return QString::number(v, 'g', 4);
    return QString::number(v, 'g', 4) + QLatin1Char(' ') + unit;
}

QString ClaimEvaluator::describeRule(const VerdictRule& rule, const Figure& figure)
{
    const QString f = formatValue(figure.value, figure.unit);
    const QString& r = rule.rule;
    if (r == QLatin1String("mean_ci_contains_or_exceeds"))
        return QStringLiteral("holds if the 95 % interval of the mean contains or exceeds %1").arg(f);
    if (r == QLatin1String("mean_ci_contains_or_below"))
        return QStringLiteral("holds if the 95 % interval of the mean contains %1 or lies below it").arg(f);
    if (r == QLatin1String("mean_ci_contains"))
        return QStringLiteral("holds if the 95 % interval of the mean contains %1").arg(f);
    if (r == QLatin1String("mean_ci_above"))
        return QStringLiteral(
                   "holds if the 95 % interval of the mean lies above %1, does not if it lies at or below "
                   "it, inconclusive if it straddles it")
            .arg(f);
    if (r == QLatin1String("mean_ci_below"))
        return QStringLiteral(
                   "holds if the 95 % interval of the mean lies below %1, does not if it lies at or above "
                   "it, inconclusive if it straddles it")
            .arg(f);
    if (r == QLatin1String("ratio_at_least"))
        return QStringLiteral(
                   "holds if the 95 % interval of the geometric-mean ratio lies at or above %1, does not if "
                   "it lies below it, inconclusive if it straddles it")
            .arg(f);
    if (r == QLatin1String("wins_at_least"))
        return QStringLiteral("holds if the wins are at least %1 % of the paired seeds")
            .arg(QString::number(100 * rule.fraction, 'g', 3));
    if (r == QLatin1String("wins_at_most"))
        return QStringLiteral("holds if the wins are at most %1 % of the paired seeds")
            .arg(QString::number(100 * rule.fraction, 'g', 3));
    return r;
}

Verdict ClaimEvaluator::decide(const QString& rule, double low, double high, double figure, QString* reason,
                               const QString& unit, bool point)
{
    if (!std::isfinite(low) || !std::isfinite(high)) {
        *reason = QStringLiteral("no interval (fewer than two values)");
        return Verdict::Inconclusive;
    }
    const QString f = formatValue(figure, unit);
    QString interval = QStringLiteral("[%1, %2]").arg(formatValue(low, unit), formatValue(high, unit));
    if (point) {
        // One computed number, not a spread: equal to the figure within its rounding counts as
        // the figure (the rules below then say "contains", or "at or below" for a strict one).
        const double v = 0.5 * (low + high);
        const bool equal = std::abs(v - figure) <= kPointTolerance * std::max(std::abs(v), std::abs(figure));
        interval = QStringLiteral("[%1, %2] (identical values, no spread%3)")
                       .arg(formatValue(low, unit), formatValue(high, unit),
                            equal && v != figure
                                ? QStringLiteral("; %1 equals the figure within rounding").arg(v, 0, 'g', 17)
                                : QString());
        if (equal)
            low = high = figure;
    }
    auto say = [&](Verdict v, const QString& why) {
        *reason = QStringLiteral("interval %1 %2 %3").arg(interval, why, f);
        return v;
    };
    if (rule == QLatin1String("mean_ci_contains_or_exceeds"))
        return high >= figure ? say(Verdict::Holds,
                                    low <= figure ? QStringLiteral("contains") : QStringLiteral("lies above"))
                              : say(Verdict::DoesNotHold, QStringLiteral("lies below"));
    if (rule == QLatin1String("mean_ci_contains_or_below"))
        return low <= figure ? say(Verdict::Holds,
                                   high >= figure ? QStringLiteral("contains") : QStringLiteral("lies below"))
                             : say(Verdict::DoesNotHold, QStringLiteral("lies above"));
    if (rule == QLatin1String("mean_ci_contains")) {
        if (low <= figure && figure <= high)
            return say(Verdict::Holds, QStringLiteral("contains"));
        return say(Verdict::DoesNotHold,
                   high < figure ? QStringLiteral("lies below") : QStringLiteral("lies above"));
    }
    if (rule == QLatin1String("mean_ci_above")) {
        if (low > figure)
            return say(Verdict::Holds, QStringLiteral("lies above"));
        if (high <= figure)
            return say(Verdict::DoesNotHold, QStringLiteral("lies at or below"));
        return say(Verdict::Inconclusive, QStringLiteral("straddles"));
    }
    if (rule == QLatin1String("mean_ci_below")) {
        if (high < figure)
            return say(Verdict::Holds, QStringLiteral("lies below"));
        if (low >= figure)
            return say(Verdict::DoesNotHold, QStringLiteral("lies at or above"));
        return say(Verdict::Inconclusive, QStringLiteral("straddles"));
    }
    if (rule == QLatin1String("ratio_at_least")) {
        if (low >= figure)
            return say(Verdict::Holds, QStringLiteral("lies at or above"));
        if (high < figure)
            return say(Verdict::DoesNotHold, QStringLiteral("lies below"));
        return say(Verdict::Inconclusive, QStringLiteral("straddles"));
    }
    *reason = QStringLiteral("unknown rule \"%1\"").arg(rule);
    return Verdict::Inconclusive;
}

namespace {

// The values of a fact statistic (fact, fact_ratio, fact_difference): per run or pair by seed the
// fact, the log of the ratio, or the difference; and what kept runs out.
struct FactValues {
    std::vector<double> values;
    int runs = 0;        ///< runs of the claim's configuration
    int found = 0;       ///< of them, with the fact
    int unpaired = 0;    ///< of them, without a run of the other configuration with their seed
    int notPositive = 0; ///< ratios with a fact ≤ 0
    QString firstWhy;    ///< why the first fact that could not be read was not
};

// One claim's evaluation, one step a method: the statistic's kind chosen, its samples found, its
// values summarised, and the verdict decided by the claim's rule.
class ClaimEvaluation {
public:
    // The outcome's texts: the claim, the statistic (on the cpu clock when its runs are), the rule.
    ClaimEvaluation(const Claim& claim, const ExperimentResult& result, int planned)
        : m_claim(claim), m_s(claim.statistic), m_result(result), m_planned(planned)
    {
        m_o.claimId = claim.id;
        m_o.planned = planned;
        const bool cpu = std::any_of(result.curves.begin(), result.curves.end(), [&](const AlgorithmCurves& c) {
            const QString name = c.configuration.isEmpty() ? c.label : c.configuration;
            return c.clock == ClockKind::Cpu && (name == m_s.algorithm || (!m_s.against.isEmpty() && name == m_s.against));
        });
        m_o.statisticText = describeStatistic(m_s, cpu);
        m_o.ruleText = ClaimEvaluator::describeRule(claim.verdict, claim.figure);
    }

    // The statistic by its kind: a noise sweep's point, a fact, or a metric of the runs.
    ClaimOutcome run()
    {
        if (m_s.kind == QLatin1String("sweep"))
            return sweep();
        if (m_s.kind == QLatin1String("fact") || m_s.kind == QLatin1String("fact_ratio") ||
            m_s.kind == QLatin1String("fact_difference"))
            return fact();
        return metricStatistic();
    }

private:
    // The measured interval into the outcome, and the verdict the claim's rule gives it.
    void decideInterval(const Interval& iv)
    {
        m_o.measured = std::isfinite(iv.mean);
        m_o.mean = iv.mean;
        m_o.ciLow = iv.low;
        m_o.ciHigh = iv.high;
        m_o.verdict = ClaimEvaluator::decide(m_claim.verdict.rule, iv.low, iv.high, m_claim.figure.value, &m_o.reason,
                                             m_claim.figure.unit, iv.point);
    }

    // "sweep": the noise sweep's mean RMSE at the claim's σ, with a t-interval over its cells.
    ClaimOutcome sweep()
    {
        QStringList seen;
        for (const SummaryPoint& p : m_result.summary) {
            seen << QStringLiteral("%1 at σ %2").arg(p.algorithmName).arg(p.x);
            if (p.algorithmName != m_s.algorithm || std::abs(p.x - m_s.sigma) > 1e-9)
                continue;
            const bool train = m_s.metric == QLatin1String("train_rmse");
            const double mean = train ? p.trainRmseMean : p.testRmseMean;
            const double sd = train ? p.trainRmseStd : p.testRmseStd;
            m_o.n = p.count;
            m_o.failedRuns = std::max(0, m_planned - p.count);
            Interval iv{mean, NaN, NaN};
            if (p.count >= 2 && std::isfinite(sd)) {
                const double t = stats::Distributions::studentTQuantile(0.5 + kConfidence / 2, p.count - 1);
                const double half = t * sd / std::sqrt(double(p.count));
                iv = {mean, mean - half, mean + half, sd == 0};
            }
            m_o.detail = QStringLiteral("%1 Monte-Carlo cells, standard deviation %2").arg(p.count).arg(sd, 0, 'g', 4);
            decideInterval(iv);
            return m_o;
        }
        m_o.error = QStringLiteral("the noise sweep has no point of \"%1\" at σ %2 (points: %3)")
                        .arg(m_s.algorithm)
                        .arg(m_s.sigma)
                        .arg(seen.isEmpty() ? QStringLiteral("none") : seen.join(QStringLiteral(", ")));
        m_o.reason = m_o.error;
        return m_o;
    }

    // "fact", "fact_ratio", "fact_difference": a number the runs record, summarised over runs or
    // pairs by seed (a ratio on the log scale).
    ClaimOutcome fact()
    {
        // The metric does not matter: the samples are read for their seeds and facts.
        const QList<ConfigurationSample> all = Comparison::samples(m_result.curves, MetricId::Loss);
        const ConfigurationSample* a = findSample(all, m_s.algorithm, m_s.dataset, &m_o.error);
        const ConfigurationSample* b =
            a && !m_s.against.isEmpty() ? findSample(all, m_s.against, m_s.dataset, &m_o.error) : nullptr;
        if (!a || (!m_s.against.isEmpty() && !b)) {
            m_o.reason = m_o.error;
            return m_o;
        }
        m_o.failedRuns = a->excluded + (b ? b->excluded : 0);
        const bool ratio = m_s.kind == QLatin1String("fact_ratio");
        const FactValues f = factValues(*a, b);
        if (f.runs > 0 && f.found == 0 && !f.firstWhy.isEmpty()) {
            // No run has the fact: the claims file names it wrongly (or the plugin never records it).
            m_o.error = m_o.reason = QStringLiteral("fact \"%1\": %2").arg(m_s.fact, f.firstWhy);
            return m_o;
        }
        const stats::Summary sum = stats::Descriptive::summarise(f.values, kConfidence);
        m_o.n = sum.count;
        const int expected = f.runs - f.unpaired;
        const QString unit = m_claim.figure.unit;
        if (ratio) {
            m_o.detail = QStringLiteral("%1 %2; geometric standard deviation ×%3")
                             .arg(sum.count)
                             .arg(b ? QStringLiteral("pair(s) by seed") : QStringLiteral("run(s)"))
                             .arg(std::exp(sum.std), 0, 'g', 3);
            decideInterval({std::exp(sum.mean), std::exp(sum.ciLow), std::exp(sum.ciHigh), sum.identical});
        } else {
            m_o.detail = QStringLiteral("%1 %2; standard deviation %3")
                             .arg(sum.count)
                             .arg(b ? QStringLiteral("pair(s) by seed") : QStringLiteral("run(s)"))
                             .arg(ClaimEvaluator::formatValue(sum.std, unit));
            decideInterval(intervalOf(sum));
        }
        if (f.unpaired > 0)
            m_o.detail += QStringLiteral("; %1 run(s) of %2 had no run of %3 with their seed")
                              .arg(f.unpaired)
                              .arg(quoted(m_s.algorithm), quoted(m_s.against));
        if (f.notPositive > 0) {
            m_o.verdict = Verdict::Inconclusive;
            m_o.reason = QStringLiteral("%1 of %2 ratio(s) had a fact ≤ 0 (no ratio on the log scale); the "
                                        "geometric mean of the others says nothing of them")
                             .arg(f.notPositive)
                             .arg(expected);
        } else if (sum.count < expected) {
            m_o.verdict = Verdict::Inconclusive;
            m_o.reason = QStringLiteral("%1 of %2 run(s) or pair(s) lack the fact: %3")
                             .arg(expected - sum.count)
                             .arg(expected)
                             .arg(f.firstWhy);
        } else if (sum.count == 0) {
            m_o.reason = b ? QStringLiteral("no seeds shared by %1 and %2").arg(quoted(m_s.algorithm), quoted(m_s.against))
                           : QStringLiteral("no finished run of %1").arg(quoted(m_s.algorithm));
        }
        return m_o;
    }

    // The fact statistic's values: per run of @p a the fact (with @p b, paired by seed, or with
    // "over", a second fact of the same run) as a difference or the log of the ratio.
    FactValues factValues(const ConfigurationSample& a, const ConfigurationSample* b) const
    {
        const bool single = m_s.kind == QLatin1String("fact");
        const bool ratio = m_s.kind == QLatin1String("fact_ratio");
        const QString second = m_s.over.isEmpty() ? m_s.fact : m_s.over;
        FactValues f;
        auto read = [&](const QJsonObject& facts, const QString& path, const QString& configuration) {
            QString why;
            const std::optional<double> v = FactPath::number(facts, path, &why);
            if (!v && f.firstWhy.isEmpty())
                f.firstWhy = QStringLiteral("%1 (a run of %2)").arg(why, quoted(configuration));
            return v;
        };
        for (int i = 0; i < a.seeds.size(); ++i) {
            ++f.runs;
            const std::optional<double> x = read(a.infos.value(i), m_s.fact, a.configuration);
            if (x)
                ++f.found;
            if (single) {
                if (x)
                    f.values.push_back(*x);
                continue;
            }
            std::optional<double> y;
            if (b) {
                const qsizetype j = b->seeds.indexOf(a.seeds[i]);
                if (j < 0) {
                    ++f.unpaired;
                    continue;
                }
                y = read(b->infos.value(j), second, b->configuration);
            } else {
                y = read(a.infos.value(i), second, a.configuration);
            }
            if (!x || !y)
                continue;
            if (!ratio)
                f.values.push_back(*x - *y);
            else if (*x > 0 && *y > 0)
                f.values.push_back(std::log(*x / *y));
            else
                ++f.notPositive;
        }
        return f;
    }

    // A statistic of a metric of the runs: the metric and the samples of the claim's
    // configuration (and the one it is compared against), then the statistic by its kind.
    ClaimOutcome metricStatistic()
    {
        const auto metric = ClaimMetric::fromKey(m_s.metric);
        if (!metric) {
            m_o.error = m_o.reason = QStringLiteral("unknown metric \"%1\"").arg(m_s.metric);
            return m_o;
        }
        m_metric = *metric;
        // Accuracies and errors in percent ("%") or, for differences, in percentage points.
        m_percent = (m_claim.figure.unit == QLatin1String("%") || m_claim.figure.unit == QLatin1String("points")) &&
                    (isAccuracy(m_metric.stored) || m_metric.complement);
        const QList<ConfigurationSample> all = Comparison::samples(m_result.curves, m_metric.stored);
        const ConfigurationSample* a = findSample(all, m_s.algorithm, m_s.dataset, &m_o.error);
        if (!a) {
            m_o.reason = m_o.error;
            return m_o;
        }
        const ConfigurationSample* b = nullptr;
        if (!m_s.against.isEmpty()) {
            b = findSample(all, m_s.against, m_s.dataset, &m_o.error);
            if (!b) {
                m_o.reason = m_o.error;
                return m_o;
            }
        }
        m_o.failedRuns = a->excluded + (b ? b->excluded : 0);
        m_scale = m_percent ? 100.0 : 1.0;
        if (m_s.kind == QLatin1String("final"))
            return finalValue(*a);
        if (m_s.kind == QLatin1String("at_time"))
            return atTime(*a);
        if (m_s.kind == QLatin1String("time_to_target") || m_s.kind == QLatin1String("time_ratio"))
            return timeToTarget(*a, b);
        if (m_s.kind == QLatin1String("win_tie_loss") || m_s.kind == QLatin1String("difference"))
            return paired(*a, *b);
        if (m_s.kind == QLatin1String("slope"))
            return slope(*a);
        m_o.error = m_o.reason = QStringLiteral("unknown statistic \"%1\"").arg(m_s.kind);
        return m_o;
    }

    // "final": the metric's final value, a t-interval over the finished runs.
    ClaimOutcome finalValue(const ConfigurationSample& a)
    {
        std::vector<double> values;
        for (double v : a.values)
            values.push_back(m_metric.complement ? 1 - v : v);
        const stats::Summary sum = stats::Descriptive::summarise(values, kConfidence);
        m_o.n = sum.count;
        m_o.detail = QStringLiteral("%1 finished run(s); standard deviation %2")
                         .arg(sum.count)
                         .arg(ClaimEvaluator::formatValue(sum.std * m_scale,
                                                          m_percent ? QStringLiteral("%") : m_claim.figure.unit));
        decideInterval(intervalOf(sum, m_scale));
        return m_o;
    }

    // "at_time": the metric at the claim's training time, over the runs with a checkpoint by then.
    ClaimOutcome atTime(const ConfigurationSample& a)
    {
        const MatchedTimeTable t = Comparison::atTimes({a}, m_metric.stored, {m_s.seconds}, kConfidence);
        const stats::Summary sum = t.rows.value(0).at.value(0);
        m_o.n = sum.count;
        m_o.detail = QStringLiteral("%1 of %2 finished run(s) had a checkpoint by %3 s")
                         .arg(sum.count)
                         .arg(a.values.size())
                         .arg(m_s.seconds);
        Interval at = transformed(sum.mean, sum.ciLow, sum.ciHigh, m_metric.complement, m_scale);
        at.point = sum.identical;
        decideInterval(at);
        return m_o;
    }

    // "time_to_target" and "time_ratio": the row of the claim's configuration in the
    // time-to-target table (against @p b when given), then its time or its speed ratio.
    ClaimOutcome timeToTarget(const ConfigurationSample& a, const ConfigurationSample* b)
    {
        const double target = m_metric.complement ? 1 - m_s.target : m_s.target;
        QList<ConfigurationSample> both{a};
        if (b)
            both << *b;
        const TimeToTargetTable t =
            Comparison::timeToTarget(both, m_metric.stored, target, b ? b->configuration : QString(), kConfidence);
        const TimeToTargetRow* row = nullptr;
        for (const TimeToTargetRow& r : t.rows)
            if (r.configuration == a.configuration && r.dataset == a.dataset)
                row = &r;
        if (!row) {
            m_o.error = m_o.reason = QStringLiteral("no time-to-target row for \"%1\"").arg(m_s.algorithm);
            return m_o;
        }
        const QString on = t.selection != t.metric
                               ? QStringLiteral("; the target is reached on %1").arg(RunMetric::label(t.selection))
                               : QString();
        if (m_s.kind == QLatin1String("time_to_target"))
            return timeReached(*row, on);
        return timeRatio(*row, on);
    }

    // "time_to_target": the mean time to the target over the runs; runs that never reach it
    // refute a claim of a short time and leave any other inconclusive.
    ClaimOutcome timeReached(const TimeToTargetRow& row, const QString& on)
    {
        const int runs = int(row.seconds.size());
        m_o.n = row.reached;
        double missMean = 0;
        int misses = 0;
        for (int i = 0; i < row.seconds.size(); ++i)
            if (std::isfinite(row.seconds[i])) {
                missMean += row.lastMissSeconds.value(i);
                ++misses;
            }
        m_o.detail = QStringLiteral("reached by %1 of %2 run(s)%3").arg(row.reached).arg(runs).arg(on);
        if (misses > 0)
            m_o.detail += QStringLiteral("; each run's time is the first checkpoint at the target, the target was "
                                         "crossed after its previous checkpoint (mean %1 s)")
                              .arg(missMean / misses, 0, 'g', 3);
        decideInterval(intervalOf(row.summary));
        if (row.reached < runs && lowerIsClaimed(m_claim.verdict.rule)) {
            m_o.verdict = Verdict::DoesNotHold;
            m_o.reason = QStringLiteral("%1 of %2 run(s) never reached the target").arg(runs - row.reached).arg(runs);
        } else if (row.reached < runs) {
            m_o.verdict = Verdict::Inconclusive;
            m_o.reason = QStringLiteral("%1 of %2 run(s) never reached the target: the mean of the others says "
                                        "nothing of them")
                             .arg(runs - row.reached)
                             .arg(runs);
        }
        return m_o;
    }

    // "time_ratio": the geometric mean speed ratio over the pairs where both reached the target.
    ClaimOutcome timeRatio(const TimeToTargetRow& row, const QString& on)
    {
        const stats::SpeedRatioResult& ratio = row.speedupOverBaseline;
        m_o.n = ratio.n;
        m_o.detail = QStringLiteral("%1 pair(s) where both reached the target; %2 missed by %3, %4 by %5%6")
                         .arg(ratio.n)
                         .arg(ratio.aMissed)
                         .arg(quoted(m_s.algorithm))
                         .arg(ratio.bMissed)
                         .arg(quoted(m_s.against))
                         .arg(on);
        if (!ratio.valid) {
            m_o.reason = QStringLiteral("no pair of runs where both reached the target");
            m_o.verdict = Verdict::Inconclusive;
            return m_o;
        }
        decideInterval({ratio.geometricMean, ratio.ciLow, ratio.ciHigh, ratio.n >= 2 && ratio.min == ratio.max});
        return m_o;
    }

    // "win_tie_loss" and "difference": the claim's configuration against @p b over the seeds both ran.
    ClaimOutcome paired(const ConfigurationSample& a, const ConfigurationSample& b)
    {
        const QList<PairwiseComparison> pairs =
            Comparison::pairwise({a, b}, m_metric.stored, b.configuration, m_s.tieBand, kConfidence);
        const PairwiseComparison* pc = nullptr;
        for (const PairwiseComparison& p : pairs)
            if (p.configuration == a.configuration && p.dataset == a.dataset)
                pc = &p;
        if (!pc || pc->pairs == 0) {
            m_o.reason = QStringLiteral("no seeds shared by %1 and %2").arg(quoted(m_s.algorithm), quoted(m_s.against));
            m_o.verdict = Verdict::Inconclusive;
            return m_o;
        }
        m_o.n = pc->pairs;
        if (m_s.kind == QLatin1String("win_tie_loss"))
            return winTieLoss(*pc);
        return difference(*pc);
    }

    // "win_tie_loss": the wins counted against the paper's count scaled to the pairs there are.
    ClaimOutcome winTieLoss(const PairwiseComparison& pc)
    {
        const auto& w = pc.winTieLoss;
        m_o.measured = true;
        m_o.mean = w.wins;
        m_o.detail = QStringLiteral("wins %1, ties %2, losses %3 of %4 paired seed(s)")
                         .arg(w.wins)
                         .arg(w.ties)
                         .arg(w.losses)
                         .arg(pc.pairs);
        // The paper's count scaled to the pairs there are: fraction × pairs, rounded towards
        // the stricter side (a quick variant's 3 seeds need 3 wins for "10 of 10").
        const double bound = m_claim.verdict.fraction * pc.pairs;
        if (m_claim.verdict.rule == QLatin1String("wins_at_most")) {
            m_o.countBound = int(std::floor(bound + 1e-9));
            m_o.verdict = w.wins <= m_o.countBound ? Verdict::Holds : Verdict::DoesNotHold;
            m_o.reason =
                QStringLiteral("%1 wins of %2 pairs, at most %3 allowed").arg(w.wins).arg(pc.pairs).arg(m_o.countBound);
        } else {
            m_o.countBound = int(std::ceil(bound - 1e-9));
            m_o.verdict = w.wins >= m_o.countBound ? Verdict::Holds : Verdict::DoesNotHold;
            m_o.reason = QStringLiteral("%1 wins of %2 pairs, %3 needed").arg(w.wins).arg(pc.pairs).arg(m_o.countBound);
        }
        return m_o;
    }

    // "difference": the paired t-test's mean difference and its interval.
    ClaimOutcome difference(const PairwiseComparison& pc)
    {
        const auto& t = pc.tTest;
        m_o.detail = QStringLiteral("paired t-test over %1 seed(s): p = %2").arg(t.n).arg(t.pValue, 0, 'g', 3);
        const bool point = t.valid && t.sdDifference == 0; // every pair differs by the same amount
        Interval iv{t.meanDifference, t.ciLow, t.ciHigh, point};
        if (m_metric.complement)
            iv = {-t.meanDifference, -t.ciHigh, -t.ciLow, point};
        decideInterval({iv.mean * m_scale, iv.low * m_scale, iv.high * m_scale, point});
        if (!t.valid && m_o.verdict == Verdict::Inconclusive)
            m_o.reason = t.note.empty() ? m_o.reason : QString::fromStdString(t.note);
        return m_o;
    }

    // "slope": each run's log-log slope of the metric against epochs or time (from "from" on).
    ClaimOutcome slope(const ConfigurationSample& a)
    {
        std::vector<double> slopes;
        const bool time = m_s.x == QLatin1String("time");
        for (const QVector<MetricPoint>& curve : a.curves) {
            std::vector<double> x, y;
            for (const MetricPoint& p : curve) {
                const double xv = time ? p.trainTime : p.epoch;
                if (xv < m_s.from)
                    continue;
                double v = RunMetric::atPoint(m_metric.stored, p);
                if (m_metric.complement)
                    v = 1 - v;
                x.push_back(xv);
                y.push_back(v);
            }
            const double slope = logLogSlope(x, y);
            if (std::isfinite(slope))
                slopes.push_back(slope);
        }
        const stats::Summary sum = stats::Descriptive::summarise(slopes, kConfidence);
        m_o.n = sum.count;
        m_o.detail = QStringLiteral("%1 of %2 run(s) had three or more checkpoints to fit; standard deviation %3")
                         .arg(sum.count)
                         .arg(a.curves.size())
                         .arg(sum.std, 0, 'g', 3);
        decideInterval(intervalOf(sum));
        return m_o;
    }

    const Claim& m_claim;
    const ClaimStatistic& m_s;
    const ExperimentResult& m_result;
    const int m_planned;
    ClaimOutcome m_o;
    ClaimMetricId m_metric;  // metricStatistic(): the metric, and whether 1 − it is used
    bool m_percent = false;  // metricStatistic(): accuracies and errors shown in percent (points)
    double m_scale = 1.0;    // 100 with m_percent
};

} // namespace

ClaimOutcome ClaimEvaluator::evaluate(const Claim& claim, const ExperimentResult& result, int planned)
{
    return ClaimEvaluation(claim, result, planned).run();
}

} // namespace tb::repro
