#include "DecisionRegionWidget.h"

#include <charts/ChartPalette.h>

#include <QPainter>
#include <QPainterPath>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tb::gui {
namespace {

// Margins of the plot inside the widget: room for the tick labels left and below.
constexpr int kLeft = 38, kRight = 8, kTop = 8, kBottom = 22;
constexpr double kPointRadius = 3.5;

// About @p target "nice" tick positions (1, 2, 5 × 10^k) inside [lo, hi].
std::vector<double> niceTicks(double lo, double hi, int target)
{
    std::vector<double> ticks;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return ticks;
    const double raw = (hi - lo) / std::max(target, 1);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        step = m * mag;
        if (step >= raw)
            break;
    }
    for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9 * step; t += step)
        ticks.push_back(std::abs(t) < 1e-12 * step ? 0.0 : t);
    return ticks;
}

} // namespace

DecisionRegionWidget::DecisionRegionWidget(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

QColor DecisionRegionWidget::classColor(int c)
{
    return c < 0 ? QColor(128, 128, 128) : charts::ChartPalette::color(c);
}

QColor DecisionRegionWidget::softClassColor(int c)
{
    const QColor s = classColor(c);
    auto mix = [](int v) { return int(std::lround(0.25 * v + 0.75 * 255)); };
    return QColor(mix(s.red()), mix(s.green()), mix(s.blue()));
}

QImage DecisionRegionWidget::renderRegion(const Eigen::Ref<const Eigen::MatrixXd>& scores, int width, int height)
{
    if (width <= 0 || height <= 0 || scores.rows() != Eigen::Index(width) * height)
        throw std::invalid_argument("decision region: " + std::to_string(scores.rows()) + " predictions for a " +
                                    std::to_string(width) + "x" + std::to_string(height) + " grid");
    QImage img(width, height, QImage::Format_RGB32);
    const QRgb invalid = QColor(235, 235, 235).rgb();
    // A handful of classes: look their colours up once.
    std::vector<QRgb> soft(std::size_t(std::max<Eigen::Index>(scores.cols(), 1)));
    for (std::size_t c = 0; c < soft.size(); ++c)
        soft[c] = softClassColor(int(c)).rgb();
    for (int py = 0; py < height; ++py) {
        auto* line = reinterpret_cast<QRgb*>(img.scanLine(py));
        for (int px = 0; px < width; ++px) {
            const auto row = scores.row(Eigen::Index(py) * width + px);
            if (row.size() == 0 || !row.allFinite()) {
                line[px] = invalid;
                continue;
            }
            Eigen::Index arg = 0;
            row.maxCoeff(&arg);
            line[px] = soft[std::size_t(arg)];
        }
    }
    return img;
}

Eigen::MatrixXd DecisionRegionWidget::gridPoints(const QRectF& bounds, int width, int height)
{
    Eigen::MatrixXd g(Eigen::Index(std::max(width, 0)) * std::max(height, 0), 2);
    for (int py = 0; py < height; ++py) {
        const double y = bounds.bottom() - (py + 0.5) / height * bounds.height();
        for (int px = 0; px < width; ++px) {
            const Eigen::Index r = Eigen::Index(py) * width + px;
            g(r, 0) = bounds.left() + (px + 0.5) / width * bounds.width();
            g(r, 1) = y;
        }
    }
    return g;
}

QRectF DecisionRegionWidget::dataBounds(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double margin)
{
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (const Eigen::MatrixXd* m : {&a, &b}) {
        if (m->cols() < 2)
            continue;
        for (Eigen::Index i = 0; i < m->rows(); ++i)
            for (int j = 0; j < 2; ++j) {
                const double v = (*m)(i, j);
                if (std::isfinite(v)) {
                    lo[j] = std::min(lo[j], v);
                    hi[j] = std::max(hi[j], v);
                }
            }
    }
    for (int j = 0; j < 2; ++j) {
        if (!(hi[j] >= lo[j])) {
            lo[j] = -1;
            hi[j] = 1;
        } else if (hi[j] - lo[j] < 1e-12) {
            lo[j] -= 1;
            hi[j] += 1;
        }
        const double pad = margin * (hi[j] - lo[j]);
        lo[j] -= pad;
        hi[j] += pad;
    }
    return QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1]);
}

void DecisionRegionWidget::setPoints(const Eigen::MatrixXd& trainX, const std::vector<int>& trainLabels,
                                     const Eigen::MatrixXd& testX, const std::vector<int>& testLabels,
                                     const QStringList& classNames)
{
    m_trainX = trainX;
    m_testX = testX;
    m_trainLabels = trainLabels;
    m_testLabels = testLabels;
    m_classNames = classNames;
    m_region = QImage();
    update();
}

