#include "ReportViewer.h"

#include <repro/ReproductionReport.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace tb::gui {

ReportViewer::ReportViewer(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Reproduction report"));
    setAttribute(Qt::WA_DeleteOnClose, false);
    m_reports = new QComboBox;
    m_reports->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_summary = new QLabel;
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_browser = new QTextBrowser;
    m_browser->setOpenExternalLinks(true);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Report:")));
    top->addWidget(m_reports);
    top->addWidget(m_summary, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_browser, 1);
    resize(1000, 800);
    connect(m_reports, &QComboBox::activated, this, [this](int index) {
        QString error;
        if (!openReport(m_reports->itemData(index).toString(), &error))
            m_summary->setText(error);
    });
}

QString ReportViewer::defaultFolder()
{
#ifdef TB_SOURCE_RESOURCES
    const QString inTree = QDir::cleanPath(QStringLiteral(TB_SOURCE_RESOURCES "/../docs/reproductions"));
    if (QFileInfo(inTree).isDir())
        return inTree;
#endif
    return QDir::current().absoluteFilePath(QStringLiteral("docs/reproductions"));
}

bool ReportViewer::openReport(const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = tr("%1: cannot open: %2").arg(path, f.errorString());
        return false;
    }
    const QString text = QString::fromUtf8(f.readAll());
    const auto verdicts = repro::ReproductionReport::verdicts(text);
    if (verdicts.isEmpty()) {
        *error =
            tr("%1: not a reproduction report (no \"Verdict:\" line; reports are written by trainbench-cli "
               "reproduce)")
                .arg(path);
        return false;
    }
    m_path = QFileInfo(path).absoluteFilePath();
    // As a Markdown resource with its own URL, so that the charts resolve against its folder.
    m_browser->setSource(QUrl::fromLocalFile(m_path), QTextDocument::MarkdownResource);
    int holds = 0, fails = 0, open = 0;
    for (const auto& v : verdicts) {
        if (v.second == QLatin1String("holds"))
            ++holds;
        else if (v.second == QLatin1String("does not hold"))
            ++fails;
        else
            ++open;
    }
    m_summary->setText(tr("%1 claims: %2 hold, %3 do not hold, %4 inconclusive")
                           .arg(verdicts.size())
                           .arg(holds)
                           .arg(fails)
                           .arg(open));
    setWindowTitle(tr("Reproduction report — %1").arg(QFileInfo(m_path).fileName()));
    listFolder();
    return true;
}

QString ReportViewer::summary() const
{
    return m_summary->text();
}

void ReportViewer::listFolder()
{
    const QSignalBlocker block(m_reports);
    m_reports->clear();
    const QDir dir = QFileInfo(m_path).absoluteDir();
    for (const QString& name : dir.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name)) {
        if (name == QLatin1String("README.md"))
            continue;
        m_reports->addItem(name, dir.absoluteFilePath(name));
        if (dir.absoluteFilePath(name) == m_path)
            m_reports->setCurrentIndex(m_reports->count() - 1);
    }
}

} // namespace tb::gui
