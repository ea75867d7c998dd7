#pragma once
/// @file WheelGuard.h
/// Wheel events over closed drop-downs and spin boxes in a scrolling panel scroll the panel.

#include <QObject>

namespace tb::gui {

/// An event filter (install it on the application) that gives the mouse wheel to the scrolling
/// panel, not to the value under the pointer: over a QComboBox or a QAbstractSpinBox that does
/// not have the keyboard focus and lies in a scroll area, the wheel scrolls that area and the
/// value stays as it was. A focused editor (clicked or tabbed into) still takes the wheel, and so
/// does an open drop-down list. Issue 18: scrolling down the Algorithms panel changed whatever
/// activation or count passed under the pointer. GUI thread only.
class WheelGuard : public QObject {
    Q_OBJECT
public:
    explicit WheelGuard(QObject* parent = nullptr);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

} // namespace tb::gui