void DecisionRegionWidget::setBounds(const QRectF& bounds)
{
    if (bounds.isEmpty() || !std::isfinite(bounds.left()) || !std::isfinite(bounds.top()) ||
        !std::isfinite(bounds.width()) || !std::isfinite(bounds.height()))
        return;
    m_bounds = bounds;
    update();
}

void DecisionRegionWidget::setRegion(const QImage& image)
{
    m_region = image;
    update();
}

QRectF DecisionRegionWidget::plotRect() const
{
    // Room for the tick labels in the font in use: presentation mode's larger one cut "-0.5" to ".5".
    const QFontMetrics fm(font());
    const int left = std::max(kLeft, fm.horizontalAdvance(QStringLiteral("-0.55")) + 10);
    const int bottom = std::max(kBottom, fm.height() + 8);
    return QRectF(left, kTop, std::max(1, width() - left - kRight), std::max(1, height() - kTop - bottom));
}

QPointF DecisionRegionWidget::toScreen(const QRectF& plot, double x, double y) const
{
    return {plot.left() + (x - m_bounds.left()) / m_bounds.width() * plot.width(),
            plot.bottom() - (y - m_bounds.top()) / m_bounds.height() * plot.height()};
}

void DecisionRegionWidget::paintEvent(QPaintEvent* event)
{
    Q_UNUSED(event);
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const QRectF plot = plotRect();
    if (m_region.isNull()) {
        p.fillRect(plot, Qt::white);
    } else {
        p.setRenderHint(QPainter::SmoothPixmapTransform, true);
        p.drawImage(plot, m_region);
    }
    p.setRenderHint(QPainter::Antialiasing, true);

    // Ticks and their labels.
    const QColor ink = palette().color(QPalette::WindowText);
    p.setPen(QPen(ink, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);
    const QFontMetrics fm(font());
    for (double t : niceTicks(m_bounds.left(), m_bounds.right(), std::max(2, int(plot.width() / 70)))) {
        const double sx = toScreen(plot, t, 0).x();
        p.drawLine(QPointF(sx, plot.bottom()), QPointF(sx, plot.bottom() + 4));
        const QString s = QString::number(t, 'g', 3);
        p.drawText(QPointF(sx - fm.horizontalAdvance(s) / 2.0, plot.bottom() + 5 + fm.ascent()), s);
    }
    for (double t : niceTicks(m_bounds.top(), m_bounds.bottom(), std::max(2, int(plot.height() / 50)))) {
        const double sy = toScreen(plot, 0, t).y();
        p.drawLine(QPointF(plot.left() - 4, sy), QPointF(plot.left(), sy));
        const QString s = QString::number(t, 'g', 3);
        p.drawText(QPointF(plot.left() - 6 - fm.horizontalAdvance(s), sy + fm.ascent() / 2.0 - 1), s);
    }

    // Points: test hollow first, training filled on top.
    p.save();
    p.setClipRect(plot);
    auto drawSet = [&](const Eigen::MatrixXd& x, const std::vector<int>& labels, bool filled) {
        if (x.cols() < 2)
            return;
        for (Eigen::Index i = 0; i < x.rows(); ++i) {
            const int c = i < Eigen::Index(labels.size()) && labels[std::size_t(i)] < classCount()
                              ? labels[std::size_t(i)]
                              : -1;
            const QColor col = classColor(c);
            const QPointF at = toScreen(plot, x(i, 0), x(i, 1));
            if (filled) {
                p.setPen(QPen(col.darker(140), 0.8));
                p.setBrush(col);
            } else {
                p.setPen(QPen(col, 1.6));
                p.setBrush(Qt::NoBrush);
            }
            p.drawEllipse(at, kPointRadius, kPointRadius);
        }
    };
    drawSet(m_testX, m_testLabels, false);
    drawSet(m_trainX, m_trainLabels, true);
    p.restore();

    // Legend: one swatch per class, top right inside the plot.
    if (!m_classNames.isEmpty()) {
        int w = 0;
        for (const QString& n : m_classNames)
            w = std::max(w, fm.horizontalAdvance(n));
        const double lineH = fm.height() + 2;
        QRectF box(plot.right() - w - 26, plot.top() + 4, w + 22, lineH * m_classNames.size() + 4);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(255, 255, 255, 200));
        p.drawRoundedRect(box, 3, 3);
        for (int c = 0; c < m_classNames.size(); ++c) {
            const double y = box.top() + 2 + lineH * c;
            p.setPen(QPen(classColor(c).darker(140), 0.8));
            p.setBrush(classColor(c));
            p.drawEllipse(QPointF(box.left() + 9, y + lineH / 2), kPointRadius, kPointRadius);
            p.setPen(Qt::black);
            p.drawText(QPointF(box.left() + 17, y + fm.ascent() + 1), m_classNames[c]);
        }
    }
}

} // namespace tb::gui
