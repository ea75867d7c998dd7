#include "Comparison.h"

#include "CostPrediction.h"

#include <stats/ParetoFront.h>
#include <stats/TimeToTarget.h>

#include <QHash>
#include <QSet>
#include <cmath>

namespace tb {
namespace {

const ConfigurationSample* find(const QList<ConfigurationSample>& samples, const QString& configuration,
                                const QString& dataset)
{
    for (const auto& s : samples)
        if (s.configuration == configuration && s.dataset == dataset)
            return &s;
    return nullptr;
}

QStringList datasets(const QList<ConfigurationSample>& samples)
{
    QStringList out;
    for (const auto& s : samples)
        if (!out.contains(s.dataset))
            out << s.dataset;
    return out;
}

QString baselineOf(const QList<ConfigurationSample>& samples, const QString& baseline)
{
    if (!baseline.isEmpty())
        return baseline;
    return samples.isEmpty() ? QString() : samples.first().configuration;
}

std::vector<stats::CurvePoint> curveOf(const QVector<MetricPoint>& points, MetricId metric)
{
    std::vector<stats::CurvePoint> c;
    c.reserve(size_t(points.size()));
    for (const MetricPoint& p : points)
        c.push_back({p.trainTime, RunMetric::atPoint(metric, p)});
    return c;
}

std::vector<double> toStd(const QList<double>& v)
{
    return std::vector<double>(v.begin(), v.end());
}

} // namespace

QList<ConfigurationSample> Comparison::samples(const QList<AlgorithmCurves>& curves, MetricId metric)
{
    QList<ConfigurationSample> out;
    QHash<QString, int> index;
    for (const AlgorithmCurves& c : curves) {
        const QString configuration = c.configuration.isEmpty() ? c.label : c.configuration;
        const QString key = configuration + QChar(0) + c.dataset;
        if (!index.contains(key)) {
            ConfigurationSample s;
            s.configuration = configuration;
            s.dataset = c.dataset;
            s.algorithmId = c.algorithmId;
            s.setting = c.setting;
            s.clock = c.clock;
            index.insert(key, int(out.size()));
            out << s;
        }
        ConfigurationSample& s = out[index.value(key)];
        for (int r = 0; r < c.repeats.size(); ++r) {
            if (c.statuses.value(r, RunStatus::Failed) != RunStatus::Finished) {
                s.excluded++;
                continue;
            }
            const std::uint64_t seed = c.seeds.value(r, std::uint64_t(c.repeatNumbers.value(r, r)));
            if (s.seeds.contains(seed))
                continue;
            s.seeds << seed;
            s.values << RunMetric::finalValue(metric, c.repeats[r], c.infos.value(r));
            s.curves << c.repeats[r];
            s.infos << c.infos.value(r);
        }
    }
    return out;
}

void Comparison::paired(const ConfigurationSample& a, const ConfigurationSample& b, std::vector<double>* va,
                        std::vector<double>* vb)
{
    va->clear();
    vb->clear();
    for (int i = 0; i < a.seeds.size(); ++i) {
        const qsizetype j = b.seeds.indexOf(a.seeds[i]);
        if (j < 0 || std::isnan(a.values[i]) || std::isnan(b.values[j]))
            continue;
        va->push_back(a.values[i]);
        vb->push_back(b.values[j]);
    }
}

QStringList Comparison::configurations(const QList<ConfigurationSample>& samples)
{
    QStringList out;
    for (const auto& s : samples)
        if (!out.contains(s.configuration))
            out << s.configuration;
    return out;
}

ResultMatrix Comparison::matrix(const QList<ConfigurationSample>& samples, MetricId metric, const QString& baseline,
                                double alpha, SignificanceTest test)
{
    ResultMatrix m;
    m.metric = metric;
    m.alpha = alpha;
    m.test = test;
    m.baseline = baselineOf(samples, baseline);
    m.rows = configurations(samples);
    m.columns = datasets(samples);
    const stats::Better better = RunMetric::better(metric);
    for (const QString& row : m.rows) {
        QList<MatrixCell> cells;
        for (const QString& col : m.columns) {
            MatrixCell cell;
            const ConfigurationSample* s = find(samples, row, col);
            if (s) {
                cell.present = true;
                cell.isBaseline = row == m.baseline;
                cell.summary = stats::Descriptive::summarise(toStd(s->values));
                cell.excluded = s->excluded;
                const ConfigurationSample* b = find(samples, m.baseline, col);
                if (b && !cell.isBaseline) {
                    std::vector<double> va, vb;
                    paired(*s, *b, &va, &vb);
                    cell.pairs = int(va.size());
                    if (cell.pairs >= 2) {
                        cell.pValue = test == SignificanceTest::PairedT ? stats::PairedTTest::compute(va, vb).pValue
                                                                        : stats::WilcoxonSignedRank::compute(va, vb).pValue;
                        if (cell.pValue < alpha) {
                            double meanA = 0, meanB = 0;
                            for (size_t i = 0; i < va.size(); ++i) {
                                meanA += va[i];
                                meanB += vb[i];
                            }
                            cell.marker = stats::isBetter(meanA, meanB, better) ? 1 : (stats::isBetter(meanB, meanA, better) ? -1 : 0);
                        }
                    }
                }
            }
            cells << cell;
        }
        m.cells << cells;
    }
    return m;
}

QList<PairwiseComparison> Comparison::pairwise(const QList<ConfigurationSample>& samples, MetricId metric,
                                               const QString& baseline, double tieBand, double confidence)
{
    QList<PairwiseComparison> out;
    const QString base = baselineOf(samples, baseline);
    for (const ConfigurationSample& s : samples) {
        if (s.configuration == base)
            continue;
        const ConfigurationSample* b = find(samples, base, s.dataset);
        if (!b)
            continue;
        PairwiseComparison p;
        p.configuration = s.configuration;
        p.baseline = base;
        p.dataset = s.dataset;
        std::vector<double> va, vb;
        paired(s, *b, &va, &vb);
        p.pairs = int(va.size());
        p.mean = stats::Descriptive::summarise(va).mean;
        p.baselineMean = stats::Descriptive::summarise(vb).mean;
        p.tTest = stats::PairedTTest::compute(va, vb, confidence);
        p.wilcoxon = stats::WilcoxonSignedRank::compute(va, vb);
        p.winTieLoss = stats::WinTieLoss::count(va, vb, RunMetric::better(metric), tieBand);
        out << p;
    }
    return out;
}

MetricId Comparison::selectionMetric(const QList<ConfigurationSample>& samples, MetricId metric)
{
    const std::optional<MetricId> v = RunMetric::validationOf(metric);
    if (!v)
        return metric;
    for (const ConfigurationSample& s : samples)
        for (const auto& c : s.curves)
            for (const MetricPoint& p : c)
                if (std::isfinite(RunMetric::atPoint(*v, p)))
                    return *v;
    return metric;
}

TimeClocks timeClocksOf(const QList<ConfigurationSample>& samples)
{
    bool wall = false, cpu = false;
    for (const ConfigurationSample& s : samples)
        if (!s.curves.isEmpty())
            (s.clock == ClockKind::Cpu ? cpu : wall) = true;
    return cpu && wall ? TimeClocks::Mixed : cpu ? TimeClocks::Cpu : TimeClocks::Wall;
}

TimeToTargetTable Comparison::timeToTarget(const QList<ConfigurationSample>& samples, MetricId metric, double target,
                                           const QString& baseline, double confidence)
{
    TimeToTargetTable t;
    t.metric = metric;
    t.clocks = timeClocksOf(samples);
    t.selection = selectionMetric(samples, metric);
    t.baseline = baselineOf(samples, baseline);
    const MetricId on = t.selection;
    const stats::Better better = RunMetric::better(on);
    QHash<QString, double> targets;
    for (const QString& d : datasets(samples)) {
        if (!std::isnan(target)) {
            targets.insert(d, target);
            continue;
        }
        std::vector<std::vector<stats::CurvePoint>> all;
        for (const auto& s : samples)
            if (s.dataset == d)
                for (const auto& c : s.curves)
                    all.push_back(curveOf(c, on));
        targets.insert(d, stats::TimeToTarget::commonTarget(all, better));
    }
    for (const ConfigurationSample& s : samples) {
        TimeToTargetRow row;
        row.configuration = s.configuration;
        row.dataset = s.dataset;
        row.target = targets.value(s.dataset, NaN);
        std::vector<double> reached, reported;
        for (int i = 0; i < s.curves.size(); ++i) {
            const std::vector<stats::CurvePoint> curve = curveOf(s.curves[i], on);
            const auto r = stats::TimeToTarget::reach(curve, row.target, better);
            row.seeds << s.seeds[i];
            row.seconds << r.time;
            row.lastMissSeconds << r.lastMissTime;
            // The reported metric where the selection metric reached the target: the curve's
            // index r.index counts its points with a finite value, as curveOf keeps them.
            double atTarget = NaN;
            if (r.reached)
                for (const MetricPoint& p : s.curves[i])
                    if (p.trainTime == curve[size_t(r.index)].time && RunMetric::atPoint(on, p) == curve[size_t(r.index)].value) {
                        atTarget = RunMetric::atPoint(metric, p);
                        break;
                    }
            row.reportedAtTarget << atTarget;
            if (r.reached) {
                row.reached++;
                reached.push_back(r.time);
                reported.push_back(atTarget);
            }
        }
        row.summary = stats::Descriptive::summarise(reached);
        row.reportedSummary = stats::Descriptive::summarise(reported);
        t.rows << row;
    }
    // Speed-ups against the baseline of the same data set, paired by seed.
    for (TimeToTargetRow& row : t.rows) {
        const TimeToTargetRow* base = nullptr;
        for (const TimeToTargetRow& b : t.rows)
            if (b.configuration == t.baseline && b.dataset == row.dataset)
                base = &b;
        if (!base)
            continue;
        std::vector<double> mine, theirs;
        for (int i = 0; i < row.seeds.size(); ++i) {
            const qsizetype j = base->seeds.indexOf(row.seeds[i]);
            if (j < 0)
                continue;
            mine.push_back(row.seconds[i]);
            theirs.push_back(base->seconds[j]);
        }
        row.speedupOverBaseline = stats::SpeedRatio::compute(mine, theirs, confidence);
    }
    return t;
}

QList<FrontierPoint> Comparison::frontier(const QList<ConfigurationSample>& samples, MetricId metric)
{
    const MetricId on = selectionMetric(samples, metric);
    QList<FrontierPoint> out;
    for (const ConfigurationSample& s : samples)
        for (int i = 0; i < s.curves.size(); ++i) {
            FrontierPoint p;
            p.configuration = s.configuration;
            p.dataset = s.dataset;
            p.seed = s.seeds[i];
            p.seconds = s.curves[i].isEmpty() ? NaN : s.curves[i].last().trainTime;
            p.value = s.values[i];
            p.selectionValue = on == metric ? p.value : RunMetric::finalValue(on, s.curves[i], s.infos.value(i));
            out << p;
        }
    for (const QString& d : datasets(samples)) {
        std::vector<stats::FrontPoint> pts;
        std::vector<int> where;
        for (int i = 0; i < out.size(); ++i)
            if (out[i].dataset == d) {
                pts.push_back({out[i].seconds, out[i].selectionValue});
                where.push_back(i);
            }
        for (int k : stats::ParetoFront::indices(pts, RunMetric::better(on)))
            out[where[size_t(k)]].onFront = true;
    }
    return out;
}

QList<Selection> Comparison::select(const QList<ConfigurationSample>& samples, MetricId metric)
{
    const MetricId on = selectionMetric(samples, metric);
    const stats::Better better = RunMetric::better(on);
    QList<Selection> out;
    for (const QString& d : datasets(samples)) {
        Selection sel;
        sel.dataset = d;
        sel.metric = metric;
        sel.selection = on;
        for (const ConfigurationSample& s : samples) {
            if (s.dataset != d)
                continue;
            std::vector<double> selected, reported;
            for (int i = 0; i < s.curves.size(); ++i) {
                selected.push_back(on == metric ? s.values[i] : RunMetric::finalValue(on, s.curves[i], s.infos.value(i)));
                reported.push_back(s.values[i]);
            }
            const stats::Summary sum = stats::Descriptive::summarise(selected);
            if (sum.count == 0)
                continue;
            sel.candidates++;
            const bool first = sel.configuration.isEmpty();
            if (first || (better == stats::Better::Higher ? sum.mean > sel.selected.mean : sum.mean < sel.selected.mean)) {
                sel.configuration = s.configuration;
                sel.selected = sum;
                sel.reported = stats::Descriptive::summarise(reported);
            }
        }
        if (!sel.configuration.isEmpty())
            out << sel;
    }
    return out;
}

MatchedTimeTable Comparison::atTimes(const QList<ConfigurationSample>& samples, MetricId metric,
                                     const QList<double>& seconds, double confidence)
{
    MatchedTimeTable t;
    t.metric = metric;
    t.clocks = timeClocksOf(samples);
    t.seconds = seconds;
    for (const ConfigurationSample& s : samples) {
        MatchedTimeRow row;
        row.configuration = s.configuration;
        row.dataset = s.dataset;
        for (double at : seconds) {
            std::vector<double> values;
            for (const auto& curve : s.curves) {
                double v = NaN;
                for (const MetricPoint& p : curve)
                    if (p.trainTime <= at && std::isfinite(RunMetric::atPoint(metric, p)))
                        v = RunMetric::atPoint(metric, p);
                if (std::isfinite(v))
                    values.push_back(v);
            }
            row.at << stats::Descriptive::summarise(values, confidence);
            row.runs << int(values.size());
        }
        t.rows << row;
    }
    return t;
}

QList<GridRow> Comparison::grid(const QList<ConfigurationSample>& samples)
{
    QList<GridRow> out;
    for (const ConfigurationSample& s : samples) {
        GridRow g;
        g.configuration = s.configuration;
        g.dataset = s.dataset;
        g.algorithmId = s.algorithmId;
        g.setting = s.setting;
        g.excluded = s.excluded;
        g.metric = stats::Descriptive::summarise(toStd(s.values));
        std::vector<double> secs, mem;
        for (int i = 0; i < s.curves.size(); ++i) {
            secs.push_back(s.curves[i].isEmpty() ? NaN : s.curves[i].last().trainTime);
            mem.push_back(CostPrediction::measuredMemoryBytes(s.infos[i]));
        }
        g.seconds = stats::Descriptive::summarise(secs);
        g.memory = stats::Descriptive::summarise(mem);
        out << g;
    }
    return out;
}

} // namespace tb
