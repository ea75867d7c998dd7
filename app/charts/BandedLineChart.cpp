#include "BandedLineChart.h"

#include "ChartPalette.h"

#include <engine/SettingLabel.h>

#include <QAreaSeries>
#include <QFontMetricsF>
#include <QGraphicsSceneResizeEvent>
#include <QGuiApplication>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb::charts {

namespace {

constexpr double kBandAlpha = 0.14;
constexpr double kDashedBandAlpha = 0.07; // train bands: lighter, they mostly overlap the test bands
constexpr int kAutoBandGroups = 3;        // BandMode::Auto draws every band up to this many groups
constexpr double kLineWidth = 2.0;
constexpr double kSinglePointMarker = 9.0; ///< marker of a line that has a single point
constexpr double kSecondRoundMarker = 4.0; ///< points of the lines whose colour another group has
constexpr double kPad = 0.05; // fraction of the data span added on each side

QFont scaledFont(double factor, bool bold = false)
{
    QFont f = QGuiApplication::font();
    f.setPointSizeF(f.pointSizeF() * factor);
    f.setBold(bold);
    return f;
}

void styleAxis(QAbstractAxis* a)
{
    a->setTitleFont(scaledFont(1.1));
    a->setLabelsFont(scaledFont(1.0));
    a->setGridLineColor(QColor(0xDD, 0xDD, 0xDD));
    a->setMinorGridLineColor(QColor(0xF0, 0xF0, 0xF0));
    a->setLinePenColor(QColor(0x88, 0x88, 0x88));
}

/// A tick interval of 1, 2 or 5 × 10^k giving about 6–8 ticks over @p span; 0 for a span that
/// is not positive and finite.
double niceStep(double span)
{
    const double raw = span / 7.0;
    if (!(raw > 0) || !std::isfinite(raw))
        return 0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * mag >= raw)
            return m * mag;
    return 10 * mag;
}

/// Sets @p axis to [lo, hi] with ticks every 1, 2 or 5 × 10^k, about 6–8 of them, anchored at 0.
void setLinearRange(QValueAxis* axis, double lo, double hi)
{
    const double step = niceStep(hi - lo);
    if (step == 0) {
        axis->setRange(lo, hi);
        return;
    }
    axis->setTickAnchor(0);
    // Qt lays out ticks after each call: a range much wider than the current interval (or an
    // interval much finer than the current range) would create millions of tick items. So a
    // coarser interval goes first and a finer one last; each intermediate state has few ticks.
    if (step >= axis->tickInterval()) {
        axis->setTickInterval(step);
        axis->setRange(lo, hi);
    } else {
        axis->setRange(lo, hi);
        axis->setTickInterval(step);
    }
}

bool finite(double v)
{
    return std::isfinite(v);
}

} // namespace

BandedLineChart::BandedLineChart(QGraphicsItem* parent)
    : QChart(parent), m_yLo(std::numeric_limits<double>::quiet_NaN()),
      m_yHi(std::numeric_limits<double>::quiet_NaN())
{
    setAnimationOptions(QChart::NoAnimation); // animations would lag behind 20 Hz updates
    setBackgroundRoundness(0);
    setBackgroundBrush(Qt::white);
    setTitleFont(scaledFont(1.35, true));
    legend()->setAlignment(Qt::AlignBottom);
    legend()->setMarkerShape(QLegend::MarkerShapeFromSeries); // a line sample shows dashed vs solid
    legend()->setFont(scaledFont(1.0));

    auto* x = new QValueAxis;
    styleAxis(x);
    x->setLabelFormat("%g");
    x->setTickType(QValueAxis::TicksDynamic); // ticks at round values without stretching the range
    addAxis(x, Qt::AlignBottom);
    m_x = x;
    m_y = new QValueAxis;
    styleAxis(m_y);
    m_y->setLabelFormat("%g");
    m_y->setTickType(QValueAxis::TicksDynamic);
    addAxis(m_y, Qt::AlignLeft);
}

