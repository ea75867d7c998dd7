#include "ShippedFolders.h"

#include <QCoreApplication>
#include <QDir>

namespace tb::gui {

QStringList shippedFolders(const QString& installed, const QString& inTree)
{
    QStringList dirs{QDir::cleanPath(QDir(QCoreApplication::applicationDirPath()).filePath(installed))};
#ifdef TB_SOURCE_RESOURCES
    dirs << QDir::cleanPath(QDir(QStringLiteral(TB_SOURCE_RESOURCES)).filePath(inTree));
#else
    Q_UNUSED(inTree)
#endif
    return dirs;
}

} // namespace tb::gui
