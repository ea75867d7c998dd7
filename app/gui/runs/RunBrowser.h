#pragma once
/// @file RunBrowser.h
/// The run browser: past experiments and runs of a RunStore, with overlay, re-run, delete and
/// CSV export.

#include "RunFilterModel.h"
#include "RunTreeModel.h"

#include <QList>
#include <QWidget>

#include <memory>

class QAbstractItemModel;
class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QModelIndex;
class QPoint;
class QResizeEvent;
class QSplitter;
class QTextBrowser;
class QTreeView;

#include <store/RunTypes.h>

namespace tb {
class RunStore;
}

namespace tb::gui {

template <typename Result>
class LatestJob;

/// Experiments (top level) and their runs (children) from a RunStore in a QTreeView with
/// sortable columns: algorithm label, status (coloured), final train and test metric (accuracy %
/// or RMSE, as the CLI shows them), duration, seed, threads, started, peak memory. A details pane shows the
/// current row's parameters (JSON), recorded facts, error message, plugin and app versions; a
/// filter line edit and a status box narrow the tree.
///
/// Buttons and the context menu offer Show on charts, Compare, Re-run run, Re-run experiment… (asks first,
/// like Delete…), Export CSV…, Refresh and Delete…; the buttons keep their texts and places
/// whatever is selected (only their enabled state follows it). The Delete key deletes the
/// selection; double-clicking a row asks to show it on the charts. "Tags & note…" keeps the
/// user's tags and a note with a run in the database; with two runs selected the details pane
/// shows what differs between them. The filter takes words and parameter conditions
/// (RunFilterModel: `lr<0.01`, `tag=baseline`).
///
/// The store is read once per refresh() (one query for experiments, one for the run listing, one
/// for each noise sweep's points), off the GUI thread: the tree is replaced when the read is done,
/// keeping the selection, the expanded experiments, the current row and the scroll position; a
/// filter is matched off the GUI thread too (RunFilterModel::match()), and the summary line says
/// "N of M runs match". isBusy() is true while either is under way. A run's parameters and facts
/// are read when it becomes current (the details pane); checkpoints only by exportSelectedCsv(). The owner calls refresh() when its own runs
/// have changed; writes of other processes (a `trainbench-cli run`, an MPI job's rank 0 writing
/// the same file) are followed by themselves: every followIntervalMs() the browser looks at the
/// database file and its write-ahead log, and re-reads the store when either changed. GUI thread only.
class RunBrowser : public QWidget {
    Q_OBJECT
    Q_PROPERTY(bool busy READ isBusy NOTIFY busyChanged)
public:
    /// An empty browser with no store; deletes ask for confirmation.
    explicit RunBrowser(QWidget* parent = nullptr);
    ~RunBrowser() override;

    /// Shows the contents of @p store (not owned; it must outlive the browser or be replaced
    /// first). nullptr clears the browser. Calls refresh().
    void setStore(RunStore* store);
    /// The store shown, or nullptr.
    RunStore* store() const { return m_store; }

    /// Re-reads the store (after flushing its queued writes for at most 1 s) off the GUI thread and
    /// returns at once; the tree is replaced when the read is done, keeping the selection, the
    /// expanded experiments, the current row and the scroll position. Emits selectionChanged() then
    /// if the selected ids changed (e.g. selected runs were deleted elsewhere).
    void refresh();
    /// True while a read of the store or a filter's matching is under way (the tree shows the
    /// previous state meanwhile); busyChanged() tells when it turns.
    bool isBusy() const;
    /// Runs the event loop until isBusy() is false or @p timeoutMs passed; false on timeout.
    bool waitUntilIdle(int timeoutMs = 30000);

    /// How often the database files are looked at for other processes' writes (default 2000 ms;
    /// 0 stops following).
    void setFollowIntervalMs(int ms);
    int followIntervalMs() const;

    /// Runs selected directly or through their experiment (every run of a selected experiment,
    /// including runs the filter hides), ascending ids without duplicates.
    QList<qint64> selectedRunIds() const;
    /// Experiments selected directly (not through one of their runs), ascending ids. The group
    /// of runs without an experiment has no id and is never listed.
    QList<qint64> selectedExperimentIds() const;
    /// Selects exactly the given experiments and runs, expanding the experiments of the selected
    /// runs, and makes the first of them current. An id the list does not hold yet (an experiment
    /// written just now, while a reload is on its way) is selected when the next reload lists it,
    /// unless the user selects something else first; ids that no reload lists are ignored.
    void setSelection(const QList<qint64>& experimentIds, const QList<qint64>& runIds);

    /// Deletes the selected experiments (with all their runs) and the selected runs outside
    /// them, after a confirmation dialog naming what will be deleted (skipped when
    /// setConfirmDeletes(false)). Running runs, and experiments that still have one, are never
    /// deleted (the runner is still writing to them) and are named in the dialog. Returns the
    /// number of experiments plus runs deleted (a run deleted with its experiment counts with
    /// it); 0 if cancelled or nothing was selected. Failures are shown in the status line.
    int deleteSelected();
    /// Whether deleteSelected() and Re-run experiment… ask first; default true. Tests only should
    /// turn it off.
    void setConfirmDeletes(bool on);
    bool confirmDeletes() const { return m_confirmDeletes; }

    /// Writes the selected runs to @p path in the one CSV format of the workbench and the CLI
    /// (ResultCsv: every checkpoint of a learning-curve run, every σ of a noise-sweep run); the
    /// export of a whole experiment equals `trainbench-cli export ID --csv`. The file is replaced
    /// atomically. Returns false with a message naming the path or run in @p error (may be null)
    /// if no store is open, no run is selected, a read fails or the file cannot be written.
    bool exportSelectedCsv(const QString& path, QString* error);

