#pragma once
/// @file MainWindow.h
/// The workbench window: data set, algorithms and experiment settings; live charts; the run
/// browser; the teaching view; experiment files and databases.

#include <ExperimentSpec.h>

#include <QJsonObject>
#include <QMainWindow>
#include <QTimer>
#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
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
class DatasetPanel;
class ExperimentController;
class ExperimentPanel;
class RunBrowser;
class TeachingView;

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
    QString experimentPath() const { return m_path; }
    /// True when the panels changed since the last open, save or new.
    bool isModified() const { return isWindowModified(); }

    /// File → Open database: closes the current store and opens @p path (created if missing).
    /// Refused while an experiment runs. On failure the current store stays open.
    bool openDatabase(const QString& path, QString* error);
    RunStore* store() const { return m_store.get(); }
    /// File → Save results to another database: writes the last experiment's results (kept in
    /// memory when the open database failed during it) into @p path as a new experiment (see
    /// tb::saveResult). Enabled after an experiment the database could not record completely.
    /// False with a message naming the file and the cause when it cannot.
    bool saveResultsTo(const QString& path, QString* error);
    QAction* saveResultsAction() const { return m_saveResultsAction; }

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
    bool isPresentationMode() const { return m_presenting; }
    /// View → Reset layout: every dock back in its place and shown, the window sized from the
    /// screen again (unless maximised).
    void resetLayout();
    /// The first-start window size for a screen of @p available size: 90 % of it, at most
    /// 1600×1000, at least 640×480 where the screen has it.
    static QSize initialSize(const QSize& available);
    /// @p window moved and shrunk as little as possible to lie inside @p available.
    static QRect fitToScreen(const QRect& window, const QRect& available);

    /// Whether destructive actions ask first (default true).
    void setConfirmations(bool on) { m_confirm = on; }

    ExperimentController* controller() const { return m_controller; }
    DatasetPanel* datasetPanel() const { return m_dataset; }
    AlgorithmPanel* algorithmPanel() const { return m_algorithms; }
    ExperimentPanel* experimentPanel() const { return m_experiment; }
    ChartTabs* charts() const { return m_charts; }
    /// The "Comparison" tab: a sweep's charts and the comparison tables.
    ComparisonTab* comparison() const { return m_comparison; }
    RunBrowser* runBrowser() const { return m_browser; }
    TeachingView* teachingView() const { return m_teaching; }
    QAction* runAction() const { return m_runAction; }
    QAction* stopAction() const { return m_stopAction; }
    /// The folder the Open and Save dialogs start in: the user's last folder, never the bundled
    /// examples' (opening an example does not change it).
    QString fileDialogFolder() const { return m_lastDir; }
    /// The log's text, for tests.
    QString logText() const;
    /// The status line's text and the experiment's progress bar, for tests.
    QString statusText() const;
    QProgressBar* progressBar() const { return m_progress; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void buildUi();
    void buildMenus();
    void restoreSettings();
    void applyDockSizes();
    QRect availableScreen() const;
    void saveSettings() const;
    void restoreSession();
    void markModified();
    void updateTitle();
    void updateActions();
    void updateTaskAndKind();
    void updateSweepParameters();
    void appendLog(const QString& line);
    void showProblems(const QString& title, const QString& text);

    void newExperiment();
    void openExperimentDialog();
    bool saveExperimentDialog(bool saveAs);
    void openDatabaseDialog();
    void saveResultsDialog();
    void exportChartDialog();
    void exportRunsDialog();
    void showPlugins();
    void showAbout();
    /// Asks to save unsaved changes; false when the user cancels.
    bool maybeSave();
    bool startSpec(const ExperimentSpec& spec, const QString& caption, QString* error);

    void onStarted();
    void onUpdated();
    void onFinished(const QString& summary);
    /// Runs deleted in the browser leave the charts (issue 18: they stayed drawn).
    void onRunsDeleted(const QList<qint64>& runIds);

    const PluginRegistry& m_registry;
    std::unique_ptr<RunStore> m_store;
    QAction* m_saveResultsAction = nullptr;
    ExperimentController* m_controller = nullptr;

    DatasetPanel* m_dataset = nullptr;
    AlgorithmPanel* m_algorithms = nullptr;
    ExperimentPanel* m_experiment = nullptr;
    ChartTabs* m_charts = nullptr;
    ComparisonTab* m_comparison = nullptr;
    QScrollArea* m_comparisonPage = nullptr; ///< the Comparison tab: m_comparison in a scroll area
    bool m_comparisonDirty = false; ///< live data newer than the Comparison tab
    RunBrowser* m_browser = nullptr;
    TeachingView* m_teaching = nullptr;
    QTabWidget* m_centre = nullptr;
    QDockWidget* m_experimentDock = nullptr;
    QDockWidget* m_datasetDock = nullptr;
    QDockWidget* m_algorithmsDock = nullptr;
    QDockWidget* m_runsDock = nullptr;
    QDockWidget* m_logDock = nullptr;
    QByteArray m_defaultState; ///< the dock layout as built, for View → Reset layout
    bool m_sizeDocksOnShow = false; ///< no saved layout: size the docks from the window when shown
    QPlainTextEdit* m_log = nullptr;
    QLabel* m_status = nullptr;
    QProgressBar* m_runProgress = nullptr;
    QProgressBar* m_progress = nullptr;

    QAction* m_runAction = nullptr;
    QAction* m_stopAction = nullptr;
    QAction* m_openDbAction = nullptr;
    QAction* m_presentAction = nullptr;
    bool m_presenting = false;
    QByteArray m_normalState;    ///< the layout before presentation mode
    QByteArray m_normalGeometry;

    QTimer m_sessionTimer;     ///< saves the session shortly after a change
    QString m_path;            ///< experiment file, empty when unsaved
    QString m_lastDir;         ///< folder of the last file dialog
    bool m_confirm = true;
    bool m_loading = false;    ///< setExperiment() is filling the panels
    QList<qint64> m_shownRuns; ///< stored runs the charts show (overlay or the last experiment)
    std::optional<ExperimentSpec> m_chartSpec; ///< the experiment the charts show, if one (for exports)
};

} // namespace tb::gui
