#include "ParallelCoordinatesView.h"

#include "ChartRegistry.h"
#include "ParamSweepChart.h"

#include <engine/SelectionCurves.h>
#include <engine/SettingLabel.h>

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace tb::charts {
namespace {

bool isNumber(const QVariant& v)
{
    const int t = v.typeId();
    return t == QMetaType::Double || t == QMetaType::Int || t == QMetaType::LongLong || t == QMetaType::UInt ||
           t == QMetaType::ULongLong;
}

QString text(const QVariant& v)
{
    if (v.typeId() == QMetaType::QVariantList) {
        QStringList parts;
        for (const auto& e : v.toList())
            parts << text(e);
        return QLatin1Char('[') + parts.join(QLatin1Char(',')) + QLatin1Char(']');
    }
    if (v.typeId() == QMetaType::Double)
        return QString::number(v.toDouble(), 'g', 4);
    return v.toString();
}

// Fills @p axis from one value per run (invalid QVariant: none).
void buildAxis(ParallelCoordinatesView::Axis& axis, const QList<QVariant>& values)
{
    bool numeric = true;
    QList<double> nums;
    for (const QVariant& v : values) {
        if (!v.isValid())
            continue;
        if (!isNumber(v)) {
            numeric = false;
            break;
        }
        if (std::isfinite(v.toDouble()))
            nums << v.toDouble();
    }
    if (numeric && !nums.isEmpty()) {
        axis.log = ParamSweepChart::looksLogarithmic(nums);
        axis.lo = *std::min_element(nums.begin(), nums.end());
        axis.hi = *std::max_element(nums.begin(), nums.end());
        auto map = [&](double x) { return axis.log ? std::log10(x) : x; };
        const double a = map(axis.lo), b = map(axis.hi);
        for (const QVariant& v : values) {
            if (!v.isValid() || !std::isfinite(v.toDouble()) || (axis.log && !(v.toDouble() > 0))) {
                axis.position << NAN;
                continue;
            }
            axis.position << (b > a ? (map(v.toDouble()) - a) / (b - a) : 0.5);
        }
        return;
    }
    for (const QVariant& v : values)
        if (v.isValid() && !axis.categories.contains(text(v)))
            axis.categories << text(v);
    const int n = int(axis.categories.size());
    for (const QVariant& v : values)
        axis.position << (v.isValid() ? (n > 1 ? double(axis.categories.indexOf(text(v))) / (n - 1) : 0.5) : NAN);
}

} // namespace

ParallelCoordinatesView::ParallelCoordinatesView(QWidget* parent) : QWidget(parent)
{
    setMinimumSize(400, 250);
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, Qt::white);
    setPalette(pal);
}

QColor ParallelCoordinatesView::rampColor(double t)
{
    // Five stops of matplotlib's viridis: perceptually even, readable in grey, colour-blind safe.
    static const QColor stops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3B, 0x52, 0x8B), QColor(0x21, 0x91, 0x8C),
                                   QColor(0x5E, 0xC9, 0x62), QColor(0xFD, 0xE7, 0x25)};
    if (std::isnan(t))
        return QColor(0xAA, 0xAA, 0xAA);
    t = std::clamp(t, 0.0, 1.0) * 4;
    const int i = std::min(3, int(t));
    const double f = t - i;
    auto mix = [&](int a, int b) { return int(std::lround(a + (b - a) * f)); };
    return QColor(mix(stops[i].red(), stops[i + 1].red()), mix(stops[i].green(), stops[i + 1].green()),
                  mix(stops[i].blue(), stops[i + 1].blue()));
}

