#include "LibraryNoise.h"

#include <cstring>

namespace tb::cli {
namespace {

QtMessageHandler g_previous = nullptr;

void filter(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    if (LibraryNoise::isNoise(type, context.category, message))
        return;
    if (g_previous)
        g_previous(type, context, message);
}

} // namespace

bool LibraryNoise::isNoise(QtMsgType type, const char* category, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        return false;
    // Qt's categorised remarks (qt.qpa.*, qt.text.font.*, …).
    if (category && std::strncmp(category, "qt.", 3) == 0)
        return true;
    // Qt's uncategorised remarks about the session's runtime folder (XDG_RUNTIME_DIR unset, or
    // with the wrong owner or permissions): about the login session, not about the work.
    return message.startsWith(QLatin1String("QStandardPaths: ")) &&
           message.contains(QLatin1String("runtime"), Qt::CaseInsensitive);
}

void LibraryNoise::install()
{
    if (qEnvironmentVariableIsSet("QT_LOGGING_RULES") || qEnvironmentVariableIntValue("TRAINBENCH_QT_MESSAGES") == 1)
        return;
    g_previous = qInstallMessageHandler(filter);
}

} // namespace tb::cli
