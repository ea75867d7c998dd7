#pragma once
/// @file SummaryChart.h
/// Train and test RMSE against the axis of an experiment kind's summary points (a noise sweep's
/// σ: the BPLS paper's Fig. 4–5).

#include "BandedLineChart.h"
#include <store/RunTypes.h>

#include <QList>

namespace tb::charts {

/// Train and test RMSE against the summary points' x, one colour per algorithm (ChartPalette, in
/// order of first appearance in the data): test = solid "<name> — test", train = dashed "<name> —
/// train", markers at the x values, a shaded ± std band when the algorithm has a point over more
/// than one run. Linear axes: the kind's summary axis (setAxis(); "x" until then) and "RMSE". GUI
/// thread only; needs a QApplication.
class SummaryChart : public BandedLineChart {
    Q_OBJECT
public:
    explicit SummaryChart(QGraphicsItem* parent = nullptr);

    /// Names the x axis ("noise σ") and the title with it.
    void setAxis(const QString& axis);

    /// Shows @p points (any order; grouped by algorithmId, sorted by x), reusing the existing series
    /// (QXYSeries::replace) so it can be called while the experiment runs. Points with NaN means
    /// are skipped; a NaN std counts as 0.
    void setData(const QList<SummaryPoint>& points);
    const QList<SummaryPoint>& data() const { return m_data; }

private:
    QList<SummaryPoint> m_data;
};

} // namespace tb::charts