BandedLineChart::~BandedLineChart() = default; // series and axes are owned by QChart

int BandedLineChart::lineCount(int group) const
{
    return group >= 0 && group < m_groups.size() ? int(m_groups[group].lines.size()) : 0;
}

QLineSeries* BandedLineChart::lineSeries(int group, int line) const
{
    if (line < 0 || line >= lineCount(group))
        return nullptr;
    return m_groups[group].lines[line].series;
}

QAreaSeries* BandedLineChart::bandSeries(int group, int line) const
{
    if (line < 0 || line >= lineCount(group))
        return nullptr;
    return m_groups[group].lines[line].band;
}

void BandedLineChart::setAxisTitles(const QString& x, const QString& y)
{
    m_x->setTitleText(x);
    m_y->setTitleText(y);
}

void BandedLineChart::setYLimits(double lo, double hi)
{
    m_yLo = lo;
    m_yHi = hi;
}

void BandedLineChart::setPointMarkers(double size)
{
    m_markerSize = size;
    for (const Group& g : m_groups)
        for (const Line& l : g.lines) {
            l.series->setPointsVisible(size > 0);
            if (size > 0)
                l.series->setMarkerSize(size);
        }
}

void BandedLineChart::setXLog(bool log)
{
    if (log == m_xLog)
        return;
    const QString title = m_x->titleText();
    if (log) {
        // Drop x ≤ 0 before a log axis sees them; the subclass's next setGroups() refills the series.
        auto keepPositive = [](QXYSeries* s) {
            QList<QPointF> pts = s->points();
            pts.removeIf([](const QPointF& p) { return !(p.x() > 0); });
            s->replace(pts);
        };
        for (const Group& g : m_groups)
            for (const Line& l : g.lines) {
                keepPositive(l.series);
                if (l.band) {
                    keepPositive(l.band->upperSeries());
                    keepPositive(l.band->lowerSeries());
                }
            }
    }
    // Qt Charts deletes the axis' graphics with deleteLater(): without an event loop (CLI export) they
    // would still be painted, so hide them first.
    m_x->setVisible(false);
    removeAxis(m_x); // detaches it from every series
    delete m_x;
    if (log) {
        auto* a = new QLogValueAxis;
        a->setBase(10);
        a->setLabelFormat("%g");
        a->setMinorTickCount(8); // 2 … 9 within each decade
        m_x = a;
    } else {
        auto* a = new QValueAxis;
        a->setLabelFormat("%g");
        a->setTickType(QValueAxis::TicksDynamic);
        m_x = a;
    }
    styleAxis(m_x);
    m_x->setTitleText(title);
    addAxis(m_x, Qt::AlignBottom);
    m_xLog = log;
    for (QAbstractSeries* s : series())
        s->attachAxis(m_x);
}

QList<QPointF> BandedLineChart::filtered(const LineSpec& spec, QVector<double>* std) const
{
    QList<QPointF> pts;
    pts.reserve(spec.mean.size());
    std->clear();
    for (qsizetype i = 0; i < spec.mean.size(); ++i) {
        const QPointF& p = spec.mean[i];
        // A log axis cannot place x ≤ 0 (e.g. the checkpoint at time 0): skip it rather than draw at -inf.
        if (!finite(p.x()) || !finite(p.y()) || (m_xLog && p.x() <= 0) || (m_yLog && p.y() <= 0))
            continue;
        pts.append(p);
        const double s = i < spec.std.size() ? spec.std[i] : 0.0;
        std->append(finite(s) ? s : 0.0);
    }
    return pts;
}

void BandedLineChart::destroyLine(Line& line)
{
    for (QAbstractSeries* s :
         {static_cast<QAbstractSeries*>(line.band), static_cast<QAbstractSeries*>(line.series)}) {
        if (!s)
            continue;
        if (s->chart() == this)
            removeSeries(s); // hands ownership back
        delete s;
    }
    line = Line{};
}

