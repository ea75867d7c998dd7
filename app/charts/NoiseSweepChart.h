#pragma once
/// @file NoiseSweepChart.h
/// RMSE vs noise level σ of a noise-sweep experiment (the BPLS paper's Fig. 4–5).

#include "BandedLineChart.h"
#include "RunTypes.h"

#include <QList>

namespace tb::charts {

/// Train and test RMSE against σ, one colour per algorithm (ChartPalette, in order of first
/// appearance in the data): test = solid "<name> — test", train = dashed "<name> — train", markers
/// at the σ values, a shaded ± std band when the algorithm has a point with more than one
/// Monte-Carlo run. Linear axes "noise σ" and "RMSE". GUI thread only; needs a QApplication.
class NoiseSweepChart : public BandedLineChart {
    Q_OBJECT
public:
    explicit NoiseSweepChart(QGraphicsItem* parent = nullptr);

    /// Shows @p points (any order; grouped by algorithmId, sorted by σ), reusing the existing series
    /// (QXYSeries::replace) so it can be called while the sweep runs. Points with NaN means are
    /// skipped; a NaN std counts as 0.
    void setData(const QList<SweepPoint>& points);
    const QList<SweepPoint>& data() const { return m_data; }

private:
    QList<SweepPoint> m_data;
};

} // namespace tb::charts
