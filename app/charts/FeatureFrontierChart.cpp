#include "FeatureFrontierChart.h"

#include "ChartRegistry.h"
#include "ParamSweepChart.h"
#include "TimeFrontierAxes.h"

#include "ChartPalette.h"

#include <QGuiApplication>
#include <QJsonArray>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMap>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tb::charts {

FeatureFrontierChart::FeatureFrontierChart(QGraphicsItem* parent) : QChart(parent)
{
    setUpTimeFrontier(this, &m_x, &m_y);
}

bool FeatureFrontierChart::hasFeatureCounts(const QList<AlgorithmCurves>& curves)
{
    for (const AlgorithmCurves& c : curves)
        for (const QJsonObject& info : c.infos)
            if (info.contains(QLatin1String("feature_counts")) || info.contains(QLatin1String("features")))
                return true;
    return false;
}

QList<FeaturePoint> FeatureFrontierChart::points(const QList<AlgorithmCurves>& curves, bool regression)
{
    QList<FeaturePoint> out;
    for (int c = 0; c < curves.size(); ++c) {
        const AlgorithmCurves& curve = curves[c];
        for (int r = 0; r < curve.repeats.size() && r < curve.infos.size(); ++r) {
            const QVector<MetricPoint>& pts = curve.repeats[r];
            const QJsonObject& info = curve.infos[r];
            const QJsonArray counts = info.value(QLatin1String("feature_counts")).toArray();
            auto add = [&](const MetricPoint& p, double features) {
                out.append(FeaturePoint{c, r, p.trainTime, regression ? p.testRmse : p.testAccuracy, features});
            };
            if (!counts.isEmpty()) {
                // One count per checkpoint, in order; a final point the host added after the last
                // checkpoint (none for these trainers) would have no count and is left out.
                for (int i = 0; i < pts.size() && i < counts.size(); ++i)
                    add(pts[i], counts[i].toDouble());
            } else if (info.contains(QLatin1String("features")) && !pts.isEmpty()) {
                add(pts.last(), info.value(QLatin1String("features")).toDouble());
            }
        }
    }
    return out;
}

double FeatureFrontierChart::markerSize(double features, double lo, double hi)
{
    constexpr double kSmall = 7.0, kLarge = 30.0;
    if (!(hi > lo) || !(features > 0))
        return 0.5 * (kSmall + kLarge);
    const double t = (std::sqrt(features) - std::sqrt(lo)) / (std::sqrt(hi) - std::sqrt(lo));
    // kSizeLevels sizes: one scatter series per size (see setData()).
    const double level = std::round(std::clamp(t, 0.0, 1.0) * (kSizeLevels - 1)) / (kSizeLevels - 1);
    return kSmall + level * (kLarge - kSmall);
}

QList<QScatterSeries*> FeatureFrontierChart::curveSeries(int index) const
{
    return index >= 0 && index < m_scatter.size() ? m_scatter[index] : QList<QScatterSeries*>{};
}

