#include "LogSlider.h"

#include <QSignalBlocker>
#include <algorithm>
#include <cmath>

namespace tb::gui {

LogSlider::LogSlider(double lo, double hi, QWidget* parent) : QSlider(Qt::Horizontal, parent)
{
    const bool loOk = std::isfinite(lo) && lo > 0;
    const bool hiOk = std::isfinite(hi) && hi > 0;
    m_hi = hiOk ? hi : (loOk ? lo * 1e6 : 1.0);
    m_lo = loOk ? lo : m_hi * 1e-6;
    if (!(m_lo < m_hi)) // a degenerate range still needs a defined scale
        m_hi = m_lo * 10;
    setRange(0, steps());
    setSingleStep(steps() / 100);
    setPageStep(steps() / 10);
    connect(this, &QSlider::valueChanged, this, [this] { Q_EMIT logValueChanged(logValue()); });
}

double LogSlider::logValue() const
{
    const double t = double(value()) / steps();
    const double v = std::pow(10.0, std::log10(m_lo) + t * (std::log10(m_hi) - std::log10(m_lo)));
    // Round to 3 significant digits: slider positions should give readable numbers like 0.00316.
    const double scale = std::pow(10.0, std::floor(std::log10(v)) - 2);
    return std::clamp(std::round(v / scale) * scale, m_lo, m_hi);
}

void LogSlider::setLogValue(double v)
{
    const QSignalBlocker block(this);
    if (!(v > 0) || !std::isfinite(v)) {
        setValue(0);
        return;
    }
    const double t = (std::log10(v) - std::log10(m_lo)) / (std::log10(m_hi) - std::log10(m_lo));
    setValue(int(std::lround(std::clamp(t, 0.0, 1.0) * steps())));
}

} // namespace tb::gui
