#pragma once
/// @file ExportDialogs.h
/// File → Export chart as PNG or SVG and File → Export selected runs as CSV.

#include <QObject>

class QTabWidget;
class QWidget;

namespace tb::gui {

class ChartTabs;
class ComparisonTab;
class ExperimentDocument;
class RunBrowser;
class RunControl;
class WindowMessages;

/// The export dialogs, starting in the document's folder. A chart is the one in view: on the
/// Charts tab as PNG or SVG with a header naming the experiment and its settings
/// (RunControl::chartSettings()), on the Comparison tab as PNG; runs are those selected in the run
/// browser, as CSV (the engine's format). Failures are shown through WindowMessages. GUI thread only.
class ExportDialogs : public QObject {
    Q_OBJECT
public:
    /// Everything given must outlive this object; @p window is its parent and the dialogs'.
    ExportDialogs(ChartTabs* charts, ComparisonTab* comparison, QTabWidget* centre, QWidget* comparisonPage,
                  RunBrowser* browser, RunControl* runs, ExperimentDocument* document,
                  WindowMessages* messages, QWidget* window);

    void exportChart();
    void exportRuns();

private:
    ChartTabs* m_charts;
    ComparisonTab* m_comparison;
    QTabWidget* m_centre;
    QWidget* m_comparisonPage;
    RunBrowser* m_browser;
    RunControl* m_runs;
    ExperimentDocument* m_document;
    WindowMessages* m_messages;
    QWidget* m_window;
};

} // namespace tb::gui
