#pragma once
/// @file ExperimentPanel.h
/// The experiment's own settings: name, kind and the kind's fields, seed, thread cap, time budget.

#include <trainbench/ParamSpec.h>

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace tb::gui {

class KindFields;

/// Edits the top-level keys of an experiment file other than "dataset" and "algorithms":
///  - name (default "Untitled experiment") and kind (every registered ExperimentKind);
///  - the chosen kind's fields (KindFields: its keys and section from the kind's schemas, and its
///    own section editor when it names one — a param sweep's grid);
///  - seed (default 1; any unsigned 64-bit integer), thread cap (default: the saved setting, else
///    all cores; 0 = all cores), time budget per run in seconds (0 = none).
/// Keys of an opened file the panel does not edit ("description", a kind's keys it has no field
/// for) are kept and written back by values(). Nothing here names a kind. GUI thread only.
class ExperimentPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExperimentPanel(QWidget* parent = nullptr);
    ~ExperimentPanel() override;

    /// The keys this panel edits (and any kept ones) as they go into an experiment file. A field
    /// whose text does not parse is written as typed, so that validation names it.
    QJsonObject values() const;
    /// Shows the keys of @p spec (an opened experiment file); missing keys get their
    /// defaults. Emits changed() once.
    void setValues(const QJsonObject& spec);
    /// Problems of the fields themselves (each naming its key, e.g. "sweep.sigma: …") and the
    /// kind's problems with the rest of the experiment (setKindProblems()).
    QStringList problems() const;

    /// What the chosen kind says of the experiment as a whole (ExperimentKind::validate(): a data
    /// set without a noise level to sweep …), shown with the fields' problems; the document
    /// updates it as the data set and the algorithms change.
    void setKindProblems(const QStringList& problems);

    /// The chosen kind's id.
    QString kind() const;
    /// Chooses the kind whose section editor varies parameters (a param sweep's grid) and adds
    /// @p key to it (what "Sweep this parameter" in an algorithm's form does); false when no kind
    /// has such an editor.
    bool sweepParameter(const QString& key);
    /// The parameters the kinds' section editors may vary (those of the selected algorithms).
    void setParameters(const QList<ParamSpec>& specs);
    /// The thread cap (0 = all cores).
    int threads() const;
    void setThreads(int n);

    /// Editors, for tests.
    QComboBox* kindBox() const { return m_kind; }
    QComboBox* budgetClockBox() const { return m_budgetClock; }
    QDoubleSpinBox* budgetBox() const { return m_budget; }
    QLineEdit* seedEdit() const { return m_seed; }
    QLineEdit* nameEdit() const { return m_name; }
    /// The fields of kind @p id (built for every kind at construction), or null.
    KindFields* kindFields(const QString& id) const { return m_fields.value(id); }
    /// The editor of the chosen kind's field @p key ("repeats", "sweep.sigma"), or null.
    QWidget* field(const QString& key) const;

Q_SIGNALS:
    /// Any field changed (user edit or setValues()).
    void changed();

private:
    void updateVisibility();
    void refreshMessage();
    KindFields* current() const;

    QLineEdit* m_name = nullptr;
    QComboBox* m_kind = nullptr;
    QHash<QString, KindFields*> m_fields;  ///< kind id → its fields
    QLineEdit* m_seed = nullptr;
    QSpinBox* m_threads = nullptr;
    QDoubleSpinBox* m_budget = nullptr;
    QComboBox* m_budgetClock = nullptr; ///< time_budget_clock: wall or cpu
    bool m_clockWritten = false;        ///< the file gave time_budget_clock (kept even at "wall")
    QLabel* m_message = nullptr;
    QJsonObject m_kept; ///< keys of the opened file this panel does not edit
    QStringList m_kindProblems;
    bool m_loading = false;
};

} // namespace tb::gui
