#pragma once
/// @file ChartStyle.h
/// The look every chart of the registry shares.

class QChart;

namespace tb::charts {

/// Gives @p chart the registry's look: no animation, a square white background, the title in the
/// application font 1.35× and bold, the legend below the plot.
void styleChart(QChart* chart);

} // namespace tb::charts
