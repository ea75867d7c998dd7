#pragma once
/// @file PresentationMode.h
/// View → Presentation mode (F11): the teaching view alone, full screen, large fonts.

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>

class QAction;
class QMainWindow;
class QTabWidget;
class QWidget;

namespace tb::gui {

/// Shows only @p teaching (a page of @p centre), full screen, with fonts 1.6× larger; the
/// window's own docks and tool bars, the menu bar, the status bar and the centre's tab bar
/// hidden. Leaving (F11 again, or Esc) restores the layout, geometry and tab as they were: the
/// docks and tool bars that were shown are shown again — only the window's own are touched, so a
/// tool bar inside a dock (the run browser's buttons) keeps its state. The actions are added to
/// the window too, so their shortcuts work while the menu bar is hidden. GUI thread only.
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
    QAction* m_leave; ///< Esc, enabled only in presentation mode
    bool m_on = false;
    QPointer<QWidget> m_previousTab;     ///< the centre's page before presentation mode
    QList<QPointer<QWidget>> m_hidden; ///< the window's docks and tool bars it hid
    QByteArray m_normalState; ///< the layout before presentation mode
    QByteArray m_normalGeometry;
};

} // namespace tb::gui
