#include "NetworkDiagram.h"

#include <QJsonObject>
#include <QPainter>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb::gui {
namespace {
constexpr int kMaxUnits = 10;

QColor residualColor(double r)
{
    if (!std::isfinite(r))
        return QColor(0xb0, 0xb0, 0xb0);
    // 0 → green, 0.5 → orange, ≥ 1 → red.
    const double t = std::clamp(r, 0.0, 1.0);
    const QColor a(0x2e, 0x7d, 0x32), b(0xef, 0x8c, 0x00), c(0xc6, 0x28, 0x28);
    auto mix = [](const QColor& x, const QColor& y, double s) {
        return QColor(int(x.red() + (y.red() - x.red()) * s), int(x.green() + (y.green() - x.green()) * s),
                      int(x.blue() + (y.blue() - x.blue()) * s));
    };
    return t < 0.5 ? mix(a, b, t / 0.5) : mix(b, c, (t - 0.5) / 0.5);
}
} // namespace

NetworkDiagram::NetworkDiagram(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

bool NetworkDiagram::setNetwork(const QString& network)
{
    m_layers.clear();
    m_description = network;
    const QString shape = network.section(QLatin1Char(','), 0, 0).trimmed();
    static const QRegularExpression re(QStringLiteral("^\\d+(-\\d+)+$"));
    if (!re.match(shape).hasMatch()) {
        update();
        return false;
    }
    for (const QString& n : shape.split(QLatin1Char('-')))
        m_layers << n.toInt();
    m_activations = network.section(QLatin1Char(','), 1, 1).trimmed();
    setToolTip(tr("Network %1: %2 layers of units, input on the left. Connections coloured by the relative "
                  "residual of each layer's latest least-squares solve when the trainer reports them (green: the "
                  "layer meets its targets; red: residual near 1).")
                   .arg(network)
                   .arg(m_layers.size()));
    update();
    return true;
}

void NetworkDiagram::setLayerSolves(const QJsonArray& solves)
{
    m_solves = solves;
    update();
}

double NetworkDiagram::residual(int layer) const
{
    double r = std::numeric_limits<double>::quiet_NaN();
    for (const auto& v : m_solves) { // the latest solve of the layer wins
        const QJsonObject o = v.toObject();
        if (o.value(QLatin1String("layer")).toInt(-1) == layer && o.value(QLatin1String("residual")).isDouble())
            r = o.value(QLatin1String("residual")).toDouble();
    }
    return r;
}

void NetworkDiagram::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    if (m_layers.size() < 2) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("the network appears here when training starts"));
        return;
    }
    const QRectF area = drawingArea();
    const int n = int(m_layers.size());
    const double dx = area.width() / std::max(1, n - 1);
    auto unitsShown = [](int width) { return std::min(width, kMaxUnits); };
    auto pos = [&](int layer, int unit) {
        const int shown = unitsShown(m_layers[layer]);
        const double dy = area.height() / (shown + 1);
        return QPointF(area.left() + layer * dx, area.top() + dy * (unit + 1));
    };
    const double radius = std::clamp(area.height() / (2.5 * (kMaxUnits + 1)), 2.5, 6.0);
    for (int l = 0; l + 1 < n; ++l) {
        QColor c = residualColor(residual(l));
        c.setAlpha(140);
        p.setPen(QPen(c, 0.8));
        for (int a = 0; a < unitsShown(m_layers[l]); ++a)
            for (int b = 0; b < unitsShown(m_layers[l + 1]); ++b)
                p.drawLine(pos(l, a), pos(l + 1, b));
    }
    p.setPen(QPen(palette().color(QPalette::Text), 1));
    for (int l = 0; l < n; ++l) {
        p.setBrush(l == 0 ? QColor(0xe0, 0xe0, 0xe0) : (l == n - 1 ? QColor(0xbb, 0xde, 0xfb) : QColor(Qt::white)));
        for (int u = 0; u < unitsShown(m_layers[l]); ++u)
            p.drawEllipse(pos(l, u), radius, radius);
    }
    const QList<QPair<QRectF, QString>> texts = textPlacement();
    for (qsizetype i = 1; i < texts.size(); ++i)
        p.drawText(texts[i].first, Qt::AlignCenter, texts[i].second);
    p.setPen(palette().color(QPalette::PlaceholderText));
    if (!texts.isEmpty())
        p.drawText(texts[0].first, Qt::AlignRight | Qt::AlignVCenter, texts[0].second);
}

QRectF NetworkDiagram::drawingArea() const
{
    // Below the activations' line and above the layers' labels: in a low diagram (1024×768, the
    // presentation mode) "tanh/tanh/softmax" was drawn over the connections.
    const QFontMetrics fm(font());
    return QRectF(rect()).adjusted(12, fm.height() + 4, -12, -fm.height() - 4);
}

QList<QPair<QRectF, QString>> NetworkDiagram::textPlacement() const
{
    QList<QPair<QRectF, QString>> out;
    const QFontMetricsF fm(font());
    const QRectF area = drawingArea();
    out.append({QRectF(area.left(), 0, area.width(), fm.height()), m_activations});
    const int n = int(m_layers.size());
    if (n < 2)
        return out;
    const double dx = area.width() / std::max(1, n - 1);
    double lastRight = -1e9;
    for (int l = 0; l < n; ++l) {
        const double x = area.left() + l * dx;
        QStringList candidates;
        if (m_layers[l] > kMaxUnits)
            candidates << tr("%1 (… %2 more)").arg(m_layers[l]).arg(m_layers[l] - kMaxUnits);
        candidates << QString::number(m_layers[l]);
        for (const QString& label : candidates) {
            const double w = fm.horizontalAdvance(label) + 2;
            const double left = std::clamp(x - w / 2, 0.0, std::max(0.0, width() - w));
            // Its own half of the gap to each neighbour at most, and clear of the label before.
            const bool fitsNext = l + 1 == n || left + w <= x + dx / 2;
            if (left >= lastRight + 4 && fitsNext) {
                out.append({QRectF(left, height() - fm.height() - 2, w, fm.height()), label});
                lastRight = left + w;
                break;
            }
        }
    }
    return out;
}

} // namespace tb::gui
