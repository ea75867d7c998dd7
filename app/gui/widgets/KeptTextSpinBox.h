#pragma once
/// @file KeptTextSpinBox.h
/// Spin boxes that keep what was typed: no keystroke is dropped, nothing is clamped or reverted.

#include <QAbstractSpinBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>

namespace tb::gui {

/// A QSpinBox or QDoubleSpinBox (@p Base) that keeps the typed text as it was typed. Qt's spin
/// boxes drop a keystroke their validator calls Invalid ("2.5" in an integer field became 25,
/// "-10" with a minimum of 0 became 10) and put back the last value when the field loses focus
/// or Enter is pressed on text that is not a value in range. Here every keystroke stays; text
/// that is not a value in range stays in the field (value() keeps the last good value), so the
/// form can name the reason beside it and Run can refuse with the field's label (issue 29).
/// Arrow keys and the wheel (when focused) still step from the last good value.
/// Use typedTextProblem() for the message. GUI thread only.
template <typename Base>
class KeptTextSpinBox : public Base {
public:
    using Base::Base;

    /// The line edit inside: its textEdited() fires on every keystroke.
    QLineEdit* edit() const { return this->lineEdit(); }

    /// True when the text is a value in range (or the special value's text).
    bool typedTextIsValue() const
    {
        return this->hasAcceptableInput() ||
               (!this->specialValueText().isEmpty() && this->text() == this->specialValueText());
    }

protected:
    QValidator::State validate(QString& text, int& pos) const override
    {
        const QValidator::State s = Base::validate(text, pos);
        return s == QValidator::Invalid ? QValidator::Intermediate : s;
    }

    void fixup(QString&) const override {} // no silent correction

    void focusOutEvent(QFocusEvent* event) override
    {
        if (typedTextIsValue()) {
            Base::focusOutEvent(event);
            return;
        }
        const QString typed = this->lineEdit()->text();
        Base::focusOutEvent(event); // reverts the text to the last value …
        this->lineEdit()->setText(typed); // … which is put back as typed
    }

    void keyPressEvent(QKeyEvent* event) override
    {
        if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && !typedTextIsValue()) {
            event->ignore(); // not reverted; the form names the problem
            return;
        }
        Base::keyPressEvent(event);
    }
};

/// The integer and real fields of the Experiment and Data set panels.
using IntField = KeptTextSpinBox<QSpinBox>;
using RealField = KeptTextSpinBox<QDoubleSpinBox>;

/// Why the text of @p box is not a value it can take, with the form's @p label and the file's
/// @p key in parentheses, e.g. `Samples (samples): "-10" is not a whole number from 1 to 100000`;
/// empty when it is one. The range says what an exclusive bound's step hides, when given.
inline QString typedTextProblem(const QAbstractSpinBox* box, const QString& label, const QString& key,
                                const QString& rangeText = QString())
{
    const auto* i = qobject_cast<const QSpinBox*>(box);
    const auto* d = qobject_cast<const QDoubleSpinBox*>(box);
    const bool valid = box->hasAcceptableInput() ||
                       (!box->specialValueText().isEmpty() && box->text() == box->specialValueText());
    if (valid || (!i && !d))
        return {};
    const QString name = key.isEmpty() || key == label ? label : QStringLiteral("%1 (%2)").arg(label, key);
    QString typed = box->text().trimmed();
    const QString suffix = i ? i->suffix() : d->suffix();
    if (!suffix.trimmed().isEmpty() && typed.endsWith(suffix.trimmed()))
        typed = typed.chopped(suffix.trimmed().size()).trimmed();
    const QLocale loc = box->locale();
    QString range = rangeText;
    if (range.isEmpty())
        range = i ? QCoreApplication::translate("KeptTextSpinBox", "from %1 to %2").arg(i->minimum()).arg(i->maximum())
                  : QCoreApplication::translate("KeptTextSpinBox", "from %1 to %2")
                        .arg(loc.toString(d->minimum(), 'g', 6), loc.toString(d->maximum(), 'g', 6));
    if (typed.isEmpty())
        return QCoreApplication::translate("KeptTextSpinBox", "%1: empty; give a %2 %3")
            .arg(name, i ? QCoreApplication::translate("KeptTextSpinBox", "whole number")
                         : QCoreApplication::translate("KeptTextSpinBox", "number"),
                 range);
    return QCoreApplication::translate("KeptTextSpinBox", "%1: \"%2\" is not a %3 %4")
        .arg(name, typed,
             i ? QCoreApplication::translate("KeptTextSpinBox", "whole number")
               : QCoreApplication::translate("KeptTextSpinBox", "number"),
             range);
}

} // namespace tb::gui
