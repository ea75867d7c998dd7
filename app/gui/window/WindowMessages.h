#pragma once
/// @file WindowMessages.h
/// What the window tells the user: the log, the status line and the problem dialogs.

#include <QObject>
#include <QString>

class QLabel;
class QPlainTextEdit;
class QWidget;

namespace tb::gui {

/// The Log dock's text (at most 5000 lines, each stamped "hh:mm:ss"), the status line's label and
/// the warning boxes. Every part of the main window reports through it. The log and the label are
/// created here; the window places them (log() in the Log dock, status() in the status bar) and
/// owns them from then on. GUI thread only.
class WindowMessages : public QObject {
    Q_OBJECT
public:
    /// @p dialogParent: the window the warning boxes belong to (not null; outlives this).
    explicit WindowMessages(QWidget* dialogParent);

    QPlainTextEdit* log() const { return m_log; }
    QLabel* status() const { return m_status; }

    /// Adds "hh:mm:ss  @p line" to the log.
    void appendLog(const QString& line);
    /// Sets the status line (it starts with "Ready").
    void setStatus(const QString& text);
    QString statusText() const;
    QString logText() const;
    /// A problem the user must see: logged as "title: text" (lines joined by "; "), @p title in
    /// the status line and, while confirmations are on, a warning box with @p text.
    void showProblems(const QString& title, const QString& text);

    /// Whether warning boxes and questions are shown (default true; tests turn them off).
    void setConfirmations(bool on) { m_confirm = on; }
    bool confirmations() const { return m_confirm; }

private:
    QWidget* m_dialogParent;
    QPlainTextEdit* m_log;
    QLabel* m_status;
    bool m_confirm = true;
};

} // namespace tb::gui