void ParallelCoordinatesView::setData(const QList<AlgorithmCurves>& curves, MetricId metric)
{
    m_axes.clear();
    m_shade.clear();
    m_metricLabel = RunMetric::label(metric);
    m_title = QStringLiteral("Every run: parameters and final %1").arg(m_metricLabel);
    QList<QVariant> algorithm, metricValues;
    QStringList keys;
    QSet<QString> algorithms;
    for (const AlgorithmCurves& c : curves) {
        algorithms.insert(c.algorithmId);
        for (auto it = c.setting.begin(); it != c.setting.end(); ++it)
            if (!keys.contains(it.key()))
                keys << it.key();
    }
    std::sort(keys.begin(), keys.end());
    QList<QList<QVariant>> settings(keys.size());
    for (const AlgorithmCurves& c : curves) {
        QString name = c.configuration.isEmpty() ? c.label : c.configuration;
        const QString suffix = QLatin1Char(' ') + settingLabel(c.setting);
        if (!c.setting.isEmpty() && name.endsWith(suffix))
            name.chop(suffix.size());
        for (int r = 0; r < c.repeats.size(); ++r) {
            if (c.statuses.value(r, RunStatus::Failed) != RunStatus::Finished)
                continue;
            algorithm << name;
            for (int k = 0; k < keys.size(); ++k)
                settings[k] << (c.setting.contains(keys[k]) ? c.setting.value(keys[k]) : QVariant());
            metricValues << RunMetric::finalValue(metric, c.repeats[r], c.infos.value(r));
        }
    }
    if (algorithms.size() > 1) {
        Axis a;
        a.name = QStringLiteral("algorithm");
        buildAxis(a, algorithm);
        m_axes << a;
    }
    for (int k = 0; k < keys.size(); ++k) {
        Axis a;
        a.name = keys[k];
        buildAxis(a, settings[k]);
        m_axes << a;
    }
    Axis m;
    m.name = m_metricLabel;
    QList<QVariant> shown = metricValues;
    const bool percent = metric == MetricId::TestAccuracy || metric == MetricId::TrainAccuracy;
    if (percent)
        for (QVariant& v : shown)
            v = v.toDouble() * 100;
    buildAxis(m, shown);
    m.log = false; // the metric's own scale, so the colours read linearly
    if (!shown.isEmpty() && m.categories.isEmpty()) {
        m.position.clear();
        for (const QVariant& v : shown)
            m.position << (m.hi > m.lo ? (v.toDouble() - m.lo) / (m.hi - m.lo) : 0.5);
    }
    m_axes << m;
    const bool higher = RunMetric::better(metric) == stats::Better::Higher;
    for (double pos : m.position)
        m_shade << (higher ? pos : 1 - pos);
    update();
}

void ParallelCoordinatesView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    paint(p, rect());
}