    /// Stores @p tags and @p note with run @p runId (RunStore::setRunNotes) and refreshes; the
    /// "Tags & note…" button asks for them. False with a message naming the run on failure.
    bool setNotes(qint64 runId, const QStringList& tags, const QString& note, QString* error);
    /// The details pane's text when two runs are selected: every setting and parameter that
    /// differs between @p a and @p b, and how many are the same.
    static QString diffHtml(const RunRecord& a, const RunRecord& b);
    /// The details pane (HTML), for tests.
    QString detailsHtml() const;

    /// The unfiltered, unsorted tree (a RunTreeModel), for tests and for the owner's lookups.
    QAbstractItemModel* model() const;

Q_SIGNALS:
    /// The selection changed; selectedRunIds() and selectedExperimentIds() give the new one.
    void selectionChanged();
    /// The user asked to overlay these runs (selectedRunIds()) on the charts.
    void overlayRequested(const QList<qint64>& runIds);
    /// The user asked to train run @p runId again with identical settings.
    void rerunRequested(qint64 runId);
    /// The user asked to run experiment @p experimentId again with identical settings.
    void rerunExperimentRequested(qint64 experimentId);
    /// deleteSelected() deleted these runs (with their experiments); emitted after the refresh.
    void runsDeleted(const QList<qint64>& runIds);
    /// The user asked to compare these runs (selectedRunIds()) over seeds.
    void compareRequested(const QList<qint64>& runIds);
    /// isBusy() turned to @p busy.
    void busyChanged(bool busy);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void buildUi();
    void updateActions();
    void updateSummary();
    void updateDetails();
    void onSelectionChanged();
    void showContextMenu(const QPoint& pos);
    void requestOverlay();
    void requestRerun();
    void requestRerunExperiment();
    void exportWithDialog();
    void editNotesWithDialog();
    void applyFilter();
    /// Re-reads the store when its files changed since the last read (another process wrote).
    void followChanges();
    /// Size and modification time of the database file and its -wal: what a commit changes.
    QString fileSignature() const;
    /// What a read of the store brings back: the snapshot, matched already if a filter was set.
    struct Loaded {
        std::shared_ptr<const RunTreeModel::Snapshot> snapshot;
        std::optional<RunFilterModel::Matches> matches;
    };
    /// Starts a read of the store off the GUI thread; showLoaded() puts it in the tree.
    void reload(bool flushFirst);
    /// Selects exactly those of @p experimentIds and @p runIds the list holds (setSelection()
    /// without its waiting), the first current and scrolled to.
    void selectNow(const QList<qint64>& experimentIds, const QList<qint64>& runIds);
    void showLoaded(Loaded loaded);
    /// Matches the wanted criteria on the snapshot shown, off the GUI thread.
    void startMatching();
    void showMatches(RunFilterModel::Matches matches);
    /// Emits busyChanged() when isBusy() differs from the last time.
    void noteBusy();
    /// Widths of the columns other than the name, from the longest values they usually hold.
    void sizeColumns();
    /// The single selected row, or an invalid index if zero or several rows are selected.
    QModelIndex singleSelectedSource() const;
    QModelIndex toSource(const QModelIndex& proxyIndex) const;
    QModelIndex toProxy(const QModelIndex& sourceIndex) const;

    RunStore* m_store = nullptr;
    RunTreeModel* m_model = nullptr;
    RunFilterModel* m_proxy = nullptr;
    QTreeView* m_view = nullptr;
    QSplitter* m_splitter = nullptr;
    QTextBrowser* m_details = nullptr;
    QLineEdit* m_filterEdit = nullptr;
    QComboBox* m_statusBox = nullptr;
    QLabel* m_summary = nullptr;
    QAction* m_showAction = nullptr;
    QAction* m_compareAction = nullptr;
    QAction* m_rerunAction = nullptr;
    QAction* m_rerunExperimentAction = nullptr;
    QAction* m_deleteAction = nullptr;
    QAction* m_exportAction = nullptr;
    QAction* m_refreshAction = nullptr;
    QAction* m_notesAction = nullptr;
    bool m_confirmDeletes = true;
    bool m_restoring = false;      ///< refresh() is rebuilding: selection signals are its own
    bool m_selecting = false;      ///< setSelection() is selecting: not the user's change
    /// setSelection()'s ids that the list did not hold yet: selected by the reload that lists them.
    QList<qint64> m_pendingExperiments, m_pendingRuns;
    bool m_columnsSized = false;   ///< columns fitted to the first non-empty contents
    QString m_readError;           ///< the last refresh()'s read failure, empty if none
    QString m_message;             ///< outcome of the last delete worth telling, empty if none
    QList<qint64> m_lastRunIds;    ///< selection last announced by selectionChanged()
    QList<qint64> m_lastExperimentIds;
    QString m_lastDir;             ///< folder of the last CSV export
    QTimer* m_follow = nullptr;    ///< looks for other processes' writes
    QString m_signature;           ///< fileSignature() at the last read
    RunFilterModel::Criteria m_wanted; ///< the filter the user set (the proxy may still show the previous one)
    std::unique_ptr<LatestJob<Loaded>> m_loads;
    std::unique_ptr<LatestJob<RunFilterModel::Matches>> m_matching;
    bool m_busy = false;           ///< isBusy() when busyChanged() was last emitted
};

} // namespace tb::gui
