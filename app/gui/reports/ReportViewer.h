#pragma once
/// @file ReportViewer.h
/// A stored reproduction report (docs/reproductions/<paper>.md, written by `trainbench-cli
/// reproduce`) shown as the workbench shows documents: rendered Markdown with its charts, and the
/// verdicts counted above it.

#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QTextBrowser;

namespace tb::gui {

/// A non-modal window over one report; the combo box lists the other reports of its folder.
/// GUI thread only.
class ReportViewer : public QDialog {
    Q_OBJECT
public:
    explicit ReportViewer(QWidget* parent = nullptr);

    /// Shows the report at @p path: its Markdown rendered, its images (relative to the report's
    /// folder) in place, and a line counting its verdicts. Returns false with @p error naming the
    /// file when it cannot be read or is not a report (no verdict line); what was shown stays.
    bool openReport(const QString& path, QString* error);

    /// The folder reports are looked for in first: docs/reproductions of the source tree when it
    /// exists beside the resources the workbench was built with, else the current folder's.
    static QString defaultFolder();

    QString path() const { return m_path; }
    /// "9 claims: 3 hold, 4 do not hold, 2 inconclusive" for the report shown.
    QString summary() const;
    QTextBrowser* browser() const { return m_browser; }

private:
    void listFolder();

    QString m_path;
    QComboBox* m_reports = nullptr;
    QLabel* m_summary = nullptr;
    QTextBrowser* m_browser = nullptr;
};

} // namespace tb::gui
