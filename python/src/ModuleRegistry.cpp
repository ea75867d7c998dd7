#include "ModuleRegistry.h"
#include "QtRuntime.h"

#include <engine/PluginRegistry.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <dlfcn.h>
#include <mutex>

#ifndef TB_PYMOD_BUILD_PLUGIN_DIR
#define TB_PYMOD_BUILD_PLUGIN_DIR "../../bin/plugins"
#endif
#ifndef TB_PYMOD_INSTALLED_PLUGIN_DIR
#define TB_PYMOD_INSTALLED_PLUGIN_DIR "../../../trainbench/plugins"
#endif

namespace tb::python {

QString ModuleRegistry::moduleFile()
{
    Dl_info info{};
    // Any function of this shared object names it.
    if (dladdr(reinterpret_cast<void*>(&ModuleRegistry::moduleFile), &info) == 0 || !info.dli_fname)
        return {};
    return QFileInfo(QFile::decodeName(info.dli_fname)).absoluteFilePath();
}

QStringList ModuleRegistry::searchPaths()
{
    QStringList paths;
    for (const QString& p : QString::fromLocal8Bit(qgetenv("TRAINBENCH_PLUGIN_PATH"))
                                .split(QLatin1Char(':'), Qt::SkipEmptyParts))
        paths << QDir::cleanPath(p);
    if (const QString file = moduleFile(); !file.isEmpty()) {
        const QString dir = QFileInfo(file).absolutePath();
        paths << QDir::cleanPath(dir + QStringLiteral("/" TB_PYMOD_BUILD_PLUGIN_DIR))
              << QDir::cleanPath(dir + QStringLiteral("/" TB_PYMOD_INSTALLED_PLUGIN_DIR));
    }
    paths << PluginRegistry::defaultSearchPaths(); // starts with TRAINBENCH_PLUGIN_PATH again: dropped below
    paths.removeDuplicates();
    return paths;
}

const PluginRegistry& ModuleRegistry::get()
{
    static PluginRegistry* registry = nullptr; // never deleted: see the header
    static std::once_flag once;
    std::call_once(once, [] {
        QtRuntime::ensure();
        auto* r = new PluginRegistry;
        r->scan(searchPaths());
        registry = r;
    });
    return *registry;
}

} // namespace tb::python
