#pragma once
/// @file SweepEditor.h
/// The grid of a param sweep as the workbench edits it: parameters and their values. The param
/// sweep kind's section editor ("parameter-grid", SectionEditor).

#include "SectionEditor.h"

#include <trainbench/ParamSpec.h>

#include <QJsonObject>
#include <QList>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QVBoxLayout;

namespace tb::gui {

/// One row per swept parameter: a box with the parameters every selected algorithm has
/// (setParameters()), the values as typed — "0.0001, 0.001, 0.01", a range "log(1e-4, 1e-1, 4)"
/// or "lin(0, 1, 5)", choice names, "true, false", int lists separated by ';' — checked as typed
/// against the parameter's schema (tb::ParamSweep::parseValues; the reason shows under the
/// rows), and a remove button. "Add parameter" adds a row. sweepJson() is the experiment file's
/// "sweep" object ({"grid": {…}}); keys of an opened file this editor does not edit ("list",
/// "datasets", "cells_at_once") are kept and written back. GUI thread only.
class SweepEditor : public SectionEditor {
    Q_OBJECT
public:
    explicit SweepEditor(QWidget* parent = nullptr);

    /// The id the param sweep kind names for its section (ExperimentKind::sectionEditor()).
    static QString editorId() { return QStringLiteral("parameter-grid"); }

    // SectionEditor: the file's "sweep" object.
    void setFile(const QJsonObject& file) override { setSweepJson(file.value(QStringLiteral("sweep")).toObject()); }
    void writeTo(QJsonObject& file) const override { file.insert(QStringLiteral("sweep"), sweepJson()); }
    bool addParameter(const QString& key) override
    {
        addAxis(key);
        return true;
    }

    /// The parameters that may be swept (those of every selected algorithm), in form order.
    /// Rows whose parameter is no longer offered keep it and report it in problems().
    void setParameters(const QList<ParamSpec>& specs) override;
    QStringList parameterKeys() const;

    /// Adds a row for @p key with @p values, or with suggestedValues() when empty; if the key
    /// already has a row, focuses it instead. Emits changed().
    void addAxis(const QString& key, const QString& values = {});
    /// Removes row @p row. Emits changed().
    void removeAxis(int row);
    int axisCount() const { return int(m_rows.size()); }
    QComboBox* keyBox(int row) const;
    QLineEdit* valuesEdit(int row) const;

    /// The "sweep" object: {"grid": {key: [values] | {range}}} plus the kept keys. A row whose
    /// values do not parse is written as the typed text, so validation names it.
    QJsonObject sweepJson() const;
    /// Shows the "sweep" object of an opened file. Emits changed() once.
    void setSweepJson(const QJsonObject& sweep);
    /// Problems of the rows, each naming its key: "sweep.grid.lr: \"x\" is not a number".
    QStringList problems() const override;

    /// What a new row for @p spec starts with: a log range over two decades around the default
    /// for log-scale reals, ½×, 1×, 2× the default for other numbers, every choice, both booleans.
    static QString suggestedValues(const ParamSpec& spec);

private:
    struct Row {
        QWidget* widget = nullptr;
        QComboBox* key = nullptr;
        QLineEdit* values = nullptr;
    };
    const ParamSpec* spec(const QString& key) const;
    void refreshMessage();
    void fillKeys(QComboBox* box, const QString& current) const;

    QList<ParamSpec> m_specs;
    QList<Row> m_rows;
    QVBoxLayout* m_rowsLayout = nullptr;
    QLabel* m_message = nullptr;
    QJsonObject m_kept;
    bool m_loading = false;
};

} // namespace tb::gui
