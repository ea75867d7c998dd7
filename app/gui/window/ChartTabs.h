#pragma once
/// @file ChartTabs.h
/// The live charts of the main window: one tab per chart of the registry placed in the Charts
/// tab (metric vs time, metric vs epoch, loss vs time, RMSE vs σ).

#include <charts/ChartOptions.h>
#include <charts/LearningCurveChart.h>
#include <charts/SummaryChart.h>

#include <QTabWidget>

#include <memory>
#include <vector>

class QAction;
class QLabel;

namespace tb::charts {
class ChartPlot;
class ChartView;
struct ChartEntry;
} // namespace tb::charts

namespace tb::gui {

class ElidedLabel;

/// One tab per chart of the ChartRegistry placed in the Charts tab (charts::ChartPlace::Curves),
/// in the registry's order; today "<metric> vs time", "<metric> vs epoch", "Loss vs time" and
/// "RMSE vs σ", where the metric is accuracy for classification and RMSE for regression
/// (setTask()). The CLI's PNG export draws the same charts. The tabs are never disabled: they
/// fill while an experiment runs. A bar above the
/// tabs says what is shown (live experiment or stored runs; elided, never widening the window)
/// and offers a Display menu (log time axis, log y axis, train/test lines, ± std band mode) and
/// reset zoom. A click on a legend entry hides or shows its line. Each view zooms by rubber band and wheel and shows
/// exact values on hover (charts::ChartView). GUI thread only.
class ChartTabs : public QWidget {
    Q_OBJECT
public:
    explicit ChartTabs(QWidget* parent = nullptr);
    ~ChartTabs() override;

    /// Accuracy for classification, RMSE for regression; renames the tabs.
    void setTask(bool classification);
    bool isClassification() const { return m_options.classification.value_or(true); }
    /// Learning curves. Cheap enough for ~20 calls a second while training: only the chart in
    /// view is rebuilt at once, the others when their tab is opened (or by refreshAll()).
    void setCurves(const QList<charts::CurveSeriesData>& curves);
    /// Summary points of an experiment of @p kind (a noise sweep's; the kind names their axis),
    /// rebuilt like setCurves().
    void setSummary(const QList<SummaryPoint>& points, const QString& kind);
    /// Brings every chart up to date with the data last given (e.g. before exporting all).
    void refreshAll();
    /// Empties every chart.
    void clear();
    /// The line above the tabs, e.g. "Live: Toy linear — noise sweep" (elided to the width it
    /// gets, whole in its tooltip: it never widens the window).
    void setCaption(const QString& text);
    QString caption() const;
    /// Shows a tab whose chart applies to experiments of @p kind: the current one when it does,
    /// else the first that does (a noise sweep: RMSE vs σ; the others: the metric against time).
    void showKind(const QString& kind);

    /// Training time on a log10 axis (the charts against time): true log, false linear, unset
    /// (the default) chosen by the data — log when the times span more than two decades
    /// (ChartOptions::logTime). Display → Time axis and View → Time axis set it.
    void setTimeAxis(std::optional<bool> log);
    std::optional<bool> timeAxis() const { return m_options.logTime; }
    /// The Time axis submenu (Automatic, Linear, Log), for the window's View menu too.
    QMenu* timeAxisMenu() const { return m_timeMenu; }
    /// Whether the time axis of the current data is logarithmic (as chosen or as chosen for it).
    bool timeAxisIsLog() const { return m_options.logTimeFor(m_data); }

    /// Writes the current tab's chart as a PNG (ChartRenderer, 1200×800). False with a message
    /// naming the path on failure.
    bool savePng(const QString& path, QString* error);
    /// Writes the current tab's chart as PNG or SVG (by @p path's suffix) with @p title and the
    /// @p settings lines above it (ChartRenderer::saveWithHeader), so the file says what it shows.
    /// A chart that paints itself (not a QChart) is written as a PNG without the header.
    bool saveImage(const QString& path, const QString& title, const QStringList& settings, QString* error);

    /// The metric on a log10 axis in every chart. Default off.
    void setLogY(bool on);
    bool logY() const;
    /// Shows train lines, test lines, or both, in every chart (the train/test toggle).
    void setLinesShown(bool train, bool test);
    /// How every chart draws its ± std bands (BandedLineChart::BandMode; default Auto).
    void setBandMode(charts::BandedLineChart::BandMode mode);
    /// The line charts of the tabs (those the Display menu acts on).
    QList<charts::BandedLineChart*> allCharts() const;

    /// The tab of chart @p id (ChartEntry::id), −1 when there is none.
    int indexOf(const QString& id) const;
    /// The chart of @p id's tab; nullptr when there is none or it is not a QChart.
    QChart* chart(const QString& id) const;
    charts::LearningCurveChart* timeChart() const;  ///< "learning-curve-time"
    charts::LearningCurveChart* epochChart() const; ///< "learning-curve-epoch"
    charts::LearningCurveChart* lossChart() const;  ///< "loss-time"
    charts::SummaryChart* summaryChart() const;     ///< "rmse-summary"
    QTabWidget* tabs() const { return m_tabs; }
    /// The view of the current tab (nullptr when its chart paints itself).
    charts::ChartView* currentView() const;

public Q_SLOTS:
    void resetZoom();

private:
    /// One tab: the registry's entry and the plot it built.
    struct Tab {
        const charts::ChartEntry* entry = nullptr;
        std::unique_ptr<charts::ChartPlot> plot;
        bool dirty = false; ///< data newer than its chart
    };

    void renameTabs();
    void refreshCurrent();
    /// Shows the data on every chart now, with the options as they are.
    void applyOptions();

    QTabWidget* m_tabs = nullptr;
    ElidedLabel* m_caption = nullptr;
    QMenu* m_timeMenu = nullptr;
    QAction* m_timeAuto = nullptr;
    QAction* m_timeLinear = nullptr;
    QAction* m_timeLog = nullptr;
    QAction* m_logY = nullptr;
    QAction* m_showTrain = nullptr;
    QAction* m_showTest = nullptr;
    std::vector<Tab> m_tabList;
    ExperimentResult m_data;         ///< what the charts show: curves and sweep points
    charts::ChartOptions m_options;  ///< classification and log time
};

} // namespace tb::gui