void BandedLineChart::attach(QAbstractSeries* s)
{
    addSeries(s);
    s->attachAxis(m_x);
    s->attachAxis(currentY());
}

void BandedLineChart::restack()
{
    // Qt Charts draws series in the order they were added. Bands go first so no band covers a line,
    // and lines are added group by group so the legend reads "A — test, A — train, B — test …".
    for (const Group& g : m_groups)
        for (const Line& l : g.lines)
            for (QAbstractSeries* s :
                 {static_cast<QAbstractSeries*>(l.band), static_cast<QAbstractSeries*>(l.series)})
                if (s && s->chart() == this)
                    removeSeries(s);
    for (const Group& g : m_groups)
        for (const Line& l : g.lines)
            if (l.band) {
                attach(l.band);
                for (QLegendMarker* m : legend()->markers(l.band))
                    m->setVisible(false);
            }
    for (const Key& k : m_keys)
        if (k.series->chart() == this)
            removeSeries(k.series);
    const bool grouped = groupedLegend();
    // The keys first: what solid and dashed mean stays in the legend however many groups follow.
    if (grouped)
        for (const Key& k : m_keys) {
            addSeries(k.series); // no axes: it has no points
            for (QLegendMarker* m : legend()->markers(k.series)) {
                const QString suffix = k.suffix;
                connect(m, &QLegendMarker::clicked, this,
                        [this, suffix] { setSuffixVisible(suffix, !isSuffixVisible(suffix)); });
            }
        }
    for (int gi = 0; gi < m_groups.size(); ++gi)
        for (const Line& l : m_groups[gi].lines) {
            attach(l.series);
            // Click a legend entry: hide or show its line and band (grouped: every line of the
            // group). Hover it: show its group's band.
            for (QLegendMarker* m : legend()->markers(l.series)) {
                QLineSeries* series = l.series;
                connect(m, &QLegendMarker::clicked, this, [this, series, gi, grouped] {
                    if (!grouped || gi >= m_groups.size()) {
                        setLineHidden(series->name(), !m_hiddenLines.contains(series->name()));
                        return;
                    }
                    const bool hide = !m_hiddenLines.contains(series->name());
                    for (const Line& other : m_groups[gi].lines) {
                        if (hide)
                            m_hiddenLines.insert(other.series->name());
                        else
                            m_hiddenLines.remove(other.series->name());
                    }
                    applyVisibility();
                    fitToData();
                });
                connect(m, &QLegendMarker::hovered, this, [this, gi](bool on) {
                    m_hoveredGroup = on ? gi : -1;
                    applyVisibility();
                });
            }
        }
    applyVisibility();
}

bool BandedLineChart::groupedLegend() const
{
    for (const Group& g : m_groups)
        if (g.lines.size() > 1)
            return true;
    return false;
}

bool BandedLineChart::updateKeys()
{
    QVector<Key> want;
    for (const Group& g : m_groups)
        for (const Line& l : g.lines)
            if (!std::any_of(want.begin(), want.end(), [&](const Key& k) { return k.suffix == l.suffix; }))
                want.append(Key{nullptr, l.suffix});
    if (!groupedLegend())
        want.clear();
    bool same = want.size() == m_keys.size();
    for (qsizetype i = 0; same && i < want.size(); ++i)
        same = want[i].suffix == m_keys[i].suffix;
    if (same)
        return false;
    for (Key& k : m_keys) {
        if (k.series->chart() == this)
            removeSeries(k.series);
        delete k.series;
    }
    m_keys = want;
    for (Key& k : m_keys) {
        k.series = new QLineSeries;
        k.series->setName(k.suffix);
        // The style of the first line of that kind, in grey: what solid and dashed mean.
        const auto styleOf = [this](const QString& suffix) {
            for (const Group& g : m_groups)
                for (const Line& l : g.lines)
                    if (l.suffix == suffix)
                        return l.series->pen().style();
            return Qt::SolidLine;
        };
        const Qt::PenStyle style = styleOf(k.suffix);
        k.series->setPen(QPen(QColor(0x55, 0x55, 0x55), kLineWidth, style, Qt::RoundCap, Qt::RoundJoin));
    }
    return true;
}

