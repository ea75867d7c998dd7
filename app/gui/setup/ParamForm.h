#pragma once
/// @file ParamForm.h
/// A parameter form generated from an algorithm's ParamSchema.

#include <trainbench/ParamSchema.h>

#include <QList>
#include <QStringList>
#include <QVariantMap>
#include <QWidget>

class QLabel;

namespace tb::gui {

class LogSlider;

/// A form generated from a ParamSchema, one row per parameter in schema order:
///  - Int: QSpinBox with the spec's range (clamped to the int range);
///  - Real: QDoubleSpinBox with the spec's range that also accepts "1e-3", plus a LogSlider
///    beside it when the spec is log-scale (learning rates);
///  - Bool: QCheckBox; Choice: QComboBox with the spec's choices;
///  - IntList: LayerSizeEdit ("50, 20").
/// Every row has the spec's help as tooltip and an inline red message shown while its value is
/// invalid; the message is ParamSchema's own (naming the parameter and the value), written
/// "key: message", e.g. `lr: expected a number 1e-06 to 1, got 5`.
///
/// A value outside its valid range (typed, or given to setValues() from an experiment file)
/// stays in its field as it is, with the message beside it: the number editors accept any
/// number (their arrows and wheel step inside the valid range only), and values() reads the
/// typed text even before Enter or Tab commit it, so Run (Ctrl+R) pressed while typing sees
/// what the field shows. Nothing is reverted or clamped silently. A value no editor can hold
/// (2.5 for an integer, an unknown choice) is kept beside the editor, reported by problems()
/// and values(), and named in the message until the user edits that row. GUI thread only.
class ParamForm : public QWidget {
    Q_OBJECT
public:
    /// Builds the editors for @p schema (copied) and sets every one to its default.
    explicit ParamForm(const ParamSchema& schema, QWidget* parent = nullptr);
    ~ParamForm() override;

    /// Every key of the schema with its current value: canonical types (qlonglong, double,
    /// bool, QString, QVariantList of int) for valid rows; an invalid row gives the raw value
    /// (e.g. the typed text "50, -3") so that validation downstream names it too.
    QVariantMap values() const;

    /// The keys given to the last setValues() or edited since, and every key whose value differs
    /// from its default: what an experiment file should say, so a file opened and saved again
    /// keeps its parameters as they were written (values() stays the complete set a run uses).
    QVariantMap explicitValues() const;

    /// Sets the keys of @p v; unknown keys are ignored, missing keys get their default.
    /// Emits changed() once.
    void setValues(const QVariantMap& v);

    /// Every parameter back to its default (setValues({})). Emits changed() once.
    void resetToDefaults();

    /// One message per invalid row, in schema order, each starting with the key
    /// ("hidden: \"50, -3\" …"); empty when every value is valid.
    QStringList problems() const;

    /// The editor widget of @p key (QSpinBox, QDoubleSpinBox, QCheckBox, QComboBox or
    /// LayerSizeEdit), or nullptr for an unknown key.
    QWidget* editor(const QString& key) const;
    /// The log slider beside a log-scale real, else nullptr.
    LogSlider* slider(const QString& key) const;
    /// The inline message label of @p key (hidden while the value is valid), or nullptr.
    QLabel* messageLabel(const QString& key) const;

    const ParamSchema& schema() const { return m_schema; }

Q_SIGNALS:
    /// A value changed (user edit, setValues() or resetToDefaults()).
    void changed();
    /// The user chose "Sweep this parameter…" in the context menu of @p key's label.
    void sweepRequested(const QString& key);

private:
    struct Row {
        ParamSpec spec;
        QWidget* editor = nullptr;
        LogSlider* slider = nullptr;
        QLabel* message = nullptr;
        bool hasRejected = false; ///< a value from setValues() the editor cannot hold
        QVariant rejected;
        bool explicitlySet = false; ///< given to setValues() or edited by the user since
    };

    QWidget* makeEditor(Row& row);
    const Row* row(const QString& key) const;
    QVariant rawValue(const Row& row) const;
    QString problem(const Row& row) const;
    void setEditorValue(Row& row, const QVariant& canonical);
    void onEdited(int index);
    void refreshMessage(const Row& row);

    ParamSchema m_schema;
    QList<Row> m_rows;
};

} // namespace tb::gui
