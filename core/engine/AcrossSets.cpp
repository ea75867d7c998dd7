#include "AcrossSets.h"

#include <stats/Descriptive.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The samples of data set @p dataset, in their order.
QList<ConfigurationSample> ofSet(const QList<ConfigurationSample>& samples, const QString& dataset)
{
    QList<ConfigurationSample> out;
    for (const ConfigurationSample& s : samples)
        if (s.dataset == dataset)
            out << s;
    return out;
}

// The default metric of one set's runs: test accuracy for classification, test RMSE for regression.
MetricId defaultOf(const QList<ConfigurationSample>& set)
{
    QList<AlgorithmCurves> curves;
    for (const ConfigurationSample& s : set) {
        AlgorithmCurves c;
        c.repeats = s.curves;
        curves << c;
    }
    return RunMetric::defaultFor(curves);
}

// The final test error behind a score: 1 − accuracy for an accuracy, the value itself otherwise
// (RMSE, loss: lower is better already). NaN for a metric where neither makes sense.
double errorOf(MetricId metric, double value)
{
    switch (metric) {
    case MetricId::TestAccuracy:
    case MetricId::TrainAccuracy:
    case MetricId::ValidationAccuracy: return 1 - value;
    default: break;
    }
    return RunMetric::better(metric) == stats::Better::Lower ? value : NaN;
}

// The median of @p seconds with a run that never reached the target as +∞ (NaN entries).
double medianTime(const QList<double>& seconds)
{
    std::vector<double> v;
    for (double s : seconds)
        v.push_back(std::isnan(s) ? kInf : s);
    if (v.empty())
        return NaN;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    if (n % 2 == 1)
        return v[n / 2];
    const double a = v[n / 2 - 1], b = v[n / 2];
    return std::isinf(b) ? kInf : 0.5 * (a + b);
}

// The scores' direction for the ranks: every set is ranked in its own metric's direction, so the
// table is turned into "higher is better" before Friedman sees it.
std::vector<std::vector<double>> higherIsBetter(const AcrossSetsResult& r)
{
    std::vector<std::vector<double>> out = r.scores;
    for (size_t d = 0; d < out.size(); ++d)
        if (RunMetric::better(r.sets[int(d)].metric) == stats::Better::Lower)
            for (double& v : out[d])
                v = -v;
    return out;
}

} // namespace

QList<ConfigurationSample> AcrossSets::samples(const QList<AlgorithmCurves>& curves, std::optional<MetricId> metric)
{
    // compute() reads each set's metric from the curves themselves; the values here are the
    // first task's, which compute() recomputes per set.
    return Comparison::samples(curves, metric.value_or(RunMetric::defaultFor(curves)));
}

bool AcrossSets::applies(const ExperimentResult& result)
{
    QStringList sets, configurations;
    for (const AlgorithmCurves& c : result.curves) {
        if (!c.statuses.contains(RunStatus::Finished))
            continue;
        if (!sets.contains(c.dataset))
            sets << c.dataset;
        const QString name = c.configuration.isEmpty() ? c.label : c.configuration;
        if (!configurations.contains(name))
            configurations << name;
    }
    return sets.size() >= 2 && configurations.size() >= 2;
}

AcrossSetsResult AcrossSets::compute(const QList<ConfigurationSample>& samples, std::optional<MetricId> metric,
                                     const QString& control, double alpha)
{
    AcrossSetsResult r;
    r.alpha = alpha;
    r.configurations = Comparison::configurations(samples);
    QStringList names;
    for (const ConfigurationSample& s : samples)
        if (!names.contains(s.dataset))
            names << s.dataset;
    const size_t k = size_t(r.configurations.size());
    std::vector<std::vector<double>> timeCosts;
    for (const QString& dataset : std::as_const(names)) {
        const QList<ConfigurationSample> set = ofSet(samples, dataset);
        AcrossSetsColumn column;
        column.dataset = dataset;
        column.metric = metric.value_or(defaultOf(set));
        const TimeToTargetTable times = Comparison::timeToTarget(set, column.metric);
        column.selection = times.selection;
        r.selectedOnTest = r.selectedOnTest || times.selectedOnTest();
        std::vector<double> scores(k, NaN), error(k, NaN), seconds(k, NaN);
        std::vector<int> runs(k, 0);
        for (const ConfigurationSample& s : set) {
            const size_t j = size_t(r.configurations.indexOf(s.configuration));
            std::vector<double> values;
            for (int i = 0; i < s.curves.size(); ++i)
                if (const double v = RunMetric::finalValue(column.metric, s.curves[i], s.infos.value(i)); std::isfinite(v))
                    values.push_back(v);
            runs[j] = int(values.size());
            if (values.empty())
                continue;
            scores[j] = stats::Descriptive::summarise(values).mean;
            error[j] = errorOf(column.metric, scores[j]);
        }
        for (const TimeToTargetRow& row : times.rows) {
            const size_t j = size_t(r.configurations.indexOf(row.configuration));
            column.target = row.target;
            if (runs[j] > 0)
                seconds[j] = std::isnan(row.target) ? kInf : medianTime(row.seconds);
        }
        for (size_t j = 0; j < k; ++j)
            if (runs[j] == 0)
                r.gaps << QStringLiteral("%1 on %2: no finished run").arg(r.configurations[int(j)], dataset);
        r.sets << column;
        r.scores.push_back(std::move(scores));
        r.runs.push_back(std::move(runs));
        r.error.push_back(std::move(error));
        r.secondsToTarget.push_back(std::move(seconds));
    }
    const std::vector<std::vector<double>> up = higherIsBetter(r);
    for (const std::vector<double>& row : up) {
        std::vector<double> present;
        for (double v : row)
            if (!std::isnan(v))
                present.push_back(v);
        const std::vector<double> ranked = stats::RankStatistics::ranks(present, true);
        std::vector<double> ranks(row.size(), NaN);
        for (size_t j = 0, i = 0; j < row.size(); ++j)
            if (!std::isnan(row[j]))
                ranks[j] = ranked[i++];
        r.setRanks.push_back(std::move(ranks));
        std::vector<int> best;
        double top = -kInf;
        for (size_t j = 0; j < row.size(); ++j)
            if (!std::isnan(row[j]) && row[j] > top)
                top = row[j];
        for (size_t j = 0; j < row.size(); ++j)
            if (!std::isnan(row[j]) && row[j] == top)
                best.push_back(int(j));
        r.winners.push_back(best);
    }
    r.friedman = stats::RankStatistics::friedman(up, true);
    if (r.friedman.valid) {
        r.criticalDifference =
            stats::RankStatistics::nemenyiCriticalDifference(r.friedman.algorithms, r.friedman.sets, alpha);
        r.control = int(r.configurations.indexOf(control));
        if (r.control < 0) // the best average rank
            r.control = int(std::min_element(r.friedman.averageRanks.begin(), r.friedman.averageRanks.end()) -
                            r.friedman.averageRanks.begin());
        r.holm = stats::RankStatistics::holm(r.friedman, r.control, alpha);
    }
    r.timeProfile = stats::RankStatistics::performanceProfile(r.secondsToTarget);
    r.errorProfile = stats::RankStatistics::performanceProfile(r.error);
    return r;
}

} // namespace tb
