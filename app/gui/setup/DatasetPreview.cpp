#include "DatasetPreview.h"

#include <charts/ChartPalette.h>

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace tb::gui {
namespace {

/// Row i of @p x (d = side²) as a grey-scale image, scaled to its own min…max.
QImage toImage(const Eigen::MatrixXd& x, Eigen::Index row, int side)
{
    QImage img(side, side, QImage::Format_Grayscale8);
    const double lo = x.row(row).minCoeff();
    const double hi = x.row(row).maxCoeff();
    const double scale = hi > lo ? 255.0 / (hi - lo) : 0.0;
    for (int r = 0; r < side; ++r) {
        uchar* line = img.scanLine(r);
        for (int c = 0; c < side; ++c)
            line[c] = uchar(std::lround((x(row, Eigen::Index(r) * side + c) - lo) * scale));
    }
    return img;
}

/// @p count row indices spread evenly over [0, n).
std::vector<Eigen::Index> spread(Eigen::Index n, Eigen::Index count)
{
    std::vector<Eigen::Index> out;
    count = std::min(n, count);
    for (Eigen::Index i = 0; i < count; ++i)
        out.push_back(i * n / count);
    return out;
}

int squareSide(Eigen::Index d)
{
    const auto side = Eigen::Index(std::lround(std::sqrt(double(d))));
    return side * side == d && side >= 8 ? int(side) : 0;
}

} // namespace

DatasetPreview::DatasetPreview(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
}

DatasetPreview::Summary DatasetPreview::summarise(const data::DatasetPair& pair, int maxImages, int maxPoints)
{
    Summary s;
    const data::Dataset& tr = pair.train;
    const data::Dataset& te = pair.test;
    s.valid = true;
    s.trainRows = tr.rows();
    s.testRows = te.rows();
    s.inputs = tr.inputs();
    s.outputs = tr.outputs();
    s.task = tr.task;
    s.description = tr.description;
    s.classNames = tr.classNames;
    for (auto c : tr.classCounts())
        s.trainClassCounts << qint64(c);

    if (tr.isSparse())
        return s; // a text corpus: no picture of its rows (the description says how sparse it is)
    if (const int side = squareSide(tr.inputs()); side > 0 && tr.rows() > 0) {
        s.plot = Summary::Plot::Images;
        for (auto r : spread(tr.rows(), maxImages)) {
            s.images << toImage(tr.x, r, side);
            s.imageClasses << (tr.isClassification() ? tr.labels[size_t(r)] : -1);
        }
        return s;
    }
    auto addPoints = [&](const data::Dataset& d, bool test, Eigen::Index count) {
        for (auto r : spread(d.rows(), count)) {
            if (s.plot == Summary::Plot::Scatter2D) {
                s.points << QPointF(d.x(r, 0), d.x(r, 1));
                s.groups << d.labels[size_t(r)];
                s.isTest << test;
            } else {
                for (Eigen::Index j = 0; j < d.outputs(); ++j) {
                    s.points << QPointF(d.x(r, 0), d.y(r, j));
                    s.groups << int(j);
                    s.isTest << test;
                }
            }
        }
    };
    if (tr.inputs() == 2 && tr.isClassification()) {
        s.plot = Summary::Plot::Scatter2D;
        s.groupNames = tr.classNames;
    } else if (tr.inputs() == 1 && !tr.isClassification()) {
        s.plot = Summary::Plot::Scatter1D;
        for (Eigen::Index j = 0; j < tr.outputs(); ++j)
            s.groupNames << QStringLiteral("y%1").arg(j + 1);
    } else {
        return s;
    }
    const Eigen::Index perSet = std::max<Eigen::Index>(1, maxPoints / std::max<Eigen::Index>(1, s.groupNames.size()));
    addPoints(tr, false, s.plot == Summary::Plot::Scatter2D ? maxPoints : perSet);
    addPoints(te, true, s.plot == Summary::Plot::Scatter2D ? maxPoints / 2 : perSet);
    if (!s.points.isEmpty()) {
        double x0 = s.points[0].x(), x1 = x0, y0 = s.points[0].y(), y1 = y0;
        for (const auto& p : s.points) {
            x0 = std::min(x0, p.x());
            x1 = std::max(x1, p.x());
            y0 = std::min(y0, p.y());
            y1 = std::max(y1, p.y());
        }
        const double mx = std::max(1e-9, (x1 - x0) * 0.05), my = std::max(1e-9, (y1 - y0) * 0.05);
        s.bounds = QRectF(QPointF(x0 - mx, y0 - my), QPointF(x1 + mx, y1 + my));
    }
    return s;
}

void DatasetPreview::setSummary(const Summary& s)
{
    m_summary = s;
    m_message.clear();
    setToolTip(s.description);
    update();
}

void DatasetPreview::setMessage(const QString& text)
{
    m_summary = Summary();
    m_message = text;
    setToolTip(QString());
    update();
}

QString DatasetPreview::shapeText() const
{
    if (!m_summary.valid)
        return {};
    return tr("n train %1 / n test %2 / d %3 / k %4")
        .arg(m_summary.trainRows)
        .arg(m_summary.testRows)
        .arg(m_summary.inputs)
        .arg(m_summary.outputs);
}

QString DatasetPreview::classText() const
{
    if (!m_summary.valid)
        return {};
    if (m_summary.task == Task::Regression)
        return m_summary.outputs == 1 ? tr("regression, 1 target") : tr("regression, %1 targets").arg(m_summary.outputs);
    QStringList parts;
    const int shown = std::min<int>(int(m_summary.classNames.size()), 12);
    for (int c = 0; c < shown; ++c)
        parts << QStringLiteral("%1 (%2)").arg(m_summary.classNames[c]).arg(m_summary.trainClassCounts.value(c));
    if (shown < m_summary.classNames.size())
        parts << QStringLiteral("…");
    const QString count = m_summary.classNames.size() == 1 ? tr("1 class: ")
                                                           : tr("%1 classes: ").arg(m_summary.classNames.size());
    return count + parts.join(QStringLiteral(", "));
}

QSize DatasetPreview::sizeHint() const
{
    return {340, 300};
}

QSize DatasetPreview::minimumSizeHint() const
{
    return {200, 140};
}

void DatasetPreview::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QRectF area = QRectF(rect()).adjusted(2, 2, -2, -2);
    if (!m_summary.valid) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(area, Qt::AlignCenter | Qt::TextWordWrap, m_message.isEmpty() ? tr("No preview") : m_message);
        return;
    }
    p.setPen(palette().color(QPalette::WindowText));
    const QString text = shapeText() + QLatin1Char('\n') + classText();
    const QRectF used = p.boundingRect(area, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
    p.drawText(area, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
    area.setTop(used.bottom() + 6);
    if (area.height() < 20)
        return;
    if (m_summary.plot == Summary::Plot::Images)
        paintImages(p, area);
    else if (m_summary.plot != Summary::Plot::None)
        paintScatter(p, area);
}

void DatasetPreview::paintImages(QPainter& p, const QRectF& area) const
{
    const auto n = int(m_summary.images.size());
    if (n == 0)
        return;
    // The most columns whose cells still fit every image in the area.
    int bestCols = 1;
    double bestCell = 0;
    for (int cols = 1; cols <= n; ++cols) {
        const int rows = (n + cols - 1) / cols;
        const double cell = std::min(area.width() / cols, area.height() / rows);
        if (cell > bestCell) {
            bestCell = cell;
            bestCols = cols;
        }
    }
    const double gap = bestCell > 20 ? 2 : 0;
    p.setRenderHint(QPainter::SmoothPixmapTransform, false); // pixels stay crisp
    for (int i = 0; i < n; ++i) {
        const QRectF cell(area.left() + (i % bestCols) * bestCell, area.top() + (i / bestCols) * bestCell,
                          bestCell - gap, bestCell - gap);
        p.drawImage(cell, m_summary.images[i]);
    }
}

void DatasetPreview::paintScatter(QPainter& p, const QRectF& full) const
{
    const QRectF& b = m_summary.bounds;
    if (b.width() <= 0 || b.height() <= 0)
        return;
    // Legend on top, plot below; a square plot for 2-D inputs so shapes are not distorted.
    const QFontMetricsF fm(font());
    QRectF area = full.adjusted(0, fm.height() + 4, 0, 0);
    double x = full.left();
    for (int g = 0; g < m_summary.groupNames.size() && g < 12; ++g) {
        p.setPen(Qt::NoPen);
        p.setBrush(charts::ChartPalette::color(g));
        p.drawEllipse(QPointF(x + 5, full.top() + fm.height() / 2), 4, 4);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QPointF(x + 12, full.top() + fm.ascent()), m_summary.groupNames[g]);
        x += 24 + fm.horizontalAdvance(m_summary.groupNames[g]);
    }
    p.drawText(QRectF(full.left(), full.top(), full.width(), fm.height()), Qt::AlignRight,
               tr("filled: train, hollow: test"));
    if (m_summary.plot == Summary::Plot::Scatter2D) {
        const double side = std::min(area.width(), area.height());
        area = QRectF(area.left() + (area.width() - side) / 2, area.top(), side, side);
    }
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(Qt::NoBrush);
    p.drawRect(area);
    auto map = [&](const QPointF& q) {
        return QPointF(area.left() + (q.x() - b.left()) / b.width() * area.width(),
                       area.bottom() - (q.y() - b.top()) / b.height() * area.height());
    };
    const double r = m_summary.points.size() > 600 ? 2.5 : 3.5;
    for (int i = 0; i < m_summary.points.size(); ++i) {
        const QColor c = charts::ChartPalette::color(m_summary.groups[i]);
        if (m_summary.isTest[i]) {
            p.setPen(QPen(c, 1.2));
            p.setBrush(Qt::NoBrush);
        } else {
            p.setPen(Qt::NoPen);
            p.setBrush(charts::ChartPalette::translucent(c, 0.75));
        }
        p.drawEllipse(map(m_summary.points[i]), r, r);
    }
}

} // namespace tb::gui
