#include "QtRuntime.h"

#include <QCoreApplication>

#include <atomic>
#include <clocale>
#include <mutex>
#include <string>

namespace tb::python {
namespace {

std::atomic<bool> g_created{false};

} // namespace

void QtRuntime::ensure()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (QCoreApplication::instance())
            return; // an application that embeds Python: its own
        // QCoreApplication keeps references to argc and argv: both live as long as the process.
        static int argc = 1;
        static char name[] = "trainbench-python";
        static char* argv[] = {name, nullptr};
        const char* current = std::setlocale(LC_ALL, nullptr);
        const std::string locale = current ? current : "";
        // Never deleted: see the header.
        new QCoreApplication(argc, argv);
        if (!locale.empty())
            std::setlocale(LC_ALL, locale.c_str());
        QCoreApplication::setApplicationName(QStringLiteral("trainbench"));
        QCoreApplication::setOrganizationName(QStringLiteral("trainbench"));
        QCoreApplication::setApplicationVersion(QStringLiteral(TB_APP_VERSION));
        g_created = true;
    });
}

bool QtRuntime::created()
{
    return g_created;
}

} // namespace tb::python
