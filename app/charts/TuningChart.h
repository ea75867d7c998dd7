#pragma once
/// @file TuningChart.h
/// A tuned comparison's tuning curves (Dodge et al., EMNLP 2019): per algorithm the expected best
/// validation score of n trials, ± its sd, against n or against the tuning CPU time n trials cost,
/// and the test score of the trial that choice makes.

#include "BandedLineChart.h"

#include <engine/SelectionCurves.h>

#include <QList>

namespace tb::charts {

/// One group per algorithm (ChartPalette order): "validation, expected best" solid with a ± sd
/// band, "test of the choice" dashed. X: trials (setAgainstTime(false), the default) or expected
/// tuning CPU seconds, log10 once it spans ten trials; y: accuracy in % (or RMSE for regression).
/// GUI thread only; needs a QApplication.
class TuningChart : public BandedLineChart {
    Q_OBJECT
public:
    explicit TuningChart(bool againstTime = false, QGraphicsItem* parent = nullptr);

    /// Shows @p curves (SelectionCurves::of()), reusing the series.
    void setData(const QList<TuningCurve>& curves);
    bool againstTime() const { return m_againstTime; }

private:
    bool m_againstTime;
};

} // namespace tb::charts
