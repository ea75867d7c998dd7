#pragma once
/// @file DatasetField.h
/// One key of a data source's schema as a field of the Data set panel's form: its editor, and how
/// the editor reads, writes and resets the spec's value.

#include <trainbench/ParamSpec.h>

#include <QJsonValue>
#include <functional>

class QLabel;
class QWidget;

namespace tb::gui {

/// The field of schema key @ref param: an editor by the key's type (a spin box that keeps what was
/// typed for numbers, a check box, a combo box of the choices, a path with a browse button, a line
/// edit for columns, lists, text and seeds), its default, range and help from the schema. read()
/// gives the spec's value (Undefined: leave the key out), write() shows one (false when the editor
/// cannot hold it exactly: the panel keeps such a value in the spec untouched), reset() returns to
/// the declared default. Number and path fields have a red message line below them (problem(): why
/// the typed text is no value; the panel also shows a file's load error there). A plain value type
/// whose widgets belong to the parent they were made for. GUI thread only.
struct DatasetField {
    const ParamSpec* param = nullptr;
    QWidget* row = nullptr; ///< form field widget (for visibility)
    QWidget* editor = nullptr;
    std::function<QJsonValue()> read;             ///< Undefined: leave the key out
    std::function<bool(const QJsonValue&)> write; ///< false: the editor cannot hold it
    std::function<void()> reset;                  ///< to the declared default
    std::function<QString()> problem;             ///< why the typed text is no value (numbers)
    QLabel* message = nullptr;                    ///< red line below the field (numbers, files)

    /// The field of @p p, its widgets children of @p parent; the editor named after the key (the
    /// message line "<key>_message"), its tool tip the key's help. @p p must outlive the field.
    static DatasetField make(const ParamSpec& p, QWidget* parent);
};

} // namespace tb::gui
