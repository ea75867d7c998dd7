#pragma once
/// @file DatabaseControl.h
/// The run database the window logs to: opening and switching it, and keeping an experiment's
/// results in another database after the open one failed.

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

class QAction;
class QSettings;
class QWidget;

namespace tb {
class PluginRegistry;
class RunStore;
struct ExperimentResult;
} // namespace tb

namespace tb::gui {

class ExperimentController;
class RunBrowser;
class WindowMessages;

/// Owns the open RunStore (or none) and hands it to the controller and the run browser.
/// File → Open database… opens or creates a file, never while an experiment runs (the current
/// store stays open when the new one fails); File → Save results to another database… writes the
/// last experiment's results, kept in memory, into another file after the open database failed
/// during it (tb::saveResult). Settings key: "database" (default RunStore::defaultPath()).
/// GUI thread only.
class DatabaseControl : public QObject {
    Q_OBJECT
public:
    /// Everything given must outlive this object; @p dialogParent is its parent too.
    DatabaseControl(const PluginRegistry& registry, ExperimentController* controller, RunBrowser* browser,
                    WindowMessages* messages, QWidget* dialogParent);
    ~DatabaseControl() override;

    RunStore* store() const { return m_store.get(); }
    /// Closes @p path's predecessor and opens @p path (created if missing). Refused while an
    /// experiment runs. On failure the current store stays open and @p error says why.
    bool openDatabase(const QString& path, QString* error);
    /// Detaches the store from the browser and closes it (the window's end; the controller must
    /// be gone or idle).
    void close();
    /// Writes the last experiment's results into @p path as a new experiment. False with a
    /// message naming the file and the cause when there is nothing to save, @p path is the
    /// database that failed, or the write fails.
    bool saveResultsTo(const QString& path, QString* error);

    /// File → Open database…, disabled while an experiment runs (the window enables it).
    QAction* openAction() const { return m_openAction; }
    /// File → Save results to another database…, enabled by experimentFinished().
    QAction* saveResultsAction() const { return m_saveResultsAction; }
    /// The dialogs, starting in the open database's folder, else in @p fallbackFolder.
    void openDatabaseDialog(const QString& fallbackFolder);
    void saveResultsDialog(const QString& fallbackFolder);

    /// Offers "Save results to another database" when @p result could not all be stored.
    void experimentFinished(const ExperimentResult& result);

    /// Opens the database of @p settings (or the default one); when that fails the window runs
    /// without a store and the log and status line say why.
    void restore(const QSettings& settings);
    void save(QSettings& settings) const;

private:
    const PluginRegistry& m_registry;
    ExperimentController* m_controller;
    QPointer<RunBrowser> m_browser; ///< may go first when the window is destroyed
    WindowMessages* m_messages;
    QWidget* m_dialogParent;
    std::unique_ptr<RunStore> m_store;
    QAction* m_openAction;
    QAction* m_saveResultsAction;
};

} // namespace tb::gui