QAbstractAxis* BandedLineChart::currentY() const
{
    return m_yLog ? m_yLogAxis : static_cast<QAbstractAxis*>(m_y);
}

bool BandedLineChart::bandsShown(int group) const
{
    switch (m_bandMode) {
    case BandMode::All: return true;
    case BandMode::None: return false;
    case BandMode::Hovered: return group == m_hoveredGroup;
    case BandMode::Auto: return m_groups.size() <= kAutoBandGroups || group == m_hoveredGroup;
    }
    return true;
}

void BandedLineChart::applyVisibility()
{
    for (int gi = 0; gi < m_groups.size(); ++gi)
        for (const Line& l : m_groups[gi].lines) {
            const bool visible = !m_hiddenSuffixes.contains(l.suffix) && !m_hiddenLines.contains(l.series->name());
            if (l.series->isVisible() != visible)
                l.series->setVisible(visible);
            // Grouped: the group's first line stands for the group, under the group's label, and
            // reads as hidden when all its lines are.
            const bool grouped = groupedLegend();
            const bool first = &l == &m_groups[gi].lines.first();
            bool shown = visible;
            if (grouped) {
                shown = false;
                for (const Line& other : m_groups[gi].lines)
                    shown = shown || (!m_hiddenSuffixes.contains(other.suffix) &&
                                      !m_hiddenLines.contains(other.series->name()));
            }
            for (QLegendMarker* m : legend()->markers(l.series)) {
                // A hidden line keeps its legend entry, greyed, so a click brings it back.
                m->setVisible(!grouped || first);
                if (grouped && first && m->label() != roundedLabel(m_groups[gi].label))
                    m->setLabel(roundedLabel(m_groups[gi].label));
                QFont f = m->font();
                f.setStrikeOut(!shown);
                m->setFont(f);
                m->setLabelBrush(shown ? QBrush(Qt::black) : QBrush(QColor(0xaa, 0xaa, 0xaa)));
            }
            if (l.band) {
                const bool band = visible && bandsShown(gi);
                if (l.band->isVisible() != band)
                    l.band->setVisible(band);
                for (QLegendMarker* m : legend()->markers(l.band))
                    m->setVisible(false);
            }
        }
    applyKeyVisibility();
}

void BandedLineChart::applyKeyVisibility()
{
    for (const Key& k : m_keys)
        for (QLegendMarker* m : legend()->markers(k.series)) {
            const bool on = isSuffixVisible(k.suffix);
            QFont f = m->font();
            f.setStrikeOut(!on);
            f.setItalic(true);
            m->setFont(f);
            m->setLabelBrush(on ? QBrush(QColor(0x33, 0x33, 0x33)) : QBrush(QColor(0xaa, 0xaa, 0xaa)));
        }
}

void BandedLineChart::setBandMode(BandMode mode)
{
    m_bandMode = mode;
    applyVisibility();
}

void BandedLineChart::setSuffixVisible(const QString& suffix, bool on)
{
    if (on)
        m_hiddenSuffixes.remove(suffix);
    else
        m_hiddenSuffixes.insert(suffix);
    applyVisibility();
    fitToData();
}

void BandedLineChart::setLineHidden(const QString& name, bool hidden)
{
    if (hidden)
        m_hiddenLines.insert(name);
    else
        m_hiddenLines.remove(name);
    applyVisibility();
    fitToData();
}

