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
}

void PresentationMode::setOn(bool on)
{
    if (on == m_on)
        return;
    m_on = on;
    if (m_action->isChecked() != on)
        m_action->setChecked(on);
    if (on) {
        m_normalState = m_window->saveState();
        m_normalGeometry = m_window->saveGeometry();
        for (QDockWidget* d : m_window->findChildren<QDockWidget*>())
            d->hide();
        for (QToolBar* t : m_window->findChildren<QToolBar*>())
            t->hide();
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
    }
}

} // namespace tb::gui
