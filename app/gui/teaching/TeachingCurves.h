#pragma once
/// @file TeachingCurves.h
/// A small live chart of one teaching run: train and test accuracy and the loss against epoch.

#include <QVector>
#include <QWidget>

#include <limits>

namespace tb::gui {

/// Paints train accuracy (dashed) and test accuracy (solid) on a 0 … 100 % scale and the loss
/// (grey, scaled to its own range, log10 when it spans more than two decades) against epoch.
/// Meant for a strip under a decision-region plot: cheap to repaint at 20 Hz, no axes beyond a
/// few labels. GUI thread only.
class TeachingCurves : public QWidget {
    Q_OBJECT
public:
    explicit TeachingCurves(QWidget* parent = nullptr);

    /// Appends one checkpoint; NaN values are skipped in their line.
    void append(double epoch, double trainAccuracy, double testAccuracy, double loss);
    /// Removes every point (a new run) and the kept epoch.
    void clear();
    /// Marks epoch @p epoch as the one whose weights are kept (a vertical line labelled "kept"),
    /// e.g. BPLS's best iterate while later refinements score lower; NaN: no mark.
    void setKeptEpoch(double epoch);
    double keptEpoch() const { return m_kept; }
    /// Points held.
    int count() const { return int(m_epoch.size()); }

    QSize sizeHint() const override { return {320, 90}; }
    QSize minimumSizeHint() const override { return {120, 60}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QVector<double> m_epoch, m_train, m_test, m_loss;
    double m_kept = std::numeric_limits<double>::quiet_NaN(); ///< the kept epoch, NaN: none
};

} // namespace tb::gui
