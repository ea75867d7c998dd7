#pragma once
/// @file LogSlider.h
/// A horizontal slider whose position is the logarithm of a positive real value.

#include <QSlider>

namespace tb::gui {

/// Slider over [lo, hi] on a log10 scale, for learning rates and regularisation strengths that
/// span decades. Positions are 0 … steps(); value() maps them back to reals.
///
/// A non-positive or non-finite @p lo / @p hi is replaced so the scale stays defined
/// (lo → hi·1e-6 or 1e-6; hi → lo·1e6). Values outside the range are clamped for display
/// only; the spin box beside it stays the authoritative value. GUI thread only.
class LogSlider : public QSlider {
    Q_OBJECT
public:
    /// @param lo,hi  range of the value (see the class note for non-positive bounds)
    LogSlider(double lo, double hi, QWidget* parent = nullptr);

    /// The real value at the current position.
    double logValue() const;
    /// Moves to the position nearest @p v without emitting logValueChanged().
    void setLogValue(double v);

    double lowerBound() const { return m_lo; }
    double upperBound() const { return m_hi; }
    /// Number of slider steps over the whole range (400: about 0.015 decades per step over 6 decades).
    static constexpr int steps() { return 400; }

Q_SIGNALS:
    /// The user moved the slider to a position worth @p value.
    void logValueChanged(double value);

private:
    double m_lo;
    double m_hi;
};

} // namespace tb::gui
