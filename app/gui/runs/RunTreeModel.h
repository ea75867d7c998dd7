#pragma once
/// @file RunTreeModel.h
/// Experiments and their runs from a RunStore, as a two-level item model for the run browser.

#include <store/RunTypes.h>

#include <QAbstractItemModel>
#include <QColor>
#include <QHash>
#include <QList>
#include <QVector>

#include <memory>
#include <optional>

namespace tb {
class RunStore;
}

namespace tb::gui {

/// Two-level tree: experiments at the top (store order, oldest first), their runs as children
/// (oldest first). Runs whose experiment is missing from the store (created with experiment −1)
/// are grouped under one synthetic top-level row whose experiment id is −1.
///
/// What the model shows is a Snapshot: built by read() on any thread — one query for the
/// experiments and one for the run listing (RunStore::runListing(): no parameters, only the
/// facts a row shows), display values, sort keys and search text computed once — and swapped in
/// by setSnapshot() on the GUI thread, so a store of 100,000 runs is read without blocking the
/// window. A run's whole record (parameters, every fact) is read from the store when it is asked
/// for: runAt(), DetailsRole. Checkpoints are never read. The model itself is GUI thread only,
/// like every item model; snapshots are immutable and may be shared between threads.
class RunTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    /// Columns, left to right.
    enum Column {
        NameColumn,     ///< experiment name / run's algorithm label
        StatusColumn,   ///< run status, or how many of an experiment's runs finished
        TrainColumn,    ///< final train accuracy (%) or RMSE (noise sweep: mean over σ), else "n/m cells"
        TestColumn,     ///< final test accuracy (%) or RMSE
        DurationColumn, ///< wall-clock seconds from start to end
        SeedColumn,     ///< run seed (experiment: base seed of its spec)
        ThreadsColumn,  ///< thread cap
        StartedColumn,  ///< run start / experiment creation, local time
        MemoryColumn,   ///< run's measured peak working memory ("peak_memory_bytes"); empty for experiments
        ColumnCount
    };
    /// Extra data roles, valid on every column of a row.
    enum Role {
        RunIdRole = Qt::UserRole + 1, ///< qint64 run id; −1 on experiment rows
        ExperimentIdRole,             ///< qint64 experiment id (of the run's experiment on run rows)
        IsRunRole,                    ///< bool: the row is a run
        StatusRole,                   ///< int(RunStatus) on run rows; invalid on experiment rows
        SortRole,                     ///< numeric / date value the proxy sorts by; invalid if none
        SearchTextRole,               ///< lower-case text the filter matches (name, ids, dataset, error, tags, note …)
        DetailsRole,                  ///< HTML description for the details pane
        TagsRole                      ///< QStringList: a run's tags
    };

    /// A run with the values its row shows, computed once.
    struct RunRow {
        RunRecord record;      ///< as listed (RunStore::runListing()) or whole (setRecords())
        enum class Metric { None, Accuracy, Rmse, Cells } metric = Metric::None;
        double train = NaN;    ///< fraction for accuracies
        double test = NaN;
        double duration = NaN; ///< seconds, NaN while running
        double memory = NaN;   ///< measured peak working memory, bytes
        QString name;          ///< label (numbers rounded to 4 digits), with the repeat when the experiment has several
        int summaryPoints = 0; ///< a kind of summary points (a noise sweep): the points averaged into train / test
        QString summaryAxis;   ///< their axis (ExperimentKind::summaryAxis(): "noise σ")
        double cellsDone = NaN;    ///< noise sweep: cells finished of …
        double cellsPlanned = NaN; ///< … the cells planned (its run row stands for them all)
    };
    /// An experiment with its runs and a summary.
    struct Group {
        ExperimentRecord record;
        QVector<RunRow> runs;
        int counts[6] = {0, 0, 0, 0, 0, 0}; ///< runs per RunStatus
        double duration = NaN;             ///< first start to last end, NaN while a run is open
        QString statusText;  ///< count per status, e.g. "3 finished, 1 failed"
        QString shortStatus; ///< e.g. "3/4 finished, 1 running", for the narrow status column
        QString search;      ///< lower-case text the filter's words match (SearchTextRole)
        RunStatus worst = RunStatus::Finished; ///< status whose colour the summary takes
        bool partial = false; ///< a stopped noise sweep with some cells done: its results are partial
    };
    /// Everything the model shows at one moment. Immutable once built; shared between threads.
    struct Snapshot {
        QVector<Group> groups;
        QHash<qint64, int> groupPos;           ///< experiment id → group row
        QHash<qint64, QPair<int, int>> runPos; ///< run id → (group row, run row)
        bool complete = false; ///< records are whole (setRecords()); else listed: whole ones come from the store
        QString error;         ///< a read that failed (what could be read is here)
        int runCount() const { return int(runPos.size()); }
    };

    /// An empty model.
    explicit RunTreeModel(QObject* parent = nullptr);

