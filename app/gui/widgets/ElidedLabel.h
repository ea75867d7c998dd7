#pragma once
/// @file ElidedLabel.h
/// A one-line label that elides its text to the width it gets and never asks for more.

#include <QLabel>

namespace tb::gui {

/// Shows text() on one line, elided on the right ("Live: a long experiment na…") when the width
/// the layout gives it is too small; the whole text is its tooltip. Its size hint asks for no
/// width, so a long caption can never widen a window or push neighbours out of it (issue 18: the
/// chart header pushed the Algorithms panel off a 1024-pixel screen). GUI thread only.
class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(const QString& text = {}, QWidget* parent = nullptr);

    /// The full text (QLabel::text() is the elided one shown).
    QString fullText() const { return m_full; }
    void setFullText(const QString& text);

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();
    QString m_full;
};

} // namespace tb::gui
