#include "ChartExport.h"

#include <ChartRenderer.h>
#include <LearningCurveChart.h>
#include <NoiseSweepChart.h>

#include <QFileInfo>

namespace tb::cli {

bool writeCharts(const ExperimentResult& result, const QString& title, const QString& path, QStringList* written,
                 QString* error)
{
    using namespace tb::charts;
    if (result.kind == ExperimentSpec::Kind::NoiseSweep) {
        NoiseSweepChart chart;
        chart.setData(result.sweep);
        chart.setTitle(title.isEmpty() ? QStringLiteral("RMSE vs noise σ") : title + QStringLiteral(" — RMSE vs noise σ"));
        if (!ChartRenderer::savePng(&chart, path, ChartRenderer::defaultSize(), error))
            return false;
        if (written)
            *written << path;
        return true;
    }
    const QList<CurveSeriesData> data = LearningCurveChart::seriesOf(result.curves);
    bool classification = false;
    for (const auto& c : result.curves) {
        for (const auto& rep : c.repeats)
            for (const auto& p : rep)
                classification = classification || std::isfinite(p.testAccuracy) || std::isfinite(p.trainAccuracy);
    }
    const auto metric = classification ? LearningCurveChart::Metric::Accuracy : LearningCurveChart::Metric::Rmse;
    QString epochPath = path;
    const QFileInfo fi(path);
    if (fi.suffix().compare(QLatin1String("png"), Qt::CaseInsensitive) == 0)
        epochPath = path.left(path.size() - 4) + QStringLiteral("-epoch.png");
    else
        epochPath = path + QStringLiteral("-epoch.png");
    const struct {
        LearningCurveChart::XAxis x;
        QString file;
    } outputs[] = {{LearningCurveChart::XAxis::TrainTime, path}, {LearningCurveChart::XAxis::Epoch, epochPath}};
    for (const auto& o : outputs) {
        LearningCurveChart chart(metric, o.x);
        chart.setData(data);
        const QString t = LearningCurveChart::defaultTitle(metric, o.x);
        chart.setTitle(title.isEmpty() ? t : title + QStringLiteral(" — ") + t);
        if (!ChartRenderer::savePng(&chart, o.file, ChartRenderer::defaultSize(), error))
            return false;
        if (written)
            *written << o.file;
    }
    return true;
}

} // namespace tb::cli
