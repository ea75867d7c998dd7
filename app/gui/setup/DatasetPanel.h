#pragma once
/// @file DatasetPanel.h
/// The dataset of an experiment: a form per data source built from its schema, and a preview.

#include "DatasetField.h"
#include "PreviewLoader.h"

#include <trainbench/DatasetView.h>
#include <trainbench/ParamSpec.h>

#include <QJsonObject>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTableWidget;
class QTimer;

namespace tb::data {
struct DataSourceEntry;
} // namespace tb::data

namespace tb::gui {

class CsvRowsTable;
class DatasetFetchRow;
class DatasetPreview;

/// Edits the experiment file's "dataset" object. The form of each source is built from
/// the source's schema (tb::data::DataSourceRegistry: keys, labels, editors by type, defaults,
/// ranges, help as tool tips, and the conditions that show or hide a key): nothing about a source
/// is written twice. Sources with a separate test file or a random test
/// fraction get a "Test set" chooser. Keys are written when the opened spec had them, when the
/// user edited them, when they are required, or when they differ from their declared default, so
/// an opened file comes back unchanged and a new one holds only what matters.
///
/// Every edit restarts a 300 ms timer; when it fires the spec is validated and loaded off the GUI
/// thread (PreviewLoader), and the DatasetPreview shows the shape, classes and sample images or a
/// scatter. For a CSV file the first rows of the file, as the delimiter, skip_rows and header
/// options read them, appear in a table above (CsvRowsTable: the header and target columns
/// marked) — also when the file does not load yet, so the options can be set by looking. Results
/// of superseded loads are dropped; errors (DataError text naming the key, or the file and line)
/// appear in a red label, warnings (a set with one class) in an orange one, never as a crash. The
/// panel may be destroyed while a load runs (the task finishes alone and its result is discarded).
///
/// For a set of the data-set catalogue (DatasetCatalog) a row under the source (DatasetFetchRow)
/// says whether it is in the cache and offers **Fetch** (sets with a published checksum; the
/// others are fetched from the command line with a checksum the user gives). DatasetFetcher runs
/// on a thread of its own, a progress bar shows the transfer and the button becomes **Cancel**
/// (the part received is kept and the next fetch resumes it). A failed fetch stays in that row, in
/// red, until the next fetch of the set (fetchError(): without network it names each address tried
/// and the exact path where a file fetched by hand goes — Fetch then verifies that file instead of
/// downloading); the preview's own load errors keep the red label below. A fetch goes on when
/// another source is chosen (the row stays to show and cancel it); a completed one reloads the
/// preview when its set is shown. One fetch at a time. The panel may be destroyed during a fetch
/// (it is cancelled and waited for, within about 0.2 s).
///
/// A suite (an experiment file's "datasets" or "suite", Suite.h) runs on several sets; the panel
/// edits one. setSuite() puts a note on top naming the sets and saying the form shows the first,
/// read-only: the sets are the file's (the experiment file writes them back as they were). GUI
/// thread only.
class DatasetPanel : public QWidget {
    Q_OBJECT
public:
    explicit DatasetPanel(QWidget* parent = nullptr);
    ~DatasetPanel() override;

    /// The "dataset" object: "source", the fields written by the rule above, and any key of the
    /// last setSpec() the form could not show (unknown keys, wrong types), unchanged, so that
    /// validation reports them.
    QJsonObject spec() const;
    /// Shows @p spec (from an opened experiment file). Keys it has not are reset to their
    /// defaults. Emits changed() once and schedules a preview.
    void setSpec(const QJsonObject& spec);

    /// The task of the current source (for csv/libsvm the chosen task).
    Task task() const;
    /// True when the source has a noise level a noise sweep may vary (DataSource::hasNoiseLevel).
    bool hasNoiseLevel() const;
    /// Message of the last preview load, empty when it succeeded (or none ran yet).
    QString lastError() const { return m_lastError; }
    /// What Run must refuse for: number fields whose typed text is no value in range, named by
    /// their label and key ("Samples (dataset.samples): \"-10\" is not a whole number from 1 to
    /// 100000"), and the load error of a source read from the user's file (once loaded).
    QStringList problems() const;
    /// @p message with a leading "dataset.KEY: " written "Label (dataset.KEY): " when the shown
    /// source has a field of that key.
    QString withLabels(const QString& message) const;
    /// Warnings of the last preview load (DataSource::warnings()).
    QStringList warnings() const { return m_warnings; }

