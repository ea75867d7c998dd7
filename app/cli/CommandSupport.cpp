#include "CommandSupport.h"
#include "CliStreams.h"

#include <engine/PluginRegistry.h>
#include <store/RunStore.h>

#include <cmath>
#include <cstdio>

namespace tb::cli {

std::unique_ptr<tb::RunStore> openStore(const QString& path, bool readOnly, int busyTimeoutMs)
{
    const QString p = path.isEmpty() ? tb::RunStore::defaultPath() : path;
    QString error;
    tb::RunStore::Options options;
    options.readOnly = readOnly;
    if (busyTimeoutMs >= 0)
        options.busyTimeoutMs = busyTimeoutMs;
    options.onOpenWait = [](const QString& message) { lineToStderr(QStringLiteral("trainbench-cli: ") + message); };
    auto store = tb::RunStore::open(p, options, &error);
    if (!store)
        err() << "trainbench-cli: " << error << Qt::endl;
    return store;
}

void lineToStderr(const QString& line)
{
    const QByteArray bytes = (line + QLatin1Char('\n')).toLocal8Bit();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stderr);
    std::fflush(stderr);
}

void warnAboutPlugins(const tb::PluginRegistry& reg)
{
    for (const QString& n : reg.notices())
        err() << "warning: " << n << "\n";
    err().flush();
}

QString fmtPct(double v)
{
    return std::isfinite(v) ? QString::number(100 * v, 'f', 2) + QLatin1Char('%') : QStringLiteral("-");
}

QString fmt(double v)
{
    return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("-");
}

} // namespace tb::cli
