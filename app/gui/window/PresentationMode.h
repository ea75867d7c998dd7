#pragma once
/// @file PresentationMode.h
/// View → Presentation mode (F11): the teaching view alone, full screen, large fonts.

#include <QByteArray>
#include <QObject>

class QAction;
class QMainWindow;
class QTabWidget;
class QWidget;

namespace tb::gui {

/// Shows only @p teaching (a page of @p centre), full screen, with fonts 1.6× larger; docks,
/// tool bars, the menu bar, the status bar and the centre's tab bar hidden. Leaving restores the
/// layout and geometry as they were. The action (F11, checkable) is added to the window too, so
/// its shortcut works while the menu bar is hidden. GUI thread only.
class PresentationMode : public QObject {
    Q_OBJECT
public:
    /// All three must outlive the object (they do as the window's children).
    PresentationMode(QMainWindow* window, QTabWidget* centre, QWidget* teaching);

    /// View → Presentation mode (checkable, F11); toggling it calls setOn().
    QAction* action() const { return m_action; }
    void setOn(bool on);
    bool isOn() const { return m_on; }

private:
    QMainWindow* m_window;
    QTabWidget* m_centre;
    QWidget* m_teaching;
    QAction* m_action;
    bool m_on = false;
    QByteArray m_normalState; ///< the layout before presentation mode
    QByteArray m_normalGeometry;
};

} // namespace tb::gui
