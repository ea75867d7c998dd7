#include "ChartExport.h"

#include <charts/ChartRegistry.h>
#include <charts/ChartRenderer.h>

#include <QFileInfo>

namespace tb::cli {
namespace {

// "<path without .png>-<suffix>.png".
QString sibling(const QString& path, const QString& suffix)
{
    const QFileInfo fi(path);
    const QString base = fi.suffix().compare(QLatin1String("png"), Qt::CaseInsensitive) == 0 ? path.left(path.size() - 4) : path;
    return base + QLatin1Char('-') + suffix + QStringLiteral(".png");
}

} // namespace

bool writeCharts(const ExperimentResult& result, const QString& title, const QString& path, QStringList* written,
                 QString* error, QSize size, int limit)
{
    if (size.isEmpty())
        size = charts::ChartRenderer::defaultSize();
    int count = 0;
    using namespace tb::charts;
    ChartOptions options;
    options.classification = ChartOptions::hasAccuracy(result); // decided once, from the data
    options.title = title;
    bool first = true;
    for (const ChartEntry* entry : ChartRegistry::entries()) {
        if (!entry->isExportedFor(result))
            continue;
        // One file, or one per parameter the chart is drawn against.
        const QStringList parameters = entry->exportParameters ? entry->exportParameters(result) : QStringList{QString()};
        for (const QString& parameter : parameters) {
            if (limit >= 1 && count >= limit)
                return true;
            ChartOptions o = options;
            o.parameter = parameter;
            const QString file = first ? path : sibling(path, parameter.isEmpty() ? entry->fileSuffix : parameter);
            const std::unique_ptr<ChartPlot> plot = entry->build(o);
            plot->show(result, o);
            if (!plot->savePng(file, size, error))
                return false;
            ++count;
            if (written)
                *written << file;
            first = false;
        }
    }
    return true;
}

} // namespace tb::cli
