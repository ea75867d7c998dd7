#pragma once
/// @file DatasetPanel.h
/// The dataset of an experiment: source, its fields, split, standardisation, and a live preview.

#include <trainbench/DatasetView.h>

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QWidget>
#include <functional>
#include <memory>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QTimer;

namespace tb::gui {

class DatasetPreview;

/// Edits the experiment file's "dataset" object (keys of tb::data::DataSource) with fields that
/// appear per source: BPLS toy (function, σ), 2-D teaching sets moons/circles/spirals/xor and
/// Friedman #1 (samples, noise, features), Fashion-MNIST (folder, found automatically when
/// empty; train/test limits), IDX files, CSV (file, target column(s), task) and LIBSVM (file,
/// task, features); a test set as a random fraction or a separate file; split seed (empty: the
/// experiment's seed); standardise.
///
/// Every edit restarts a 300 ms timer; when it fires the spec is validated and loaded on a
/// QThreadPool::globalInstance() thread (the application waits for it on exit), and the
/// DatasetPreview shows the shape, classes and sample images or a scatter. Results of
/// superseded loads are dropped; errors (DataError text naming the key, or the file and line)
/// appear in a red label, never as a crash. The panel may be destroyed while
/// a load runs (the task finishes alone and its result is discarded). GUI thread only.
class DatasetPanel : public QWidget {
    Q_OBJECT
public:
    explicit DatasetPanel(QWidget* parent = nullptr);
    ~DatasetPanel() override;

    /// The "dataset" object: "source", every field shown for it (limits of 0 and an empty
    /// seed or Fashion-MNIST folder are left out), and any key of the last setSpec() the panel
    /// could not show (unknown keys, wrong types), unchanged, so validation reports them.
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

    /// Folder relative paths resolve against (the experiment file's); default: the current
    /// directory. Schedules a preview.
    void setBaseDir(const QString& dir);
    QString baseDir() const { return m_baseDir; }

    /// The preview widget (for tests and the teaching view's screenshots).
    DatasetPreview* preview() const { return m_preview; }
    /// The editor of spec key @p key shown for the current source, or nullptr
    /// ("source" gives the source combo box).
    QWidget* editor(const QString& key) const;
    /// Starts a preview load now instead of after the debounce delay.
    void refreshPreview();
    /// True while a load runs (or waits) on the thread pool.
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    /// Any field changed (user edit or setSpec()).
    void changed();
    /// A preview load attempt ended (success or error; see lastError()).
    void previewReady();

private:
    struct Field {
        QString key;
        QWidget* row = nullptr;                           ///< form field widget (for visibility)
        QWidget* editor = nullptr;
        std::function<bool()> active;                     ///< shown and written for the current source
        std::function<QJsonValue()> read;                 ///< Undefined: leave the key out
        std::function<bool(const QJsonValue&)> write;     ///< false: the editor cannot hold it
        std::function<void()> reset;                      ///< to the source's default
    };
    struct LoadShared;
    struct LoadResult;

    void addField(Field f, const QString& label, const QString& tip);
    QString source() const;
    void updateVisibility();
    void onUserEdit(const QString& key);
    void onSourceChanged();
    void resetFields();
    void startLoad();
    void finishLoad(quint64 generation, const LoadResult& result);
    void setError(const QString& message);

    QFormLayout* m_form = nullptr;
    QComboBox* m_source = nullptr;
    QComboBox* m_testMode = nullptr;
    QWidget* m_testModeRow = nullptr;
    QList<Field> m_fields;
    QJsonObject m_overrides;      ///< keys from setSpec() the editors cannot show
    QLabel* m_error = nullptr;
    QLabel* m_status = nullptr;
    DatasetPreview* m_preview = nullptr;
    QTimer* m_debounce = nullptr;
    QString m_baseDir;
    QString m_lastError;
    QString m_lastTeachingFamily; ///< "teaching" or "friedman1": their defaults differ
    quint64 m_generation = 0;
    bool m_loading = false;
    bool m_settingSpec = false;
    std::shared_ptr<LoadShared> m_shared;
};

} // namespace tb::gui
