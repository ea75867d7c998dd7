#include "PresentationMode.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenuBar>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>

namespace tb::gui {

PresentationMode::PresentationMode(QMainWindow* window, QTabWidget* centre, QWidget* teaching)
    : QObject(window), m_window(window), m_centre(centre), m_teaching(teaching),
      m_action(new QAction(tr("&Presentation mode"), this))
{
    m_action->setCheckable(true);
    m_action->setShortcut(QKeySequence(Qt::Key_F11));
    m_action->setToolTip(tr("The teaching view alone, full screen, large fonts (F11 to enter and leave)"));
    window->addAction(m_action); // its shortcut works while the menu bar is hidden
    connect(m_action, &QAction::toggled, this, &PresentationMode::setOn);
    m_leave = new QAction(tr("Leave presentation mode"), this);
    m_leave->setShortcut(QKeySequence(Qt::Key_Escape));
    m_leave->setEnabled(false); // Esc belongs to the widgets outside presentation mode
    window->addAction(m_leave);
    connect(m_leave, &QAction::triggered, this, [this] { setOn(false); });
}

void PresentationMode::setOn(bool on)
{
    if (on == m_on)
        return;
    m_on = on;
    if (m_action->isChecked() != on)
        m_action->setChecked(on);
    m_leave->setEnabled(on);
    if (on) {
        m_normalState = m_window->saveState();
        m_normalGeometry = m_window->saveGeometry();
        m_previousTab = m_centre->currentWidget();
        // The window's own docks and tool bars only: a tool bar inside a dock is the dock's.
        m_hidden.clear();
        QList<QWidget*> bars;
        for (QDockWidget* d : m_window->findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly))
            bars << d;
        for (QToolBar* t : m_window->findChildren<QToolBar*>(Qt::FindDirectChildrenOnly))
            bars << t;
        for (QWidget* b : bars)
            if (b->isVisible()) {
                m_hidden << b;
                b->hide();
            }
        m_window->menuBar()->hide();
        m_window->statusBar()->hide();
        m_centre->setCurrentWidget(m_teaching);
        m_centre->tabBar()->hide();
        // Readable from the back of a classroom.
        QFont f = m_teaching->font();
        f.setPointSizeF(QApplication::font().pointSizeF() * 1.6);
        m_teaching->setFont(f);
        m_window->showFullScreen();
    } else {
        m_teaching->setFont(QApplication::font());
        m_centre->tabBar()->show();
        m_window->menuBar()->show();
        m_window->statusBar()->show();
        m_window->showNormal();
        m_window->restoreGeometry(m_normalGeometry);
        m_window->restoreState(m_normalState);
        for (const QPointer<QWidget>& b : std::as_const(m_hidden))
            if (b)
                b->show();
        m_hidden.clear();
        if (m_previousTab)
            m_centre->setCurrentWidget(m_previousTab);
    }
}

} // namespace tb::gui
