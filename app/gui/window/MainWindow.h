#pragma once
/// @file MainWindow.h
/// The workbench window: data set, algorithms and experiment settings; live charts; the run
/// browser; the teaching view; experiment files and databases.

#include <engine/ExperimentSpec.h>

#include <QJsonObject>
#include <QMainWindow>
#include <optional>

class QAction;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QTabWidget;

namespace tb {
class PluginRegistry;
class RunStore;
} // namespace tb

namespace tb::gui {

class AlgorithmPanel;
class ChartTabs;
class ComparisonTab;
class DatabaseControl;
class DatasetPanel;
class ExperimentController;
class ExperimentDocument;
class ExperimentPanel;
class ExportDialogs;
class PresentationMode;
class GuideViewer;
class ReportViewer;
class RunBrowser;
class RunControl;
class TeachingView;
class WindowLayout;
class WindowMessages;

/// The main window.
///
/// Left: the Experiment dock (ExperimentPanel, Run and Stop) above the Dataset dock
/// (DatasetPanel). Right: the Algorithms dock (AlgorithmPanel). Centre: "Charts" (ChartTabs),
/// "Comparison" (ComparisonTab: a param sweep's charts and the comparison tables, also for runs
/// picked in the run browser) and "Teaching" (TeachingView). Bottom: "Runs" (RunBrowser) and "Log". Status bar: what runs
/// now, the current run's progress and the experiment's.
///
/// Experiments run on an ExperimentController: the GUI thread only drains its queue every 50 ms,
/// so the window stays responsive while the workers train. Every run is logged to the open
/// run store (default RunStore::defaultPath(), or the last database opened, from QSettings); the
/// run browser refreshes when an experiment ends.
///
/// Experiment files (File menu) are the JSON files trainbench-cli runs; the title shows the file
/// and "*" while there are unsaved changes. Destructive or lossy actions (discarding unsaved
/// changes, quitting while an experiment runs, deleting runs) ask first unless
/// setConfirmations(false) (tests). Settings (geometry, dock layout, database, thread cap, last
/// folder, log-scale time) persist with QSettings, and so does the experiment being edited:
/// a window started after a crash continues with the unsaved edits. GUI thread only.
///
/// The window is the composition of parts with one job each (app/gui/window): ExperimentDocument
/// (the panels' experiment, its files and the session), DatabaseControl (the run store),
/// RunControl (run, stop, re-run, overlay, live charts), WindowLayout (docks and sizes),
/// PresentationMode (F11), ExportDialogs (chart and CSV exports) and WindowMessages (log, status
/// line, problem dialogs). The window builds the widgets, the menus and the tool bar, and wires
/// them to the parts; its methods below hand over to them.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// @p registry (scanned) must outlive the window. Opens the database of the settings (or
    /// the default one); when that fails the window still opens, says why and runs without a store.
    explicit MainWindow(const PluginRegistry& registry, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// The experiment the panels describe, as an experiment file's JSON object.
    QJsonObject experimentJson() const;
    /// The experiment the panels describe, parsed and validated against the registry; nullopt
    /// with every problem (one per line, each naming its key) in @p problems.
    std::optional<ExperimentSpec> currentSpec(QStringList* problems) const;
    /// Shows @p spec in the panels (as File → Open does), without a file. Returns the problems
    /// of settings that could not be shown (unknown algorithms …), empty when all were.
    QStringList setExperiment(const QJsonObject& spec, const QString& baseDir = QString());

    /// File → Open: reads @p path into the panels. False with a message naming the file (and
    /// line and column for a JSON syntax error) when it cannot be read or is not an experiment.
    bool openExperiment(const QString& path, QString* error);
    /// File → Save: writes experimentJson() to @p path atomically; the window then names it.
    bool saveExperiment(const QString& path, QString* error);
    /// The experiment file shown in the title, empty for an unsaved experiment.
    QString experimentPath() const;
    /// True when the panels changed since the last open, save or new.
    bool isModified() const { return isWindowModified(); }

    /// File → Open database: closes the current store and opens @p path (created if missing).
    /// Refused while an experiment runs. On failure the current store stays open.
    bool openDatabase(const QString& path, QString* error);
    RunStore* store() const;
    /// File → Save results to another database: writes the last experiment's results (kept in
    /// memory when the open database failed during it) into @p path as a new experiment (see
    /// tb::saveResult). Enabled after an experiment the database could not record completely.
    /// False with a message naming the file and the cause when it cannot.
    bool saveResultsTo(const QString& path, QString* error);
    QAction* saveResultsAction() const;

    /// Run: validates the panels' experiment and starts it. False with the problems in @p error.
    bool runExperiment(QString* error);
    /// Re-runs stored run @p runId with its stored settings (algorithm, parameters, seed via its
    /// repeat index, thread count, data set). False with a message when it cannot.
    bool rerun(qint64 runId, QString* error);
    /// Re-runs stored experiment @p experimentId exactly as it was run.
    bool rerunExperiment(qint64 experimentId, QString* error);
    /// Shows stored runs on the charts (learning curves grouped by experiment and label; noise-sweep
    /// runs as their experiment's sweep points). Returns the number of runs shown.
    int overlayRuns(const QList<qint64>& runIds);
    /// Stop: the running experiment ends within 200 ms (conforming plugins).
    void stopExperiment();

    /// Writes the panels' experiment, its file and whether it is modified to the settings; the
    /// next window starts from them (done 0.5 s after every change, and on open, save, quit).
    void saveSession() const;

    /// What an exported chart says under its title: the data set, the kind with its repeats or σ
    /// grid, seed and threads, the algorithms, the app version; for stored runs the chart header.
    QStringList chartSettings() const;
    /// View → Presentation mode (F11): only the teaching view, full screen, fonts 1.6× larger,
    /// docks, menus, tool and status bars hidden; F11 again restores the layout as it was.
    void setPresentationMode(bool on);
    bool isPresentationMode() const;
    /// View → Reset layout: every dock back in its place and shown, the window sized from the
    /// screen again (unless maximised).
    void resetLayout();
    /// The docks' layout (View → Reset layout, the compact layout of small screens).
    WindowLayout* windowLayout() const { return m_layout; }
    /// The first-start window size for a screen of @p available size: 90 % of it, at most
    /// 1600×1000, at least 640×480 where the screen has it.
    static QSize initialSize(const QSize& available);
    /// @p window moved and shrunk as little as possible to lie inside @p available.
    static QRect fitToScreen(const QRect& window, const QRect& available);

    /// File → Open reproduction report: shows a report `trainbench-cli reproduce` wrote
    /// (docs/reproductions/<paper>.md) rendered with its charts in a window of its own (ReportViewer).
    /// False, after saying why in a message box, when @p path is no readable report.
    bool showReproductionReport(const QString& path);
    /// The report window, once a report was shown (null before).
    ReportViewer* reportViewer() const { return m_reportViewer; }
    /// Help → User guide (F1): docs/user-guide.md in a window of its own (GuideViewer), or a
    /// message naming the folders looked in when the installation lacks it.
    void showGuide();
    /// The guide's window, once it was shown (null before).
    GuideViewer* guideViewer() const { return m_guide; }
    /// The experiment file shown: File → New, Open, Open example, Save.
    ExperimentDocument* document() const { return m_document; }

    /// Whether destructive actions ask first (default true).
    void setConfirmations(bool on);

    ExperimentController* controller() const { return m_controller; }
    DatasetPanel* datasetPanel() const { return m_dataset; }
    AlgorithmPanel* algorithmPanel() const { return m_algorithms; }
    ExperimentPanel* experimentPanel() const { return m_experiment; }
    ChartTabs* charts() const { return m_charts; }
    /// The "Comparison" tab: a sweep's charts and the comparison tables.
    ComparisonTab* comparison() const { return m_comparison; }
    RunBrowser* runBrowser() const { return m_browser; }
    TeachingView* teachingView() const { return m_teaching; }
    QAction* runAction() const;
    QAction* stopAction() const;
    /// Run → Resume stopped experiment (RunControl::resumeAction()).
    QAction* resumeAction() const;
    /// The folder the Open and Save dialogs start in: the user's last folder, never the bundled
    /// examples' (opening an example does not change it).
    QString fileDialogFolder() const;
    /// The log's text, for tests.
    QString logText() const;
    /// The status line's text and the experiment's progress bar, for tests.
    QString statusText() const;
    QProgressBar* progressBar() const;

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void buildUi();
    void buildMenus();
    void restoreSettings();
    void saveSettings() const;
    void showPlugins();
    void showAbout();
    void openReproductionReport();

    const PluginRegistry& m_registry;
    ExperimentController* m_controller = nullptr;

    DatasetPanel* m_dataset = nullptr;
    AlgorithmPanel* m_algorithms = nullptr;
    ExperimentPanel* m_experiment = nullptr;
    ChartTabs* m_charts = nullptr;
    ComparisonTab* m_comparison = nullptr;
    QScrollArea* m_comparisonPage = nullptr; ///< the Comparison tab: m_comparison in a scroll area
    RunBrowser* m_browser = nullptr;
    TeachingView* m_teaching = nullptr;
    QTabWidget* m_centre = nullptr;
    QPushButton* m_runButton = nullptr; ///< under the experiment's settings, wired to the run actions
    QPushButton* m_stopButton = nullptr;

    WindowMessages* m_messages = nullptr;
    WindowLayout* m_layout = nullptr;
    PresentationMode* m_presentation = nullptr;
    DatabaseControl* m_database = nullptr;
    ExperimentDocument* m_document = nullptr;
    RunControl* m_runs = nullptr;
    ExportDialogs* m_exports = nullptr;
    ReportViewer* m_reportViewer = nullptr; ///< created when a report is first opened
    GuideViewer* m_guide = nullptr;         ///< created when the guide is first shown
};

} // namespace tb::gui
