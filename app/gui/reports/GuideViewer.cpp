#include "GuideViewer.h"

#include "widgets/ShippedFolders.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace tb::gui {

GuideViewer::GuideViewer(QWidget* parent) : QDialog(parent), m_browser(new QTextBrowser(this))
{
    setWindowTitle(tr("Trainbench user guide"));
    setObjectName(QStringLiteral("guideViewer"));
    m_browser->setOpenLinks(true);
    m_browser->setOpenExternalLinks(true); // web addresses go to the desktop's browser
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_browser, 1);
    layout->addWidget(buttons);
    resize(900, 700);
}

QStringList GuideViewer::folders()
{
    return shippedFolders(QStringLiteral("../share/doc/trainbench"), QStringLiteral("../docs"));
}

bool GuideViewer::openGuide(QString* error)
{
    const QStringList dirs = folders();
    for (const QString& d : dirs) {
        const QFileInfo guide(QDir(d).filePath(QStringLiteral("user-guide.md")));
        if (!guide.isReadable())
            continue;
        m_path = guide.absoluteFilePath();
        // Relative links (cli.md) and images (gui-main-1024x768.png) resolve against the folder.
        m_browser->setSearchPaths({guide.absolutePath()});
        m_browser->setSource(QUrl::fromLocalFile(m_path), QTextDocument::MarkdownResource);
        return true;
    }
    if (error)
        *error = tr("The user guide (user-guide.md) is in none of: %1").arg(dirs.join(QStringLiteral(", ")));
    return false;
}

} // namespace tb::gui
