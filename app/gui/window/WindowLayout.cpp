#include "WindowLayout.h"

#include <QDockWidget>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>
#include <QTimer>

#include <algorithm>

namespace tb::gui {

WindowLayout::WindowLayout(QMainWindow* window) : QObject(window), m_window(window) {}

void WindowLayout::addDocks(QWidget* experiment, QWidget* dataset, QWidget* algorithms, QWidget* runs,
                            QWidget* log)
{
    auto dock = [this](const QString& title, const char* name, QWidget* widget, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, m_window);
        d->setObjectName(QLatin1String(name));
        d->setWidget(widget);
        m_window->addDockWidget(area, d);
        return d;
    };
    m_experimentDock = dock(tr("Experiment"), "experimentDock", experiment, Qt::LeftDockWidgetArea);
    m_datasetDock = dock(tr("Data set"), "datasetDock", dataset, Qt::LeftDockWidgetArea);
    m_window->splitDockWidget(m_experimentDock, m_datasetDock, Qt::Vertical);
    m_algorithmsDock = dock(tr("Algorithms"), "algorithmsDock", algorithms, Qt::RightDockWidgetArea);
    m_runsDock = dock(tr("Runs"), "runsDock", runs, Qt::BottomDockWidgetArea);
    m_logDock = dock(tr("Log"), "logDock", log, Qt::BottomDockWidgetArea);
    m_window->tabifyDockWidget(m_runsDock, m_logDock);
    m_runsDock->raise();
    // Narrow screens: every dock keeps a usable width (the Algorithms panel was ~70 px wide at
    // 1024×768), and the central charts keep room too.
    m_experimentDock->setMinimumWidth(220);
    m_datasetDock->setMinimumWidth(220);
    m_algorithmsDock->setMinimumWidth(240);
    if (m_window->centralWidget())
        m_window->centralWidget()->setMinimumWidth(320);
}

QSize WindowLayout::initialSize(const QSize& available)
{
    // 90 % of the screen, no larger than 1600×1000 (the layout's comfortable size), no smaller than
    // the screen allows.
    return QSize(std::min(1600, int(available.width() * 0.9)), std::min(1000, int(available.height() * 0.9)))
        .expandedTo(QSize(640, 480))
        .boundedTo(available);
}

QRect WindowLayout::fitToScreen(const QRect& window, const QRect& available)
{
    if (available.isEmpty())
        return window;
    QRect r(window.topLeft(), window.size().boundedTo(available.size()));
    // Keep the whole frame on the screen: a window restored from a larger monitor comes back.
    if (r.right() > available.right())
        r.moveRight(available.right());
    if (r.bottom() > available.bottom())
        r.moveBottom(available.bottom());
    if (r.left() < available.left())
        r.moveLeft(available.left());
    if (r.top() < available.top())
        r.moveTop(available.top());
    return r;
}

QRect WindowLayout::availableScreen() const
{
    const QScreen* s = m_window->screen() ? m_window->screen() : QGuiApplication::primaryScreen();
    return s ? s->availableGeometry() : QRect();
}

void WindowLayout::resetLayout()
{
    m_window->restoreState(m_defaultState);
    for (QDockWidget* d : {m_experimentDock, m_datasetDock, m_algorithmsDock, m_runsDock, m_logDock}) {
        d->setFloating(false);
        d->show();
    }
    m_runsDock->raise();
    const QRect avail = availableScreen();
    if (!m_window->isMaximized() && !m_window->isFullScreen()) {
        const QSize want = initialSize(avail.size());
        m_window->setGeometry(fitToScreen(QRect(m_window->geometry().topLeft(), want), avail));
    }
    applyDockSizes();
}

void WindowLayout::applyDockSizes()
{
    // Side docks take about a quarter of the width each, the runs about a quarter of the height.
    const int w = std::max(m_window->width(), 800), h = std::max(m_window->height(), 600);
    m_window->resizeDocks({m_experimentDock, m_algorithmsDock},
                          {std::clamp(w * 22 / 100, 220, 340), std::clamp(w * 25 / 100, 240, 400)},
                          Qt::Horizontal);
    m_window->resizeDocks({m_runsDock}, {std::clamp(h * 22 / 100, 140, 240)}, Qt::Vertical);
}

void WindowLayout::restore(const QSettings& s)
{
    m_defaultState = m_window->saveState();
    const QRect avail = availableScreen();
    if (!m_window->restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
        // First start: size from the screen, not a fixed 1600×1000.
        const QSize size = initialSize(avail.size());
        m_window->setGeometry(QRect(avail.topLeft() + QPoint((avail.width() - size.width()) / 2,
                                                             (avail.height() - size.height()) / 2),
                                    size));
        applyDockSizes();
    } else if (!m_window->isMaximized() && !m_window->isFullScreen()) {
        // A size saved on a larger screen is clamped to this one.
        const QRect fitted = fitToScreen(m_window->geometry(), avail);
        if (fitted != m_window->geometry())
            m_window->setGeometry(fitted);
    }
    m_sizeDocksOnShow = !m_window->restoreState(s.value(QStringLiteral("window/state")).toByteArray());
}

void WindowLayout::save(QSettings& s) const
{
    s.setValue(QStringLiteral("window/geometry"), m_window->saveGeometry());
    s.setValue(QStringLiteral("window/state"), m_window->saveState());
}

void WindowLayout::windowShown()
{
    if (m_sizeDocksOnShow) {
        m_sizeDocksOnShow = false;
        QTimer::singleShot(0, this, &WindowLayout::applyDockSizes);
    }
}

} // namespace tb::gui
