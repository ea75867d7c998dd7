#pragma once
/// @file AlgorithmPanel.h
/// Every algorithm of every loaded plugin, checkable, each with its parameter form.

#include "ExperimentSpec.h"
#include "PluginRegistry.h"
#include <trainbench/DatasetView.h>

#include <QList>
#include <QStringList>
#include <QVariantMap>
#include <QWidget>

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
/// expands its section: a legend-label edit, its ParamForm, "Reset to defaults" and the paper
/// citation. Sections are collapsed at first and the whole list scrolls, so it fits a 380 px dock.
///
/// setTask() greys out algorithms that do not handle the task; they keep their check mark
/// (so switching the task back restores the selection) but are left out of
/// selectedAlgorithms() and problems(). The registry must outlive the panel. GUI thread only.
class AlgorithmPanel : public QWidget {
    Q_OBJECT
public:
    explicit AlgorithmPanel(const PluginRegistry& registry, QWidget* parent = nullptr);
    ~AlgorithmPanel() override;

    /// Checked and enabled algorithms in display order; label = the label edit or, when empty,
    /// the algorithm's name; params = ParamForm::values() (complete).
    QList<AlgorithmRun> selectedAlgorithms() const;

    /// Checks the algorithms of @p runs, fills their forms (missing keys → defaults) and labels,
    /// and unchecks and resets the rest. Unknown ids and repeated ids (the panel holds one
    /// configuration per algorithm; the first wins) are reported by problems() until the next
    /// setSelection(). Emits changed() once.
    void setSelection(const QList<AlgorithmRun>& runs);

    /// Form problems of the selected algorithms, each prefixed by the algorithm's name
    /// ("Adam: lr: 5 is outside [1e-06, 1]"), then the problems of the last setSelection().
    /// Empty when the selection can run (an empty selection is not a problem here).
    QStringList problems() const;

    /// Greys out the algorithms whose AlgorithmInfo does not support @p t.
    void setTask(Task t);
    Task task() const { return m_task; }

    /// The form of @p algorithmId, or nullptr for an unknown id.
    ParamForm* form(const QString& algorithmId) const;
    /// Checks or unchecks @p algorithmId (no-op for unknown ids).
    void setChecked(const QString& algorithmId, bool on);
    bool isChecked(const QString& algorithmId) const;
    /// False when setTask() greyed the algorithm out (or the id is unknown).
    bool isAvailable(const QString& algorithmId) const;
    /// Expands or collapses the section of @p algorithmId.
    void setExpanded(const QString& algorithmId, bool on);
    /// Current form values of @p algorithmId even if unchecked; empty for unknown ids.
    QVariantMap paramsFor(const QString& algorithmId) const;
    /// Every algorithm id in display order.
    QStringList algorithmIds() const;

Q_SIGNALS:
    /// A check mark, a label or a parameter changed.
    void changed();
    /// "Sweep this parameter…" on parameter @p key of @p algorithmId's form.
    void sweepRequested(const QString& algorithmId, const QString& key);

private:
    struct Entry {
        AlgorithmInfo info;
        QWidget* header = nullptr;
        QCheckBox* check = nullptr;
        QToolButton* expand = nullptr;
        QWidget* body = nullptr;
        QLineEdit* label = nullptr;
        ParamForm* form = nullptr;
        QPushButton* reset = nullptr;
    };

    void addEntry(QVBoxLayout* layout, const AlgorithmInfo& info);
    const Entry* entry(const QString& id) const;
    QString runLabel(const Entry& e) const;

    QList<Entry> m_entries;
    QStringList m_selectionProblems;
    Task m_task = Task::Classification;
};

} // namespace tb::gui