void BandedLineChart::setYLog(bool on)
{
    if (on == m_yLog)
        return;
    if (!m_yLogAxis) {
        auto* a = new QLogValueAxis;
        a->setBase(10);
        a->setLabelFormat("%g");
        a->setMinorTickCount(8);
        styleAxis(a);
        m_yLogAxis = a;
    }
    QAbstractAxis* from = currentY();
    m_yLog = on;
    QAbstractAxis* to = currentY();
    m_yLogAxis->setTitleText(m_y->titleText());
    if (on) {
        // A log axis cannot place y ≤ 0: drop those points before it sees them.
        auto keepPositive = [](QXYSeries* s) {
            QList<QPointF> pts = s->points();
            pts.removeIf([](const QPointF& p) { return !(p.y() > 0); });
            s->replace(pts);
        };
        for (const Group& g : m_groups)
            for (const Line& l : g.lines) {
                keepPositive(l.series);
                if (l.band) {
                    keepPositive(l.band->upperSeries());
                    keepPositive(l.band->lowerSeries());
                }
            }
    }
    if (!axes(Qt::Vertical).contains(to))
        addAxis(to, Qt::AlignLeft);
    for (QAbstractSeries* s : series()) {
        s->detachAxis(from);
        s->attachAxis(to);
    }
    from->setVisible(false);
    to->setVisible(true);
    fitToData();
}

void BandedLineChart::resizeEvent(QGraphicsSceneResizeEvent* event)
{
    QChart::resizeEvent(event);
    placeLegend();
}

void BandedLineChart::placeLegend()
{
    // The texts the legend shows: a group's label (rounded) or each line's name, and the keys.
    const bool grouped = groupedLegend();
    QStringList labels;
    for (const Key& k : m_keys)
        labels << k.suffix;
    for (const Group& g : m_groups)
        for (const Line& l : g.lines) {
            labels << (grouped ? roundedLabel(g.label) : l.series->name());
            if (grouped)
                break;
        }
    // Width of a one-line legend: each marker takes its label, a line sample and spacing.
    QFont font = scaledFont(1.0);
    QFontMetricsF fm(font);
    double needed = 0;
    for (const QString& t : labels)
        needed += fm.horizontalAdvance(t) + 3.5 * fm.height();
    const Qt::Alignment want = needed <= 0.95 * size().width() ? Qt::AlignBottom : Qt::AlignRight;
    if (legend()->alignment() != want)
        legend()->setAlignment(want);
    // Beside the plot a column of entries: a smaller font (down to 70 %) when they would not all
    // fit in the chart's height — Qt drops the entries that do not fit.
    if (want == Qt::AlignRight) {
        const double rows = double(labels.size()) * fm.height() * 1.45;
        const double room = 0.82 * size().height();
        if (rows > room && room > 0) {
            font = scaledFont(std::max(0.7, room / rows));
            fm = QFontMetricsF(font);
        }
    }
    if (legend()->font() != font)
        legend()->setFont(font);
    // On the right, as wide as the longest label needs (up to half the chart): Qt's own width
    // cut long labels ("LIBLINEAR -s 0, tolerance ladder …") before their "— test" / "— train".
    double longest = 0;
    if (want == Qt::AlignRight)
        for (const QString& t : labels)
            longest = std::max(longest, fm.horizontalAdvance(t) + 3.5 * fm.height());
    legend()->setMinimumWidth(std::min(longest, 0.5 * size().width()));
}