    /// Reads what @p store holds now (committed data only) into a snapshot; any thread, the store
    /// must stay open until it returns. A read that failed sets the snapshot's error and keeps
    /// what could be read. @p store null gives an empty snapshot.
    static std::shared_ptr<const Snapshot> read(const RunStore* store);
    /// A snapshot of @p experiments and @p runs (whole records, grouped by experiment id);
    /// @p sweeps (by experiment id) give noise-sweep runs their RMSE: the mean over the σ grid of
    /// the train and test RMSE means (without them such a run shows its finished cells). Any thread.
    static std::shared_ptr<const Snapshot> build(const QList<ExperimentRecord>& experiments, const QList<RunRecord>& runs,
                                                 const QHash<qint64, QList<SummaryPoint>>& sweeps = {},
                                                 bool complete = true);
    /// Shows @p snapshot (null: nothing); whole records of a listed snapshot are read from @p store
    /// (not owned; it must outlive the snapshot or be replaced first).
    void setSnapshot(std::shared_ptr<const Snapshot> snapshot, const RunStore* store);
    /// The snapshot shown (never null).
    std::shared_ptr<const Snapshot> snapshot() const { return m_snap; }

    /// read() and setSnapshot() in one, on the calling (GUI) thread. Returns false and sets
    /// @p error (may be null) if a read failed; the model then shows what could be read.
    bool reload(const RunStore* store, QString* error = nullptr);
    /// setSnapshot(build(...)) of whole records (no store).
    void setRecords(const QList<ExperimentRecord>& experiments, const QList<RunRecord>& runs,
                    const QHash<qint64, QList<SummaryPoint>>& sweeps = {});
    /// Removes every row.
    void clear();

    /// Number of experiment rows (including the synthetic group of runs without an experiment).
    int experimentCount() const { return int(m_snap->groups.size()); }
    /// Number of run rows.
    int runCount() const { return m_snap->runCount(); }

    /// The whole record of the run shown at @p index (any column): from the snapshot when it holds
    /// whole records, else read from the store (one query). nullopt on experiment rows, invalid
    /// indexes and a failed read.
    std::optional<RunRecord> runAt(const QModelIndex& index) const;
    /// The run at @p index as listed: everything but its parameters and the facts a row does not
    /// show (whole with setRecords()). Null on experiment rows and invalid indexes; valid until the
    /// next setSnapshot().
    const RunRecord* listedRunAt(const QModelIndex& index) const;
    /// The experiment of the row at @p index: the experiment itself, or the run's experiment.
    /// Null for invalid indexes. The pointer is valid until the next setSnapshot().
    const ExperimentRecord* experimentAt(const QModelIndex& index) const;
    /// Runs of experiment @p experimentId (−1: the runs without an experiment) in store order.
    QList<qint64> runIdsOfExperiment(qint64 experimentId) const;
    /// Index of run @p runId in @p column, invalid if it is not in the model.
    QModelIndex indexOfRun(qint64 runId, int column = NameColumn) const;
    /// Index of experiment @p experimentId (−1: the group of runs without one), or invalid.
    QModelIndex indexOfExperiment(qint64 experimentId, int column = NameColumn) const;

    /// The colour a status is drawn in (readable on a white or a dark background).
    static QColor statusColor(RunStatus status);
    /// Final metric text the way the CLI shows it: "93.75%" for accuracies, 4 significant
    /// digits for RMSE, "-" for NaN / Inf.
    static QString formatAccuracy(double fraction);
    /// See formatAccuracy().
    static QString formatRmse(double value);
    /// "0.8 s", "12.3 s", "4 min 05 s", "2 h 03 min"; "-" for negative or NaN.
    static QString formatDuration(double seconds);
    /// The lower-case text a filter's words match in a run (SearchTextRole): name, label,
    /// algorithm, plugin, status, data set, seed, error, "#id", tags and note. Made when asked
    /// (a filter's match), not kept for each of 100,000 rows. Any thread.
    static QString searchText(const RunRow& r);
    /// A label for a narrow column: every decimal number of more than 4 significant digits
    /// rounded to 4 ("Adam lr=0.00316227766017" → "Adam lr=0.003162"); the rest unchanged.
    static QString roundedLabel(const QString& label);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    QVariant runData(const Group& g, const RunRow& r, int column, int role) const;
    QVariant experimentData(const Group& g, int column, int role) const;
    /// The facts that are lists of per-layer records (an object with "layer" each), as HTML tables.
    static QString perLayerTables(const QJsonObject& facts);
    static QString runDetails(const Group& g, const RunRow& r, const RunRecord& whole);
    static QString experimentDetails(const Group& g);
    static void summarise(Group& g);

    std::shared_ptr<const Snapshot> m_snap;
    const RunStore* m_store = nullptr; ///< where a listed snapshot's whole records are read
};

} // namespace tb::gui
