#pragma once
/// @file ChartPalette.h
/// The colours every Trainbench chart gives its algorithms, by order.

#include <QColor>

namespace tb::charts {

/// Okabe–Ito colour-blind-safe palette, ordered so that the first colours contrast most on white:
/// blue, vermillion, bluish green, reddish purple, orange, sky blue, black, and grey instead of the
/// original yellow (unreadable as a thin line on white); then eight of Paul Tol's muted scheme
/// (indigo, wine, olive, teal, rose, green, purple, sand), so twenty runs on a chart repeat a
/// colour four times, not twelve. Thread-safe.
class ChartPalette {
public:
    /// Number of distinct colours (16); indices beyond it wrap around.
    static int size();
    /// Colour of the algorithm at position @p index (any int; negative values wrap too).
    static QColor color(int index);
    /// @p c with alpha @p alpha (0 … 1), for the shaded ± std bands.
    static QColor translucent(const QColor& c, double alpha);
};

} // namespace tb::charts
