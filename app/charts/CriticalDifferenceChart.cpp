// The critical-difference diagram (Demšar 2006, Fig. 1): configurations' average ranks over the
// data sets of a suite (or of several experiments) on one axis, the Nemenyi critical difference
// as a bar, the groups of configurations no test tells apart as thick lines. The Comparison tab's
// chart of which configuration ranks best across data sets, and an export's OUT-cd.png.
// Registered below; nothing else names it.

#include "CriticalDifferenceChart.h"

#include "ChartPalette.h"
#include "ChartRegistry.h"

#include <QFontMetricsF>
#include <QPaintEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tb::charts {
namespace {

constexpr int kDotsPerMeter96Dpi = 3780; // as ChartRenderer: fonts laid out at 96 dpi

QString pText(double p)
{
    if (!std::isfinite(p))
        return QStringLiteral("n/a");
    if (p < 1e-4)
        return QStringLiteral("< 0.0001");
    return QStringLiteral("= ") + QString::number(p, 'g', 2);
}

QString rankText(double r)
{
    return QString::number(r, 'f', 2);
}

/// The indices of @p ranks by ascending rank, ties in index order.
std::vector<int> byRank(const std::vector<double>& ranks)
{
    std::vector<int> order(ranks.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ranks[size_t(a)] < ranks[size_t(b)]; });
    return order;
}

} // namespace

std::vector<std::vector<int>> CriticalDifferenceDiagram::cliquesOf(const std::vector<double>& ranks, double cd)
{
    return stats::RankStatistics::nemenyiGroups(ranks, cd);
}

CriticalDifferenceDiagram CriticalDifferenceDiagram::of(const AcrossSetsResult& result)
{
    CriticalDifferenceDiagram d;
    d.names = result.configurations;
    d.alpha = result.alpha;
    const stats::FriedmanResult& f = result.friedman;
    if (!f.valid || f.averageRanks.size() != size_t(result.configurations.size())) {
        d.message = f.note.empty()
                        ? QStringLiteral("Nothing to rank: the diagram needs 2 or more configurations that all ran "
                                         "on 2 or more data sets")
                        : QStringLiteral("Nothing to rank: %1").arg(QString::fromStdString(f.note));
        return d;
    }
    d.ranks = f.averageRanks;
    d.criticalDifference = result.criticalDifference;
    d.cliques = cliquesOf(d.ranks, d.criticalDifference);
    const QString alpha = QString::number(result.alpha, 'g', 3);
    QStringList parts;
    parts << QStringLiteral("%1 data sets, Friedman p %2, %3")
                 .arg(f.sets)
                 .arg(pText(f.chiSquareP),
                      std::isinf(f.imanDavenportF) ? QStringLiteral("Iman–Davenport F = ∞ (every set ranks them alike)")
                                                   : QStringLiteral("Iman–Davenport p ") + pText(f.imanDavenportP));
    if (std::isfinite(d.criticalDifference))
        parts << QStringLiteral("CD: Nemenyi at α = %1").arg(alpha);
    else
        parts << QStringLiteral("no Nemenyi critical difference for %1 configurations").arg(f.algorithms);
    if (f.setsLeftOut > 0)
        parts << QStringLiteral("%1 data set%2 left out for gaps").arg(f.setsLeftOut).arg(f.setsLeftOut == 1 ? "" : "s");
    if (!(f.decisionP() < result.alpha))
        parts << QStringLiteral("the ranks do not differ significantly at α = %1").arg(alpha);
    d.subtitle = parts.join(QStringLiteral("; "));
    return d;
}

CriticalDifferenceView::CriticalDifferenceView(QWidget* parent) : QWidget(parent)
{
    setAutoFillBackground(false);
}

void CriticalDifferenceView::setDiagram(const CriticalDifferenceDiagram& diagram, const QString& title)
{
    m_diagram = diagram;
    m_title = title;
    update();
}

void CriticalDifferenceView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    paint(p, rect());
}

