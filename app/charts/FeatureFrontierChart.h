#pragma once
/// @file FeatureFrontierChart.h
/// Test accuracy (or RMSE) against training time with the number of features as a third
/// dimension — the point size — one point per stage or run (Least Squares Revisited, Fig. 1a:
/// how many random features buy how much accuracy in how much time).

#include <engine/ExperimentRunner.h>

#include <QChart>
#include <QList>
#include <QString>

class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace tb::charts {

/// One point: a checkpoint of a run that states how many features its model had.
struct FeaturePoint {
    int curve = 0;       ///< index into the curves given (colour, legend)
    int repeat = 0;
    double seconds = 0;  ///< training time at the checkpoint
    double value = 0;    ///< test accuracy (fraction) or test RMSE
    double features = 0; ///< features of the model at that checkpoint
};

/// A scatter of training time (x, log10) against test accuracy in % (or test RMSE for regression
/// experiments) (y), one colour per algorithm of the experiment (ChartPalette), point size growing
/// with √features (the smallest count at 7 px, the largest at 30 px, in kSizeLevels steps: one
/// scatter series per size, as Qt 6.4 misdraws per-point sizes), and a thin line joining the
/// checkpoints of each run in order. A run joins when it recorded the fact "feature_counts" (one
/// count per checkpoint: every checkpoint is a point, e.g. each stage of lsq.stagewise) or
/// "features" (the count of its model: its last checkpoint is a point, e.g. lsq.gls). Points with
/// time ≤ 0 or no metric cannot be placed and are left out (hiddenPoints()).
/// GUI thread only; needs a QApplication (offscreen for PNG export).
class FeatureFrontierChart : public QChart {
    Q_OBJECT
public:
    explicit FeatureFrontierChart(QGraphicsItem* parent = nullptr);

    /// The points of @p curves (see the class comment); @p regression picks test RMSE.
    static QList<FeaturePoint> points(const QList<AlgorithmCurves>& curves, bool regression);
    /// True when some run of @p curves recorded "feature_counts" or "features".
    static bool hasFeatureCounts(const QList<AlgorithmCurves>& curves);
    /// Distinct marker sizes (one scatter series per curve and size).
    static constexpr int kSizeLevels = 6;
    /// Marker diameter in pixels for @p features when counts range over [@p lo, @p hi]:
    /// 7 px at lo to 30 px at hi on a √ scale, rounded to kSizeLevels levels; the middle size
    /// when the range is empty or the count is not positive.
    static double markerSize(double features, double lo, double hi);

    /// Shows @p curves; replaces what was shown.
    void setData(const QList<AlgorithmCurves>& curves, bool regression);
    const QList<FeaturePoint>& shownPoints() const { return m_points; }
    int hiddenPoints() const { return m_hidden; }
    /// The scatter series of curve @p index, one per marker size in increasing size (empty
    /// when it has no points); only the first has a legend entry.
    QList<QScatterSeries*> curveSeries(int index) const;

private:
    QList<FeaturePoint> m_points;
    QList<QList<QScatterSeries*>> m_scatter; ///< per curve, per marker size
    QLogValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    int m_hidden = 0;
};

} // namespace tb::charts
