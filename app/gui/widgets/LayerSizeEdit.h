#pragma once
/// @file LayerSizeEdit.h
/// A one-line editor for integer lists such as hidden-layer sizes ("50, 20").

#include <QLineEdit>
#include <QVariant>

namespace tb::gui {

/// Line edit for a list of integers, written "50, 20" (commas and/or spaces separate values).
///
/// It accepts any text on purpose: the owner (ParamForm) validates the text against the
/// parameter's spec and shows the message, so a typo stays visible instead of being swallowed.
/// GUI thread only.
class LayerSizeEdit : public QLineEdit {
    Q_OBJECT
public:
    explicit LayerSizeEdit(QWidget* parent = nullptr);

    /// The text as typed (a QString), for ParamSchema::convert(), which parses "50, 20".
    QVariant value() const;

    /// Shows @p v: a list (QVariantList or QList<int>) is written "50, 20"; a string is shown
    /// as is; anything else is shown as its string form.
    void setValue(const QVariant& v);

    /// Formats @p list as "50, 20".
    static QString format(const QVariantList& list);

Q_SIGNALS:
    /// The text changed, by the user or by setValue().
    void valueChanged();
};

} // namespace tb::gui
