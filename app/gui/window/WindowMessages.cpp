#include "WindowMessages.h"

#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QTime>

namespace tb::gui {

WindowMessages::WindowMessages(QWidget* dialogParent)
    : QObject(dialogParent), m_dialogParent(dialogParent), m_log(new QPlainTextEdit),
      m_status(new QLabel(tr("Ready")))
{
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_status->setMinimumWidth(200);
}

void WindowMessages::appendLog(const QString& line)
{
    m_log->appendPlainText(
        QStringLiteral("%1  %2").arg(QTime::currentTime().toString(QStringLiteral("hh:mm:ss")), line));
}

void WindowMessages::setStatus(const QString& text)
{
    m_status->setText(text);
}

QString WindowMessages::statusText() const
{
    return m_status->text();
}

QString WindowMessages::logText() const
{
    return m_log->toPlainText();
}

void WindowMessages::showProblems(const QString& title, const QString& text)
{
    appendLog(title + QStringLiteral(": ") + QString(text).replace(QLatin1Char('\n'), QStringLiteral("; ")));
    m_status->setText(title);
    if (!m_confirm)
        return;
    QMessageBox box(QMessageBox::Warning, title, title, QMessageBox::Ok, m_dialogParent);
    box.setInformativeText(text);
    box.exec();
}

} // namespace tb::gui