    /// The experiment runs on the suite of sets @p names (in order; the form shows the first,
    /// which setSpec() gives), written in @p where (the suite file as the experiment names it, or
    /// empty for the experiment's own "datasets"); @p problem, when not empty, says why the sets
    /// could not be read. Empty @p names and @p problem: one data set, the form editable again.
    void setSuite(const QStringList& names, const QString& where, const QString& problem = QString());
    /// Whether setSuite() named a suite.
    bool isSuite() const { return m_suite; }
    /// The note on top saying what the suite is (hidden for one data set).
    QLabel* suiteNote() const { return m_suiteNote; }

    /// Folder relative paths resolve against (the experiment file's); default: the current
    /// directory. Schedules a preview.
    void setBaseDir(const QString& dir);
    QString baseDir() const { return m_baseDir; }

    /// The preview widget (for tests and the teaching view's screenshots).
    DatasetPreview* preview() const { return m_preview; }
    /// The table of the CSV file's first rows (hidden for other sources).
    QTableWidget* fileRows() const { return m_rows; }
    /// The editor of spec key @p key shown for the current source, or nullptr
    /// ("source" gives the source combo box, "test_mode" the test-set chooser).
    QWidget* editor(const QString& key) const;
    /// Starts a preview load now instead of after the debounce delay.
    void refreshPreview();
    /// True while a load runs (or waits) on the thread pool.
    bool isLoading() const;
    /// The catalogue's Fetch / Cancel button (hidden for other sources and for verified sets).
    QPushButton* fetchButton() const;
    /// The text beside it: the set's state in the cache, the running fetch, or how the last one
    /// ended.
    QString fetchStatus() const;
    /// Why the last fetch of the current source failed (empty: none failed, or it was cancelled,
    /// or a later one succeeded).
    QString fetchError() const;
    /// True while a fetch runs.
    bool isFetching() const;

Q_SIGNALS:
    /// Any field changed (user edit or setSpec()).
    void changed();
    /// A preview load attempt ended (success or error; see lastError()).
    void previewReady();
    /// A fetch of a catalogue set ended; @p ok false: cancelled or failed (see fetchError()).
    void fetchFinished(bool ok);

private:
    using Field = DatasetField;
    struct Page {
        const data::DataSourceEntry* entry = nullptr;
        QWidget* widget = nullptr;
        QFormLayout* form = nullptr;
        QComboBox* testMode = nullptr; ///< fraction or separate file, when the source has both
        QList<Field> fields;
    };

    void buildPage(const data::DataSourceEntry& entry);
    const Page& page() const;
    bool isActive(const Page& page, const Field& f) const;
    QString source() const;
    void updateVisibility();
    void onUserEdit(const QString& key);
    void onSourceChanged();
    void resetFields(const Page& page);
    void startLoad();
    void finishLoad(const PreviewLoader::Result& result);
    void setError(const QString& message);
    /// The field a load error is shown beside: the active "file", else the first active path.
    const Field* fileField(const Page& page) const;
    void refreshFieldMessages();

    QComboBox* m_source = nullptr;
    QStackedWidget* m_stack = nullptr;
    QList<Page> m_pages;
    QJsonObject m_overrides; ///< keys from setSpec() the editors cannot show
    QSet<QString> m_present; ///< keys the last setSpec() had: written back even at their default
    QSet<QString> m_edited;  ///< keys the user edited since
    QLabel* m_suiteNote = nullptr;
    bool m_suite = false;
    QLabel* m_error = nullptr;
    QLabel* m_warning = nullptr;
    QLabel* m_status = nullptr;
    CsvRowsTable* m_rows = nullptr;
    DatasetPreview* m_preview = nullptr;
    PreviewLoader* m_loader = nullptr;
    DatasetFetchRow* m_fetchRow = nullptr;
    QTimer* m_debounce = nullptr;
    QString m_baseDir;
    QString m_lastError;
    QStringList m_warnings;
    bool m_settingSpec = false;
};

} // namespace tb::gui
