#pragma once
/// @file AlgorithmPanel.h
/// Every algorithm of every loaded plugin, checkable, each with one or more configurations.

#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>
#include <trainbench/DatasetView.h>

#include <QHash>
#include <QList>
#include <QStringList>
#include <QVariantMap>
#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;
class QVBoxLayout;

namespace tb::gui {

class ParamForm;

/// Every algorithm of every loaded plugin, grouped under a header per plugin in registry
/// order. Each algorithm is a checkable row (name; description as tooltip) with an arrow that
/// expands its section: a legend-label edit, its ParamForm, "Reset to defaults", "Add another
/// configuration" and the paper citation. Sections are collapsed at first and the whole list
/// scrolls, so it fits a narrow dock.
///
/// Configurations: an algorithm may be run with several settings in one experiment (parameter
/// exploration; e.g. three BPLS variants in bpls-fashion-mnist.json). Configuration 0 is the
/// algorithm's own row; "Add another configuration" (or setSelection() with an id listed again)
/// adds rows 1, 2 … below it, each with its own check box, label, form and a remove button.
/// Two selected configurations of one algorithm must have different labels (problems() says so):
/// the charts and the run store tell them apart by label.
///
/// Order: selectedAlgorithms() lists the checked configurations in the order they were
/// checked, and setSelection() checks them in the experiment file's order, so a file opened
/// and saved again keeps its algorithm order (and its legend order).
///
/// setTask() greys out algorithms that do not handle the task; they keep their check marks
/// (so switching the task back restores the selection) but are left out of
/// selectedAlgorithms() and problems(). The registry must outlive the panel. GUI thread only.
class AlgorithmPanel : public QWidget {
    Q_OBJECT
public:
    explicit AlgorithmPanel(const PluginRegistry& registry, QWidget* parent = nullptr);
    ~AlgorithmPanel() override;

    /// Checked and enabled configurations in the order they were checked; label = the label
    /// edit or, when empty, the algorithm's name; params = ParamForm::values() (complete).
    QList<AlgorithmRun> selectedAlgorithms() const;
    /// The same configurations as an experiment file should list them: the label only when one
    /// was typed (empty otherwise) and the parameters of ParamForm::explicitValues().
    QList<AlgorithmRun> experimentAlgorithms() const;

    /// Checks the configurations of @p runs in their order, filling their forms (missing keys →
    /// defaults) and labels: the first entry of an algorithm fills its own row, each further one
    /// a new configuration. Every other row is unchecked and reset, extra configurations are
    /// removed. Unknown ids are reported by problems() until the next setSelection(). Emits
    /// changed() once.
    void setSelection(const QList<AlgorithmRun>& runs);

    /// Form problems of the selected configurations, each prefixed by the configuration's label
    /// ("Adam: lr: expected a number 1e-06 to 1, got 5"), labels shared by two configurations of one
    /// algorithm, then the problems of the last setSelection(). Empty when the selection can run
    /// (an empty selection is not a problem here).
    QStringList problems() const;

    /// Greys out the algorithms whose AlgorithmInfo does not support @p t.
    void setTask(Task t);

    /// A data set's suggestion: with @p why non-empty (e.g. "a small 2-D set"), a bar above the
    /// algorithms offers "Use suggested settings", which puts applySuggestion()'s values into
    /// the checked configurations' forms. Nothing changes until it is pressed: the plugins'
    /// defaults suit large sets (Adam: 10 epochs, lr 0.001, sigmoid stays at chance on two moons).
    void setSuggestion(const QString& why);
    /// Fills every checked configuration's form with settings that learn on a small 2-D set
    /// (its plugin's teaching preset, ParamSchema::teachingPreset(): for the in-tree plugins 300
    /// epochs, tanh, lr ≥ 0.01 …), its label kept. Returns
    /// how many forms were filled; emits changed() when any was.
    int applySuggestion();
    /// The bar of setSuggestion() (for tests).
    QWidget* suggestionBar() const { return m_suggestion; }
    Task task() const { return m_task; }

    /// Adds a configuration of @p algorithmId below its others, checked and expanded, with the
    /// label "<name> <n>" and default parameters. Returns its index (≥ 1), or −1 for an unknown id.
    int addConfiguration(const QString& algorithmId);
    /// Removes configuration @p index (≥ 1; the algorithm's own row 0 stays). False if there is none.
    bool removeConfiguration(const QString& algorithmId, int index);
    /// Configurations of @p algorithmId (1 + the added ones); 0 for an unknown id.
    int configurationCount(const QString& algorithmId) const;

    /// The form of configuration @p index of @p algorithmId, or nullptr.
    ParamForm* form(const QString& algorithmId, int index = 0) const;
    /// The label edit of configuration @p index, or nullptr.
    QLineEdit* labelEdit(const QString& algorithmId, int index = 0) const;
    /// Checks or unchecks a configuration (no-op for unknown ones).
    void setChecked(const QString& algorithmId, bool on, int index = 0);
    bool isChecked(const QString& algorithmId, int index = 0) const;
    /// False when setTask() greyed the algorithm out (or the id is unknown).
    bool isAvailable(const QString& algorithmId) const;
    /// Expands or collapses the section of configuration @p index.
    void setExpanded(const QString& algorithmId, bool on, int index = 0);
    /// Current form values of configuration 0 of @p algorithmId even if unchecked; empty for
    /// unknown ids.
    QVariantMap paramsFor(const QString& algorithmId) const;
    /// Every algorithm id in display order (once each).
    QStringList algorithmIds() const;

Q_SIGNALS:
    /// A check mark, a label, a parameter or the set of configurations changed.
    void changed();
    /// "Sweep this parameter…" on parameter @p key of @p algorithmId's form.
    void sweepRequested(const QString& algorithmId, const QString& key);

private:
    QWidget* m_suggestion = nullptr;
    QLabel* m_suggestionText = nullptr;

    struct Entry {
        AlgorithmInfo info;
        int index = 0;                  ///< configuration index within its algorithm
        QWidget* header = nullptr;
        QCheckBox* check = nullptr;
        QToolButton* expand = nullptr;
        QToolButton* remove = nullptr;  ///< configurations ≥ 1 only
        QWidget* body = nullptr;
        QLineEdit* label = nullptr;
        ParamForm* form = nullptr;
        /// The entry's keys that belong to the experiment's kind (AlgorithmRun::kindKeys, e.g. a
        /// tuned comparison's "search"), kept as the file gave them: no form edits them.
        QJsonObject kindKeys;
    };

    Entry* makeEntry(const AlgorithmInfo& info, int index);
    Entry* entry(const QString& id, int index = 0) const;
    QList<Entry*> entriesOf(const QString& id) const;
    QString runLabel(const Entry& e) const;
    void updateHeaderText(Entry& e);
    void onChecked(Entry* e, bool on);
    void destroyEntry(Entry* e);
    bool usable(const Entry& e) const;

    std::vector<std::unique_ptr<Entry>> m_entries; ///< display order
    QHash<QString, QVBoxLayout*> m_groups;         ///< per algorithm: the layout of its configurations
    QList<Entry*> m_order;                          ///< checked configurations in check order
    QStringList m_selectionProblems;
    Task m_task = Task::Classification;
};

} // namespace tb::gui
