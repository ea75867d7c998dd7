#pragma once
/// @file WindowLayout.h
/// The main window's docks and size: where each dock goes, View → Reset layout, the size from the
/// screen, and the layout kept in the settings.

#include <QByteArray>
#include <QObject>
#include <QRect>
#include <QSize>

class QDockWidget;
class QMainWindow;
class QSettings;
class QWidget;

namespace tb::gui {

/// Places the five docks — left: "Experiment" above "Data set"; right: "Algorithms"; bottom:
/// "Runs" and "Log" tabbed, Runs in front — and keeps them usable: on a first start (no saved
/// layout) the window takes initialSize() of the screen and the docks a share of it; a layout
/// saved on a larger screen is clamped to this one; resetLayout() puts everything back. On a
/// compact screen (isCompact(): below 1280×800) the window takes the whole screen and the
/// docks stand in one column beside the charts — Experiment on top, Data set and Algorithms
/// tabbed below it, the left column the full height — so none is too narrow to read.
/// Settings keys: "window/geometry", "window/state", "window/screen". GUI thread only.
class WindowLayout : public QObject {
    Q_OBJECT
public:
    /// @p window (not null) must outlive the layout.
    explicit WindowLayout(QMainWindow* window);

    /// Puts @p experiment … @p log into docks (object names "experimentDock", "datasetDock",
    /// "algorithmsDock", "runsDock", "logDock") in their places, each with a minimum width that
    /// keeps it usable on a 1024×768 screen. Call once, after the central widget is set.
    void addDocks(QWidget* experiment, QWidget* dataset, QWidget* algorithms, QWidget* runs, QWidget* log);

    /// Restores the geometry and dock layout of @p settings: without a saved geometry the window
    /// is sized and centred from the screen; a saved one is fitted to the screen. Remembers the
    /// layout as built for resetLayout() first. A layout saved on a screen of the other class
    /// (compact or not, see isCompact(); key "window/screen") gives way to this screen's default.
    void restore(const QSettings& settings);
    /// Writes the geometry and dock layout to @p settings.
    void save(QSettings& settings) const;
    /// Call from the window's showEvent(): dock sizes only take once the window has its real
    /// size, so without a saved layout they are set then.
    void windowShown();
    /// View → Reset layout: every dock back in its place and shown, the window sized from the
    /// screen again (unless maximised or full screen).
    void resetLayout();
    /// resetLayout() for a screen whose available area is @p available (tests pose 1024×768).
    void resetLayoutFor(const QRect& available);
    /// restore() as on a screen whose available area is @p available.
    void restoreFor(const QSettings& settings, const QRect& available);
    /// Whether a screen of @p size gets the compact layout: below 1280×800 the Data set and
    /// Algorithms docks are tabs below the Experiment dock, one column beside the charts.
    static bool isCompact(const QSize& size);
    /// Whether the compact layout is the one arranged (last restore or reset).
    bool compact() const { return m_compact; }

    /// The first-start window size for a screen of @p available size: 90 % of it, at most
    /// 1600×1000, at least 640×480 where the screen has it; all of it on a compact screen.
    static QSize initialSize(const QSize& available);
    /// @p window moved and shrunk as little as possible to lie inside @p available.
    static QRect fitToScreen(const QRect& window, const QRect& available);

private:
    void applyDockSizes();
    /// The default layout (wide or compact), every dock docked and shown.
    void arrange(bool compact);
    QRect availableScreen() const;

    QMainWindow* m_window;
    QDockWidget* m_experimentDock = nullptr;
    QDockWidget* m_datasetDock = nullptr;
    QDockWidget* m_algorithmsDock = nullptr;
    QDockWidget* m_runsDock = nullptr;
    QDockWidget* m_logDock = nullptr;
    QByteArray m_defaultState;      ///< the dock layout as built, for resetLayout()
    bool m_sizeDocksOnShow = false; ///< no saved layout: size the docks from the window when shown
    bool m_compact = false;         ///< the compact layout is arranged
};

} // namespace tb::gui