QImage ParallelCoordinatesView::render(QSize size) const
{
    QImage img(size, QImage::Format_ARGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    paint(p, QRect(QPoint(0, 0), size));
    return img;
}

void ParallelCoordinatesView::paint(QPainter& p, const QRect& area) const
{
    p.setRenderHint(QPainter::Antialiasing);
    QFont f = font();
    QFont bold = f;
    bold.setBold(true);
    bold.setPointSizeF(f.pointSizeF() * 1.2);
    const QFontMetrics fm(f);
    p.setFont(bold);
    p.setPen(Qt::black);
    const int titleH = QFontMetrics(bold).height() + 8;
    p.drawText(area.adjusted(0, 4, 0, 0), Qt::AlignHCenter | Qt::AlignTop, m_title);
    p.setFont(f);
    if (m_axes.isEmpty() || m_shade.isEmpty()) {
        p.drawText(area, Qt::AlignCenter, QStringLiteral("No finished runs yet"));
        return;
    }
    const int barW = 16, legendW = barW + fm.horizontalAdvance(QStringLiteral("worst")) + 24;
    // Room above for the axis names, left for the first axis' name, right for its labels and the bar.
    const QRect plot = area.adjusted(90, titleH + 2 * fm.height() + 16, -90 - legendW, -2 * fm.height() - 16);
    const int n = int(m_axes.size());
    auto xOf = [&](int a) { return n > 1 ? plot.left() + plot.width() * a / (n - 1) : plot.center().x(); };
    auto yOf = [&](double pos) { return plot.bottom() - pos * plot.height(); };

    // Worst first, so the best runs are drawn on top.
    QList<int> order;
    for (int r = 0; r < m_shade.size(); ++r)
        order << r;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const double sa = std::isnan(m_shade[a]) ? -1 : m_shade[a], sb = std::isnan(m_shade[b]) ? -1 : m_shade[b];
        return sa < sb;
    });
    for (int r : order) {
        QPainterPath path;
        bool started = false;
        for (int a = 0; a < n; ++a) {
            const double pos = m_axes[a].position.value(r, NAN);
            if (std::isnan(pos)) {
                started = false;
                continue;
            }
            const QPointF pt(xOf(a), yOf(pos));
            if (started)
                path.lineTo(pt);
            else
                path.moveTo(pt);
            started = true;
        }
        QColor c = rampColor(m_shade[r]);
        c.setAlphaF(0.75);
        p.setPen(QPen(c, 1.6));
        p.drawPath(path);
    }
    // Axes with their names and tick labels.
    p.setPen(QPen(QColor(0x44, 0x44, 0x44), 1.2));
    for (int a = 0; a < n; ++a) {
        const Axis& ax = m_axes[a];
        const int x = xOf(a);
        p.drawLine(x, plot.top(), x, plot.bottom());
        p.setFont(bold);
        const QString name = ax.name + (ax.log ? QStringLiteral(" (log)") : QString());
        p.drawText(QRect(x - 100, plot.top() - 2 * fm.height() - 8, 200, fm.height() + 6), Qt::AlignCenter, name);
        p.setFont(f);
        auto label = [&](double pos, const QString& t) {
            const int y = int(yOf(pos));
            p.drawLine(x - 4, y, x + 4, y);
            p.drawText(QRect(x + 6, y - fm.height() / 2, 140, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, t);
        };
        if (!ax.categories.isEmpty()) {
            for (int i = 0; i < ax.categories.size(); ++i)
                label(ax.categories.size() > 1 ? double(i) / (ax.categories.size() - 1) : 0.5, ax.categories[i]);
        } else {
            label(0, QString::number(ax.lo, 'g', 4));
            label(1, QString::number(ax.hi, 'g', 4));
            if (ax.log && ax.hi > ax.lo)
                for (double d = std::ceil(std::log10(ax.lo)); d < std::log10(ax.hi); d += 1) {
                    const double pos = (d - std::log10(ax.lo)) / (std::log10(ax.hi) - std::log10(ax.lo));
                    if (pos > 0.06 && pos < 0.94)
                        label(pos, QString::number(std::pow(10.0, d), 'g', 4));
                }
        }
    }
    // Colour bar.
    const QRect bar(plot.right() + 80, plot.top(), barW, plot.height());
    for (int y = 0; y < bar.height(); ++y) {
        p.setPen(rampColor(1.0 - double(y) / std::max(1, bar.height() - 1)));
        p.drawLine(bar.left(), bar.top() + y, bar.right(), bar.top() + y);
    }
    p.setPen(Qt::black);
    p.drawRect(bar);
    p.drawText(QPoint(bar.right() + 6, bar.top() + fm.ascent()), QStringLiteral("best"));
    p.drawText(QPoint(bar.right() + 6, bar.bottom()), QStringLiteral("worst"));
    p.drawText(QRect(area.left(), plot.bottom() + fm.height() + 4, area.width(), fm.height() + 4), Qt::AlignHCenter,
               QStringLiteral("%1 finished run(s), coloured by %2").arg(m_shade.size()).arg(m_metricLabel));
}


// Parallel coordinates: the Comparison tab's second chart; exported for param sweeps that sweep
// a parameter.
namespace {

ChartEntry parallelEntry()
{
    ChartEntry e;
    e.id = QStringLiteral("parallel-coordinates");
    e.title = ChartEntry::fixedTitle(QStringLiteral("Parallel coordinates"));
    e.place = ChartPlace::Comparison;
    e.order = 120;
    e.applies = [](const ExperimentResult& r) { return ChartOptions::holdsCurves(r); };
    e.exportedFor = [](const ExperimentResult& r) { return !r.variedKeys.isEmpty() && r.suiteSets.isEmpty(); };
    e.fileSuffix = QStringLiteral("parallel");
    e.build = [](const ChartOptions&) {
        auto* view = new ParallelCoordinatesView;
        return std::make_unique<ChartPlot>(
            view,
            [view](const ExperimentResult& r, const ChartOptions& o) {
                // A tuned comparison's trials: their drawn values against the validation score they were chosen on.
                if (!r.selection.isEmpty()) {
                    const QList<AlgorithmCurves> trials = SelectionCurves::candidates(r);
                    view->setData(trials, RunMetric::anyMeasured(MetricId::ValidationAccuracy, trials)
                                              ? MetricId::ValidationAccuracy
                                              : MetricId::ValidationRmse);
                    return;
                }
                view->setData(r.curves, o.metricFor(r));
            },
            [view](QSize size) { return view->render(size); });
    };
    return e;
}

const ChartRegistry::Registration registration{parallelEntry()};

} // namespace

} // namespace tb::charts