QImage CriticalDifferenceView::render(QSize size) const
{
    QImage img(size, QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(1);
    img.setDotsPerMeterX(kDotsPerMeter96Dpi);
    img.setDotsPerMeterY(kDotsPerMeter96Dpi);
    img.fill(Qt::white);
    QPainter p(&img);
    paint(p, QRect(QPoint(0, 0), size));
    return img;
}

void CriticalDifferenceView::paint(QPainter& p, const QRect& area) const
{
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    QPaintDevice* device = p.device();
    const QFont base = font();

    // Title and subtitle, as the other charts head themselves.
    QFont titleFont = base;
    titleFont.setPointSizeF(base.pointSizeF() * 1.35);
    titleFont.setBold(true);
    const QFontMetricsF tm(titleFont, device);
    const QFontMetricsF bm(base, device);
    const qreal margin = std::max<qreal>(8, bm.height() * 1.5);
    qreal y = area.top() + margin;
    p.setPen(Qt::black);
    p.setFont(titleFont);
    const QRectF titleRect(area.left() + margin, y, area.width() - 2 * margin, tm.height());
    p.drawText(titleRect, Qt::AlignHCenter | Qt::AlignTop,
               tm.elidedText(m_title, Qt::ElideRight, titleRect.width()));
    y += tm.height() + 2;
    if (!m_diagram.subtitle.isEmpty()) {
        p.setFont(base);
        p.setPen(QColor(0x44, 0x44, 0x44));
        const QRectF r(area.left() + margin, y, area.width() - 2 * margin, bm.height());
        p.drawText(r, Qt::AlignHCenter | Qt::AlignTop, bm.elidedText(m_diagram.subtitle, Qt::ElideRight, r.width()));
        y += bm.height();
    }
    const qreal top = y + bm.height();
    const qreal available = area.bottom() - margin - top;
    if (!m_diagram.message.isEmpty() || m_diagram.ranks.size() < 2) {
        p.setFont(base);
        p.setPen(Qt::black);
        p.drawText(QRectF(area.left(), top, area.width(), std::max<qreal>(available, bm.height())),
                   Qt::AlignCenter | Qt::TextWordWrap,
                   m_diagram.message.isEmpty() ? QStringLiteral("Nothing to rank yet") : m_diagram.message);
        return;
    }

    const std::vector<double>& ranks = m_diagram.ranks;
    const int k = int(ranks.size());
    const std::vector<int> order = byRank(ranks);
    const int leftCount = (k + 1) / 2; // the better half, on the left
    const int rows = leftCount;
    const int cliques = int(m_diagram.cliques.size());

    // The diagram's height in label lines, for a label font of line height lh: the CD label and
    // bar, the axis' numbers and ticks, the cliques, the configurations' rows.
    // From the axis down to the first row: the cliques' rows, or a gap.
    auto rowsBelowAxis = [&](qreal lh) {
        return cliques > 0 ? 0.9 * lh + (cliques - 1) * 0.55 * lh + 1.4 * lh : 1.6 * lh;
    };
    auto heightFor = [&](qreal lh) { return 3.8 * lh + rowsBelowAxis(lh) + (rows - 1) * 1.45 * lh + 0.6 * lh; };
    // Labels grow with the room they have (an export's 1200 × 800), up to 1.4 times the font.
    QFont label = base;
    qreal scale = 1.15;
    for (qreal s = 1.4; s > 1.15; s -= 0.05) {
        QFont f = base;
        f.setPointSizeF(base.pointSizeF() * s);
        const qreal lh = QFontMetricsF(f, device).height();
        if (heightFor(lh) * 1.5 <= available && 14 * lh <= area.width() * 0.5) {
            scale = s;
            break;
        }
    }
    label.setPointSizeF(base.pointSizeF() * scale);
    const QFontMetricsF lm(label, device);
    const qreal lh = lm.height();

    // Label widths: each name may take up to a quarter of the width (elided beyond).
    const qreal maxName = area.width() * 0.25;
    const qreal gap = lm.horizontalAdvance(QStringLiteral("  "));
    QStringList shownName(k);
    qreal leftW = 0, rightW = 0;
    for (int i = 0; i < k; ++i) {
        const int c = order[size_t(i)];
        shownName[c] = lm.elidedText(m_diagram.names.value(c), Qt::ElideRight, maxName);
        const qreal w = lm.horizontalAdvance(shownName[c]) + gap + lm.horizontalAdvance(rankText(ranks[size_t(c)]));
        qreal& side = i < leftCount ? leftW : rightW;
        side = std::max(side, w);
    }
    const qreal stub = 1.5 * lh;
    const qreal textGap = 0.4 * lh;
    const qreal axisL = area.left() + margin + leftW + textGap + stub;
    const qreal axisR = std::max(axisL + 4 * lh, area.right() - margin - rightW - textGap - stub);
    auto xOf = [&](double r) { return axisL + (r - 1) / (k - 1) * (axisR - axisL); };

    const qreal blockH = heightFor(lh);
    qreal yy = top + std::max<qreal>(0, (available - blockH) / 2); // centred in the room below the title
    const QColor ink(0x22, 0x22, 0x22);
    const QColor grey(0x55, 0x55, 0x55);
    p.setFont(label);

    // The critical difference: a bar from rank 1, labelled above.
    const double cd = m_diagram.criticalDifference;
    if (std::isfinite(cd) && cd > 0) {
        const bool beyond = 1 + cd > k;
        const qreal x0 = xOf(1), x1 = xOf(std::min<double>(1 + cd, k));
        const QString text = QStringLiteral("CD = %1").arg(cd, 0, 'f', 2) +
                             (beyond ? QStringLiteral(" (longer than the axis)") : QString());
        p.setPen(ink);
        const qreal tw = lm.horizontalAdvance(text);
        const qreal cx = std::max(area.left() + margin + tw / 2, (x0 + x1) / 2);
        p.drawText(QRectF(cx - tw / 2 - 2, yy, tw + 4, lh), Qt::AlignCenter, text);
        const qreal by = yy + lh + 0.35 * lh;
        p.setPen(QPen(ink, std::max<qreal>(1.5, lh * 0.1), Qt::SolidLine, Qt::FlatCap));
        p.drawLine(QPointF(x0, by), QPointF(x1, by));
        p.drawLine(QPointF(x0, by - 0.25 * lh), QPointF(x0, by + 0.25 * lh));
        if (!beyond)
            p.drawLine(QPointF(x1, by - 0.25 * lh), QPointF(x1, by + 0.25 * lh));
    }
    yy += 1.0 * lh + 0.9 * lh;

    // The axis: numbers above ticks at each whole rank, short ticks at the halves.
    const qreal axisY = yy + 1.0 * lh + 0.9 * lh;
    const qreal unit = (axisR - axisL) / (k - 1);
    // Every rank numbered, or every n-th where they would touch: an n that divides k − 1 if one
    // is near (1 4 7 10 13 16), else the last number before k is left out where it would crowd k.
    int every = std::max(1, int(std::ceil((lm.horizontalAdvance(QString::number(k)) + 0.6 * lh) / unit)));
    for (int n = every; n <= 2 * every && every > 1; ++n)
        if ((k - 1) % n == 0) {
            every = n;
            break;
        }
    auto numbered = [&](int r) { return r == k || ((r - 1) % every == 0 && k - r >= every); };
    p.setPen(QPen(ink, std::max<qreal>(1.2, lh * 0.08)));
    p.drawLine(QPointF(axisL, axisY), QPointF(axisR, axisY));
    for (int r = 1; r <= k; ++r) {
        const qreal x = xOf(r);
        p.drawLine(QPointF(x, axisY), QPointF(x, axisY - 0.45 * lh));
        if (numbered(r))
            p.drawText(QRectF(x - 2 * lh, yy, 4 * lh, lh), Qt::AlignHCenter | Qt::AlignBottom, QString::number(r));
        if (r < k && unit > 1.2 * lh)
            p.drawLine(QPointF(x + unit / 2, axisY), QPointF(x + unit / 2, axisY - 0.25 * lh));
    }

    // Each configuration: a line from its rank down to its row, then out to its label.
    const qreal cliqueTop = axisY + 0.9 * lh;
    const qreal rowsTop = axisY + rowsBelowAxis(lh);
    const qreal lineW = std::max<qreal>(1.6, lh * 0.12);
    for (int i = 0; i < k; ++i) {
        const int c = order[size_t(i)];
        const bool left = i < leftCount;
        const int row = left ? i : k - 1 - i; // the worst on the right sits highest: no line crosses
        const qreal ry = rowsTop + row * 1.45 * lh;
        const qreal x = xOf(ranks[size_t(c)]);
        const qreal end = left ? axisL - stub : axisR + stub;
        QPainterPath path;
        path.moveTo(x, axisY);
        path.lineTo(x, ry);
        path.lineTo(end, ry);
        p.setPen(QPen(ChartPalette::color(c), lineW, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        const QString rank = rankText(ranks[size_t(c)]);
        const qreal rankW = lm.horizontalAdvance(rank);
        const qreal nameW = lm.horizontalAdvance(shownName[c]);
        const qreal textTop = ry - lh / 2;
        if (left) {
            const qreal right = end - textGap;
            p.setPen(grey);
            p.drawText(QRectF(right - rankW, textTop, rankW + 1, lh), Qt::AlignRight | Qt::AlignVCenter, rank);
            p.setPen(ink);
            p.drawText(QRectF(right - rankW - gap - nameW - 1, textTop, nameW + 1, lh),
                       Qt::AlignRight | Qt::AlignVCenter, shownName[c]);
        } else {
            const qreal leftX = end + textGap;
            p.setPen(grey);
            p.drawText(QRectF(leftX, textTop, rankW + 1, lh), Qt::AlignLeft | Qt::AlignVCenter, rank);
            p.setPen(ink);
            p.drawText(QRectF(leftX + rankW + gap, textTop, nameW + 1, lh), Qt::AlignLeft | Qt::AlignVCenter,
                       shownName[c]);
        }
    }

    // The cliques: thick lines over the configurations they join, one row each, over the lines.
    p.setPen(QPen(Qt::black, std::max<qreal>(3, lh * 0.28), Qt::SolidLine, Qt::RoundCap));
    for (int g = 0; g < cliques; ++g) {
        const std::vector<int>& members = m_diagram.cliques[size_t(g)];
        double lo = INFINITY, hi = -INFINITY;
        for (int c : members) {
            lo = std::min(lo, ranks[size_t(c)]);
            hi = std::max(hi, ranks[size_t(c)]);
        }
        const qreal cy = cliqueTop + g * 0.55 * lh;
        p.drawLine(QPointF(xOf(lo) - 0.3 * lh, cy), QPointF(xOf(hi) + 0.3 * lh, cy));
    }
}


// The critical-difference diagram: a Comparison chart and an export's OUT-cd.png wherever the
// runs span 2 or more data sets and 2 or more configurations.
namespace {

ChartEntry criticalDifferenceEntry()
{
    ChartEntry e;
    e.id = QStringLiteral("critical-difference");
    e.title = ChartEntry::fixedTitle(QStringLiteral("Critical difference"));
    e.toolTip = QStringLiteral("The configurations' average ranks over the data sets (1 = best) with the Nemenyi "
                               "critical difference: configurations joined by a line are not significantly "
                               "different (Demšar 2006)");
    e.place = ChartPlace::Comparison;
    e.order = 152;
    e.applies = [](const ExperimentResult& r) { return AcrossSets::applies(r); };
    e.exportedFor = [](const ExperimentResult& r) { return AcrossSets::applies(r); };
    e.fileSuffix = QStringLiteral("cd");
    e.build = [](const ChartOptions&) {
        auto* view = new CriticalDifferenceView;
        return std::make_unique<ChartPlot>(
            view,
            [view](const ExperimentResult& r, const ChartOptions& o) {
                // Each set ranked on its own task's default metric: a suite may mix classification and regression.
                const AcrossSetsResult across = AcrossSets::compute(AcrossSets::samples(r.curves));
                view->setDiagram(CriticalDifferenceDiagram::of(across),
                                 o.titled(QStringLiteral("Critical difference diagram of the average ranks")));
            },
            [view](QSize size) { return view->render(size); });
    };
    return e;
}

const ChartRegistry::Registration registration{criticalDifferenceEntry()};

} // namespace

} // namespace tb::charts
