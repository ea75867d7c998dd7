#pragma once
/// @file TimeFrontierAxes.h
/// The look and axes the frontier charts share (FrontierChart, FeatureFrontierChart): a plain
/// white chart with a bold title, the legend below, training time on a log axis, the metric on a
/// linear one.

class QChart;
class QLogValueAxis;
class QValueAxis;

namespace tb::charts {

/// Styles @p chart and adds its axes: x training time in seconds (log 10, minor grid), y the metric
/// (its title is the caller's). The chart owns both axes.
void setUpTimeFrontier(QChart* chart, QLogValueAxis** x, QValueAxis** y);

} // namespace tb::charts
