#include "TeachingCurves.h"

#include <charts/ChartPalette.h>

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace tb::gui {

TeachingCurves::TeachingCurves(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("Accuracy (train dashed, test solid, 0–100 %) and loss (grey, its own scale) against epoch"));
}

void TeachingCurves::append(double epoch, double trainAccuracy, double testAccuracy, double loss)
{
    m_epoch << epoch;
    m_train << trainAccuracy;
    m_test << testAccuracy;
    m_loss << loss;
    update();
}

void TeachingCurves::clear()
{
    m_epoch.clear();
    m_train.clear();
    m_test.clear();
    m_loss.clear();
    m_kept = std::numeric_limits<double>::quiet_NaN();
    update();
}

void TeachingCurves::setKeptEpoch(double epoch)
{
    if ((std::isnan(epoch) && std::isnan(m_kept)) || epoch == m_kept)
        return;
    m_kept = epoch;
    update();
}

void TeachingCurves::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm(font());
    const QRectF plot = QRectF(rect()).adjusted(fm.horizontalAdvance(QStringLiteral("100%")) + 6, 4, -6,
                                                -fm.height() - 2);
    p.setPen(QColor(0xcc, 0xcc, 0xcc));
    p.drawRect(plot);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(0, plot.top() - 2, plot.left() - 4, fm.height()), Qt::AlignRight, QStringLiteral("100%"));
    p.drawText(QRectF(0, plot.bottom() - fm.height() + 2, plot.left() - 4, fm.height()), Qt::AlignRight,
               QStringLiteral("0%"));
    if (m_epoch.isEmpty()) {
        p.drawText(plot, Qt::AlignCenter, tr("accuracy and loss appear here while it trains"));
        return;
    }
    const double e0 = m_epoch.first(), e1 = std::max(m_epoch.last(), e0 + 1e-9);
    p.drawText(QRectF(plot.left(), plot.bottom() + 1, plot.width(), fm.height()), Qt::AlignLeft,
               QString::number(e0, 'g', 4));
    p.drawText(QRectF(plot.left(), plot.bottom() + 1, plot.width(), fm.height()), Qt::AlignRight,
               tr("epoch %1").arg(QString::number(e1, 'g', 4)));
    auto x = [&](double e) { return plot.left() + (e - e0) / (e1 - e0) * plot.width(); };

    // Loss on its own scale: log when it spans decades (cross entropy falls from ~1 to ~1e-3).
    double lo = INFINITY, hi = -INFINITY;
    for (double l : m_loss)
        if (std::isfinite(l)) {
            lo = std::min(lo, l);
            hi = std::max(hi, l);
        }
    const bool logLoss = lo > 0 && hi / lo > 100;
    auto scaled = [&](double l) { return logLoss ? std::log10(l) : l; };
    const double slo = std::isfinite(lo) ? scaled(lo) : 0, shi = std::isfinite(hi) ? scaled(hi) : 1;

    auto line = [&](const QVector<double>& v, auto y, const QPen& pen) {
        QPainterPath path;
        bool started = false;
        for (int i = 0; i < v.size(); ++i) {
            if (!std::isfinite(v[i])) {
                started = false;
                continue;
            }
            const QPointF pt(x(m_epoch[i]), y(v[i]));
            if (started)
                path.lineTo(pt);
            else
                path.moveTo(pt);
            started = true;
        }
        p.setPen(pen);
        p.drawPath(path);
    };
    const auto yAcc = [&](double a) { return plot.bottom() - std::clamp(a, 0.0, 1.0) * plot.height(); };
    const auto yLoss = [&](double l) {
        return shi > slo ? plot.bottom() - (scaled(l) - slo) / (shi - slo) * plot.height() : plot.center().y();
    };
    line(m_loss, yLoss, QPen(QColor(0x99, 0x99, 0x99), 1.2));
    const QColor c = charts::ChartPalette::color(0);
    line(m_train, yAcc, QPen(c, 1.6, Qt::DashLine));
    line(m_test, yAcc, QPen(c, 1.8));
    // The kept epoch, once later epochs exist: the accuracy may drop after it during BPLS's
    // refinement, and the model at the end is this one (issue 29: the drop looked unexplained).
    if (std::isfinite(m_kept) && m_kept >= e0 && m_kept < m_epoch.last()) {
        const double kx = x(m_kept);
        const QColor mark(0x2e, 0x7d, 0x32);
        p.setPen(QPen(mark, 1.2, Qt::DotLine));
        p.drawLine(QPointF(kx, plot.top()), QPointF(kx, plot.bottom()));
        const QString text = tr("best, kept: epoch %1").arg(QString::number(m_kept, 'g', 4));
        const double w = fm.horizontalAdvance(text) + 4;
        const double left = std::clamp(kx + 3, plot.left(), plot.right() - w);
        p.fillRect(QRectF(left, plot.top() + 1, w, fm.height()), palette().base());
        p.setPen(mark);
        p.drawText(QRectF(left, plot.top() + 1, w, fm.height()), Qt::AlignCenter, text);
    }
}

} // namespace tb::gui
