#pragma once
/// @file GuideViewer.h
/// Help → User guide: docs/user-guide.md rendered in the workbench, its links to the other
/// documents and its screenshots followed in place.

#include <QDialog>
#include <QString>
#include <QStringList>

class QTextBrowser;

namespace tb::gui {

/// A non-modal window over the user guide (and the documents it links to: cli.md,
/// experiments.md …, all Markdown, rendered as QTextBrowser renders Markdown). GUI thread only.
class GuideViewer : public QDialog {
    Q_OBJECT
public:
    explicit GuideViewer(QWidget* parent = nullptr);

    /// Shows user-guide.md from the first of folders() that has it. False with @p error naming
    /// every folder looked in when none has it (an installation without its documents).
    bool openGuide(QString* error);

    /// Where the documents are looked for: installed (share/doc/trainbench beside the program),
    /// then the source tree the workbench was built from.
    static QStringList folders();

    QTextBrowser* browser() const { return m_browser; }
    /// The file shown, empty before openGuide() succeeded.
    QString path() const { return m_path; }

private:
    QTextBrowser* m_browser;
    QString m_path;
};

} // namespace tb::gui
