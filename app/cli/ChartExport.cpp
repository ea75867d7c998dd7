#include "ChartExport.h"

#include <ChartRenderer.h>
#include <FeatureFrontierChart.h>
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
    const QFileInfo fi(path);
    const QString base =
        fi.suffix().compare(QLatin1String("png"), Qt::CaseInsensitive) == 0 ? path.left(path.size() - 4) : path;
    const QString epochPath = base + QStringLiteral("-epoch.png");
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
    // Runs that state their number of features (Least Squares Revisited): the accuracy–time–
    // features frontier as well.
    if (FeatureFrontierChart::hasFeatureCounts(result.curves)) {
        FeatureFrontierChart chart;
        chart.setData(result.curves, !classification);
        if (!title.isEmpty())
            chart.setTitle(title + QStringLiteral(" — ") + chart.title());
        const QString featuresPath = base + QStringLiteral("-features.png");
        if (!ChartRenderer::savePng(&chart, featuresPath, ChartRenderer::defaultSize(), error))
            return false;
        if (written)
            *written << featuresPath;
    }
    return true;
}

} // namespace tb::cli
