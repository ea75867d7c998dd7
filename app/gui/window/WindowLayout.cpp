#include "WindowLayout.h"

#include <QDockWidget>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QScrollArea>
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
    if (isCompact(available))
        return available; // a laptop's screen: every pixel (a 90 % window wasted a tenth of it)
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

bool WindowLayout::isCompact(const QSize& screen)
{
    // Below 1280 px three side-by-side docks leave each too narrow to read (issue 29: at
    // 1024×768 names, σ values and parameter values were cut, the charts' legends too).
    return screen.isValid() && (screen.width() < 1280 || screen.height() < 800);
}

void WindowLayout::arrange(bool compact)
{
    m_window->restoreState(m_defaultState);
    for (QDockWidget* d : {m_experimentDock, m_datasetDock, m_algorithmsDock, m_runsDock, m_logDock}) {
        d->setFloating(false);
        d->show();
    }
    // Compact: the column of docks runs the window's full height; the runs sit under the charts.
    m_window->setCorner(Qt::BottomLeftCorner, compact ? Qt::LeftDockWidgetArea : Qt::BottomDockWidgetArea);
    if (compact) {
        // One column of docks beside the charts: the experiment's settings on top, the data set
        // and the algorithms as tabs below them (each as wide as the column).
        m_window->addDockWidget(Qt::LeftDockWidgetArea, m_algorithmsDock);
        m_window->tabifyDockWidget(m_datasetDock, m_algorithmsDock);
        m_datasetDock->raise();
    }
    m_compact = compact;
    m_runsDock->raise();
}

void WindowLayout::resetLayout()
{
    resetLayoutFor(availableScreen());
}

void WindowLayout::resetLayoutFor(const QRect& avail)
{
    arrange(isCompact(avail.size()));
    if (!m_window->isMaximized() && !m_window->isFullScreen()) {
        const QSize want = initialSize(avail.size());
        m_window->setGeometry(fitToScreen(QRect(m_window->geometry().topLeft(), want), avail));
    }
    applyDockSizes();
    // restoreState() takes effect when the layout is next done, over sizes set now: again then.
    QTimer::singleShot(0, this, &WindowLayout::applyDockSizes);
}

void WindowLayout::applyDockSizes()
{
    const int w = std::max(m_window->width(), 640), h = std::max(m_window->height(), 480);
    if (m_compact) {
        // The one column of docks: a third of the width, the charts the rest.
        const int column = std::clamp(w * 34 / 100, 280, 380);
        m_window->resizeDocks({m_experimentDock, m_datasetDock, m_algorithmsDock}, {column, column, column},
                              Qt::Horizontal);
        // The experiment's settings as tall as they need (at 1366×768 a third of the height cut
        // them after five rows, Threads half hidden), between a third and a half of the height;
        // the data set and algorithms the rest.
        int settings = h * 30 / 100;
        if (const auto* scroll = m_experimentDock->findChild<QScrollArea*>(); scroll && scroll->widget()) {
            const int chrome = m_experimentDock->height() - scroll->viewport()->height();
            settings = scroll->widget()->sizeHint().height() + std::max(chrome, 60);
        }
        // resizeDocks() shares out the column's own height (the window's less its bars) in these
        // proportions: the column as laid out, once it is.
        const int laidOut = m_experimentDock->height() + m_datasetDock->height();
        const int tall = m_experimentDock->isVisible() && laidOut > 200 ? laidOut : h;
        settings = std::clamp(settings, tall * 30 / 100, tall * 50 / 100);
        m_window->resizeDocks({m_experimentDock, m_datasetDock}, {settings, tall - settings}, Qt::Vertical);
    } else {
        // Side docks take about a quarter of the width each.
        m_window->resizeDocks({m_experimentDock, m_algorithmsDock},
                              {std::clamp(w * 22 / 100, 220, 340), std::clamp(w * 25 / 100, 240, 400)},
                              Qt::Horizontal);
    }
    // The runs a little over a quarter of the height: at 768 px a fifth left 1.5 rows of runs
    // under the filter, the buttons and the summary.
    m_window->resizeDocks({m_runsDock}, {std::clamp(h * 28 / 100, 200, 340)}, Qt::Vertical);
}

void WindowLayout::restore(const QSettings& s)
{
    restoreFor(s, availableScreen());
}

void WindowLayout::restoreFor(const QSettings& s, const QRect& avail)
{
    if (m_defaultState.isEmpty())
        m_defaultState = m_window->saveState(); // the layout as built (wide), once
    const bool compact = isCompact(avail.size());
    // A layout saved on a screen of the other class (a laptop's, a 1920 monitor's) is not
    // restored blindly: its dock widths were for that screen. Nor one saved before the screen
    // was recorded. The default layout for this screen instead.
    const QSize savedScreen = s.value(QStringLiteral("window/screen")).toSize();
    const bool sameClass = savedScreen.isValid() && isCompact(savedScreen) == compact;
    arrange(compact);
    if (!sameClass || !m_window->restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
        // First start, or another screen: size from the screen, not a fixed 1600×1000.
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
    m_sizeDocksOnShow = !sameClass || !m_window->restoreState(s.value(QStringLiteral("window/state")).toByteArray());
}

void WindowLayout::save(QSettings& s) const
{
    s.setValue(QStringLiteral("window/geometry"), m_window->saveGeometry());
    s.setValue(QStringLiteral("window/state"), m_window->saveState());
    s.setValue(QStringLiteral("window/screen"), availableScreen().size());
}

void WindowLayout::windowShown()
{
    if (m_sizeDocksOnShow) {
        m_sizeDocksOnShow = false;
        QTimer::singleShot(0, this, &WindowLayout::applyDockSizes);
    }
}

} // namespace tb::gui