void BandedLineChart::setGroups(const QVector<GroupSpec>& groups)
{
    bool restackNeeded = false;
    while (m_groups.size() > groups.size()) {
        for (Line& l : m_groups.last().lines)
            destroyLine(l);
        m_groups.removeLast();
    }
    m_groups.resize(groups.size());

    QVector<double> std;
    for (qsizetype gi = 0; gi < groups.size(); ++gi) {
        const GroupSpec& spec = groups[gi];
        Group& g = m_groups[gi];
        while (g.lines.size() > spec.lines.size()) {
            destroyLine(g.lines.last());
            g.lines.removeLast();
        }
        const QColor colour = ChartPalette::color(int(gi));
        // The colours come round again after ChartPalette::size() groups: those lines show points.
        const bool secondRound = gi >= ChartPalette::size();
        g.label = spec.label;
        for (qsizetype li = 0; li < spec.lines.size(); ++li) {
            const LineSpec& ls = spec.lines[li];
            if (li >= g.lines.size()) {
                g.lines.append(Line{});
                g.lines.last().series = new QLineSeries;
                // Hovering a line shows its group's band (BandMode::Auto with many groups).
                const int group = int(gi);
                connect(g.lines.last().series, &QLineSeries::hovered, this, [this, group](const QPointF&, bool on) {
                    m_hoveredGroup = on ? group : -1;
                    applyVisibility();
                });
                restackNeeded = true;
            }
            Line& l = g.lines[li];
            l.suffix = ls.suffix;

            const QString name = spec.label + QStringLiteral(" — ") + ls.suffix;
            if (l.series->name() != name)
                l.series->setName(name);
            QPen pen(colour, kLineWidth, ls.style, Qt::RoundCap, Qt::RoundJoin);
            if (l.series->pen() != pen)
                l.series->setPen(pen);
            const QList<QPointF> pts = filtered(ls, &std);
            // A line of one point draws nothing (a closed-form method with one checkpoint): mark it.
            const double marker = m_markerSize > 0 ? m_markerSize
                                  : pts.size() == 1  ? kSinglePointMarker
                                  : secondRound      ? kSecondRoundMarker
                                                     : 0.0;
            if (l.series->pointsVisible() != (marker > 0) || (marker > 0 && l.series->markerSize() != marker)) {
                l.series->setPointsVisible(marker > 0);
                if (marker > 0)
                    l.series->setMarkerSize(marker);
            }
            l.series->replace(pts);

            if (ls.band && !l.band) {
                l.band = new QAreaSeries(new QLineSeries, new QLineSeries);
                l.band->upperSeries()->setParent(l.band);
                l.band->lowerSeries()->setParent(l.band);
                l.band->setPen(Qt::NoPen);
                restackNeeded = true;
            } else if (!ls.band && l.band) {
                if (l.band->chart() == this)
                    removeSeries(l.band);
                delete l.band;
                l.band = nullptr;
            }
            if (l.band) {
                l.band->setName(name + QStringLiteral(" ± std"));
                const QBrush brush(ChartPalette::translucent(
                    colour, ls.style == Qt::SolidLine ? kBandAlpha : kDashedBandAlpha));
                if (l.band->brush() != brush)
                    l.band->setBrush(brush);
                QList<QPointF> up, lo;
                up.reserve(pts.size());
                lo.reserve(pts.size());
                for (qsizetype i = 0; i < pts.size(); ++i) {
                    up.append(QPointF(pts[i].x(), pts[i].y() + std[i]));
                    // On a log axis the lower edge stops at a tenth of the mean, not at ≤ 0.
                    const double low = pts[i].y() - std[i];
                    lo.append(QPointF(pts[i].x(), m_yLog && low <= 0 ? pts[i].y() / 10 : low));
                }
                l.band->upperSeries()->replace(up);
                l.band->lowerSeries()->replace(lo);
            }
        }
    }
    if (updateKeys())
        restackNeeded = true;
    if (restackNeeded)
        restack();
    else
        applyVisibility(); // new names (e.g. more groups: Auto bands) keep the user's choices
    placeLegend();
    fitToData();
}