void FeatureFrontierChart::setData(const QList<AlgorithmCurves>& curves, bool regression)
{
    removeAllSeries(); // deletes the series
    m_scatter.clear();
    m_hidden = 0;
    const double scale = regression ? 1.0 : 100.0;
    setTitle(QStringLiteral("%1 against training time; point size: number of features")
                 .arg(regression ? QStringLiteral("Test RMSE") : QStringLiteral("Test accuracy")));
    m_y->setTitleText(regression ? QStringLiteral("test RMSE") : QStringLiteral("test accuracy (%)"));
    const QList<FeaturePoint> all = points(curves, regression);
    m_points.clear();
    double flo = INFINITY, fhi = -INFINITY;
    for (const FeaturePoint& p : all) {
        if (!(p.seconds > 0) || !std::isfinite(p.seconds) || !std::isfinite(p.value)) {
            ++m_hidden;
            continue;
        }
        m_points.append(p);
        flo = std::min(flo, p.features);
        fhi = std::max(fhi, p.features);
    }
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (int c = 0; c < curves.size(); ++c) {
        // One scatter series per marker size: Qt 6.4 draws per-point sizes
        // (QXYSeries::setPointConfiguration) at wrong places or not at all.
        QMap<double, QScatterSeries*> bySize;
        QList<QLineSeries*> lines;
        int lastRepeat = -1;
        const QColor colour = ChartPalette::color(c);
        for (const FeaturePoint& p : std::as_const(m_points)) {
            if (p.curve != c)
                continue;
            const double size = markerSize(p.features, flo, fhi);
            QScatterSeries*& scatter = bySize[size];
            if (!scatter) {
                scatter = new QScatterSeries;
                scatter->setName(curves[c].label);
                scatter->setColor(colour);
                scatter->setBorderColor(colour.darker(130));
                scatter->setMarkerShape(QScatterSeries::MarkerShapeCircle);
                scatter->setMarkerSize(size);
            }
            if (p.repeat != lastRepeat) {
                auto* line = new QLineSeries;
                QPen pen(ChartPalette::translucent(colour, 0.6));
                pen.setWidthF(1.2);
                line->setPen(pen);
                lines << line;
                lastRepeat = p.repeat;
            }
            const QPointF pt(p.seconds, p.value * scale);
            lines.last()->append(pt);
            scatter->append(pt);
            xlo = std::min(xlo, pt.x());
            xhi = std::max(xhi, pt.x());
            ylo = std::min(ylo, pt.y());
            yhi = std::max(yhi, pt.y());
        }
        for (QLineSeries* line : lines) {
            addSeries(line);
            line->attachAxis(m_x);
            line->attachAxis(m_y);
            if (auto* marker = legend()->markers(line).value(0))
                marker->setVisible(false);
        }
        QList<QScatterSeries*> series;
        for (QScatterSeries* scatter : std::as_const(bySize)) {
            addSeries(scatter);
            scatter->attachAxis(m_x);
            scatter->attachAxis(m_y);
            if (!series.isEmpty()) // one legend entry per curve
                if (auto* marker = legend()->markers(scatter).value(0))
                    marker->setVisible(false);
            series << scatter;
        }
        m_scatter << series;
    }
    if (std::isfinite(xlo)) {
        const double lo = std::pow(10.0, std::floor(std::log10(xlo)));
        double hi = std::pow(10.0, std::ceil(std::log10(xhi)));
        if (hi <= lo)
            hi = lo * 10;
        m_x->setRange(lo, hi);
        const double pad = std::max(1e-9, 0.08 * (yhi - ylo));
        double y0 = ylo - pad, y1 = yhi + pad;
        if (!regression) {
            y0 = std::max(0.0, y0);
            y1 = std::min(100.0, y1);
        } else {
            y0 = std::max(0.0, y0);
        }
        m_y->setRange(y0, y1);
        m_y->applyNiceNumbers();
    }
    if (std::isfinite(flo))
        setTitle(title() + QStringLiteral(" (%1 to %2)").arg(flo).arg(fhi));
}


// Accuracy against time with the number of features as point size: the Comparison tab's fourth
// chart, for runs that record their feature counts (Least Squares Revisited).
namespace {

ChartEntry featuresEntry()
{
    ChartEntry e;
    e.id = QStringLiteral("feature-frontier");
    e.title = ChartEntry::fixedTitle(QStringLiteral("Features"));
    e.toolTip = QStringLiteral("Accuracy against training time, point size = number of features "
                               "(runs that record them: Least Squares Revisited)");
    e.place = ChartPlace::Comparison;
    e.order = 140;
    e.applies = [](const ExperimentResult& r) { return FeatureFrontierChart::hasFeatureCounts(r.curves); };
    // As exports always chose: with the learning curves, not beside a numeric swept parameter.
    e.exportedFor = [](const ExperimentResult& r) {
        return r.suiteSets.isEmpty() && ParamSweepChart::numericParameters(r.curves).isEmpty();
    };
    e.fileSuffix = QStringLiteral("features");
    e.build = [](const ChartOptions&) {
        auto* chart = new FeatureFrontierChart;
        return std::make_unique<ChartPlot>(chart, [chart](const ExperimentResult& r, const ChartOptions& o) {
            // The view's metric says RMSE or accuracy; an export follows the data.
            const bool regression = o.metric ? *o.metric == MetricId::TestRmse || *o.metric == MetricId::TrainRmse
                                             : !o.isClassification(r);
            chart->setData(r.curves, regression);
            if (o.title)
                chart->setTitle(o.titled(chart->title()));
        });
    };
    return e;
}

const ChartRegistry::Registration registration{featuresEntry()};

} // namespace

} // namespace tb::charts
