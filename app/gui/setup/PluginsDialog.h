#pragma once
/// @file PluginsDialog.h
/// Every plugin file the registry found, with its state and, for broken ones, the reason.

#include <engine/PluginRegistry.h>

#include <QDialog>

class QLabel;
class QTableWidget;
class QTextBrowser;

namespace tb::gui {

/// Read-only table of every plugin file found (name, state Loaded/Invalid/Failed/Shadowed/Refused,
/// version, algorithm count, file) with a details pane for the selected row (metadata, the
/// reason it is not loaded, the plugins it replaces, its algorithms and the tasks they handle)
/// and the folders plugins are loaded from, in order, each with its state (does not exist,
/// refused as writable by others, trusted anyway). PluginRegistry::notices() — refused folders
/// and plugins that replace another of their id — stand above everything else. Broken plugins
/// are listed first so they are seen. The registry must outlive the dialog. GUI thread only.
class PluginsDialog : public QDialog {
    Q_OBJECT
public:
    explicit PluginsDialog(const PluginRegistry& registry, QWidget* parent = nullptr);

    /// The plugin table (for tests): one row per plugin file.
    QTableWidget* table() const { return m_table; }
    /// The details pane (for tests): the selected plugin's details as rich text.
    QTextBrowser* details() const { return m_details; }
    /// The notices above the table (for tests); nullptr when there are none.
    QLabel* notices() const { return m_notices; }

private:
    void showDetails(int row);

    QList<std::shared_ptr<PluginSpec>> m_plugins; ///< in table order
    QTableWidget* m_table = nullptr;
    QTextBrowser* m_details = nullptr;
    QLabel* m_notices = nullptr;
};

} // namespace tb::gui