void BandedLineChart::fitToData()
{
    if (isZoomed())
        return; // the user is looking at a detail: leave their view alone
    const double inf = std::numeric_limits<double>::infinity();
    double xlo = inf, xhi = -inf;
    double ylo = inf, yhi = -inf;         // lines and bands
    double dataYlo = inf, dataYhi = -inf; // lines only
    for (const Group& g : m_groups)
        for (const Line& l : g.lines) {
            if (!l.series->isVisible())
                continue;
            for (const QPointF& p : l.series->points()) {
                xlo = std::min(xlo, p.x());
                xhi = std::max(xhi, p.x());
                dataYlo = std::min(dataYlo, p.y());
                dataYhi = std::max(dataYhi, p.y());
            }
            ylo = std::min(ylo, dataYlo);
            yhi = std::max(yhi, dataYhi);
            if (l.band && l.band->isVisible()) {
                for (const QPointF& p : l.band->upperSeries()->points())
                    yhi = std::max(yhi, p.y());
                for (const QPointF& p : l.band->lowerSeries()->points())
                    ylo = std::min(ylo, p.y());
            }
        }

    if (m_xLog) {
        auto* ax = static_cast<QLogValueAxis*>(m_x);
        if (!(xlo <= xhi)) {
            ax->setRange(0.1, 1);
        } else {
            const double l = std::log10(xlo), h = std::log10(xhi);
            const double pad = std::max((h - l) * kPad, 0.05);
            double lo = l - pad, hi = h + pad;
            // A log axis labels powers of ten only: make sure at least two of them are in view.
            if (std::floor(hi) - std::ceil(lo) < 1) {
                lo = std::floor(lo);
                hi = std::ceil(hi);
            }
            ax->setRange(std::pow(10.0, lo), std::pow(10.0, hi));
        }
    } else {
        auto* ax = static_cast<QValueAxis*>(m_x);
        if (!(xlo <= xhi)) {
            setLinearRange(ax, 0, 1);
        } else {
            const double span = xhi - xlo;
            const double pad = span > 0 ? span * kPad : (xlo != 0 ? std::abs(xlo) * 0.1 : 1.0);
            double lo = xlo - pad;
            if (xlo >= 0 && lo < 0)
                lo = 0; // times, epochs and σ start at 0: no negative region
            setLinearRange(ax, lo, xhi + pad);
        }
    }

    if (m_yLog) {
        auto* ay = static_cast<QLogValueAxis*>(m_yLogAxis);
        if (!(dataYlo <= dataYhi) || !(dataYlo > 0)) {
            ay->setRange(0.1, 1);
            return;
        }
        // Whole decades around the data (bands may reach lower: they are cut there).
        ay->setRange(std::pow(10.0, std::floor(std::log10(dataYlo))), std::pow(10.0, std::ceil(std::log10(dataYhi) + 1e-9)));
        return;
    }
    if (!(ylo <= yhi)) {
        setLinearRange(m_y, std::isnan(m_yLo) ? 0 : m_yLo, std::isnan(m_yHi) ? 1 : m_yHi);
        return;
    }
    const double span = yhi - ylo;
    const double pad = span > 0 ? span * kPad : (ylo != 0 ? std::abs(ylo) * 0.1 : 1.0);
    double lo = ylo - pad, hi = yhi + pad;
    // Limits cut padding and bands (accuracy above 100 %, RMSE below 0), never data.
    if (!std::isnan(m_yLo) && dataYlo >= m_yLo && lo < m_yLo)
        lo = m_yLo;
    if (!std::isnan(m_yHi) && dataYhi <= m_yHi && hi > m_yHi)
        hi = m_yHi;
    if (!(hi > lo))
        hi = lo + 1;
    setLinearRange(m_y, lo, hi);
}

void BandedLineChart::retick(double spanScale)
{
    for (QAbstractAxis* a : {m_x, static_cast<QAbstractAxis*>(m_y)}) {
        auto* axis = qobject_cast<QValueAxis*>(a);
        if (!axis)
            continue; // log axes label powers of ten only
        const double step = niceStep((axis->max() - axis->min()) * spanScale);
        if (step > 0)
            axis->setTickInterval(step);
    }
}

} // namespace tb::charts
