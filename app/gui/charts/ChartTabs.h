#pragma once
/// @file ChartTabs.h
/// The live charts of the main window: metric vs time, metric vs epoch, loss vs time, RMSE vs σ.

#include <LearningCurveChart.h>
#include <NoiseSweepChart.h>

#include <QTabWidget>

class QAction;
class QLabel;

namespace tb::charts {
class ChartView;
}

namespace tb::gui {

class ElidedLabel;

/// Four charts in tabs, built with app/charts (the CLI's PNG export uses the same builders):
///  0 "<metric> vs time", 1 "<metric> vs epoch", 2 "Loss vs time", 3 "RMSE vs σ", where the
/// metric is accuracy for classification and RMSE for regression (setTask()). A bar above the
/// tabs says what is shown (live experiment or stored runs; elided, never widening the window)
/// and offers a Display menu (log time axis, log y axis, train/test lines, ± std band mode) and
/// reset zoom. A click on a legend entry hides or shows its line. Each view zooms by rubber band and wheel and shows
/// exact values on hover (charts::ChartView). GUI thread only.
class ChartTabs : public QWidget {
    Q_OBJECT
public:
    enum Tab { TimeTab = 0, EpochTab = 1, LossTab = 2, SweepTab = 3 };

    explicit ChartTabs(QWidget* parent = nullptr);

    /// Accuracy for classification, RMSE for regression; renames the tabs.
    void setTask(bool classification);
    bool isClassification() const { return m_classification; }
    /// Learning curves (tabs 0–2). Cheap enough for ~20 calls a second while training: only
    /// the chart in view is rebuilt at once, the others when their tab is opened (or by
    /// refreshAll()).
    void setCurves(const QList<charts::CurveSeriesData>& curves);
    /// Noise-sweep points (tab 3), rebuilt like setCurves().
    void setSweep(const QList<SweepPoint>& points);
    /// Brings every chart up to date with the data last given (e.g. before exporting all).
    void refreshAll();
    /// Empties every chart.
    void clear();
    /// The line above the tabs, e.g. "Live: Toy linear — noise sweep" (elided to the width it
    /// gets, whole in its tooltip: it never widens the window).
    void setCaption(const QString& text);
    QString caption() const;
    /// Shows the tab for a learning curve (time) or a noise sweep (σ).
    void showKind(bool noiseSweep);

    /// Training time on a log10 axis (tabs 0 and 2). Default off.
    void setLogTime(bool on);
    bool logTime() const;

    /// Writes the current tab's chart as a PNG (ChartRenderer, 1200×800). False with a message
    /// naming the path on failure.
    bool savePng(const QString& path, QString* error);
    /// Writes the current tab's chart as PNG or SVG (by @p path's suffix) with @p title and the
    /// @p settings lines above it (ChartRenderer::saveWithHeader), so the file says what it shows.
    bool saveImage(const QString& path, const QString& title, const QStringList& settings, QString* error);

    /// The metric on a log10 axis in every chart. Default off.
    void setLogY(bool on);
    bool logY() const;
    /// Shows train lines, test lines, or both, in every chart (the train/test toggle).
    void setLinesShown(bool train, bool test);
    /// How every chart draws its ± std bands (BandedLineChart::BandMode; default Auto).
    void setBandMode(charts::BandedLineChart::BandMode mode);
    /// The four charts.
    QList<charts::BandedLineChart*> allCharts() const;

    charts::LearningCurveChart* timeChart() const { return m_time; }
    charts::LearningCurveChart* epochChart() const { return m_epoch; }
    charts::LearningCurveChart* lossChart() const { return m_loss; }
    charts::NoiseSweepChart* sweepChart() const { return m_sweep; }
    QTabWidget* tabs() const { return m_tabs; }
    /// The view of the current tab.
    charts::ChartView* currentView() const;

public Q_SLOTS:
    void resetZoom();

private:
    void renameTabs();
    void refreshCurrent();

    QTabWidget* m_tabs = nullptr;
    ElidedLabel* m_caption = nullptr;
    QAction* m_logTime = nullptr;
    QAction* m_logY = nullptr;
    QAction* m_showTrain = nullptr;
    QAction* m_showTest = nullptr;
    charts::LearningCurveChart* m_time = nullptr;
    charts::LearningCurveChart* m_epoch = nullptr;
    charts::LearningCurveChart* m_loss = nullptr;
    charts::NoiseSweepChart* m_sweep = nullptr;
    QList<charts::ChartView*> m_views;
    QList<charts::CurveSeriesData> m_curves;
    QList<SweepPoint> m_points;
    bool m_dirty[4] = {false, false, false, false}; ///< per tab: data newer than its chart
    bool m_classification = true;
};

} // namespace tb::gui
