#pragma once
/// @file ParamSweepChart.h
/// Final metric against one swept parameter of a param sweep, mean ± std over seeds.

#include "BandedLineChart.h"

#include <engine/ExperimentRunner.h>
#include <engine/RunMetric.h>

#include <QList>
#include <QString>
#include <optional>

namespace tb::charts {

/// One line per group of configurations that differ only in the parameter on the x axis (the
/// algorithm, the other swept values and the data set name the group), coloured by ChartPalette
/// in order of first appearance. For accuracy and RMSE: test solid "<group> — test" and train
/// dashed "<group> — train"; other metrics one solid line. Each point is the mean of the runs
/// that finished at that value with a ± std band when a point has more than one run. The x axis
/// is log10 when the values are (all positive, and spanning a factor ≥ 50 or evenly spaced by a
/// constant ratio), unless forced with setLogX(). GUI thread only; needs a QApplication.
class ParamSweepChart : public BandedLineChart {
    Q_OBJECT
public:
    explicit ParamSweepChart(QGraphicsItem* parent = nullptr);

    /// Shows @p curves (ExperimentResult::curves of a param sweep, possibly partial while it
    /// runs) against parameter @p parameter. Configurations without a numeric value of
    /// @p parameter are left out. Cheap to call repeatedly (series are reused).
    void setData(const QList<AlgorithmCurves>& curves, const QString& parameter,
                 MetricId metric = MetricId::TestAccuracy);
    QString parameter() const { return m_parameter; }
    MetricId metric() const { return m_metric; }

    /// nullopt: log x decided from the values (default); true / false forces it.
    void setLogX(std::optional<bool> log);
    /// The rule of the automatic choice, for tests: all > 0 and (max/min ≥ 50, or ≥ 3 distinct
    /// values with equal ratios > 1.5 between neighbours, within 1 %).
    static bool looksLogarithmic(QList<double> values);
    /// The swept keys of @p curves whose values are all numbers (the parameters a chart can use),
    /// in the order of ExperimentResult::variedKeys (alphabetical).
    static QStringList numericParameters(const QList<AlgorithmCurves>& curves);

private:
    void rebuild();

    QList<AlgorithmCurves> m_curves;
    QString m_parameter;
    MetricId m_metric = MetricId::TestAccuracy;
    std::optional<bool> m_forceLog;
};

} // namespace tb::charts
