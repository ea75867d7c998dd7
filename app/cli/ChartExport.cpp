#include "ChartExport.h"

#include <ChartRenderer.h>
#include <Comparison.h>
#include <FeatureFrontierChart.h>
#include <FrontierChart.h>
#include <LearningCurveChart.h>
#include <NoiseSweepChart.h>
#include <ParallelCoordinatesView.h>
#include <ParamSweepChart.h>

#include <QImageWriter>
#include <QSaveFile>

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

QString titled(const QString& title, const QString& what)
{
    return title.isEmpty() ? what : title + QStringLiteral(" — ") + what;
}

// The runs against training time with the Pareto front: every experiment with curves has one.
bool writeFrontier(const ExperimentResult& result, const QString& title, const QString& path, QStringList* written,
                   QString* error)
{
    const MetricId metric = RunMetric::defaultFor(result.curves);
    charts::FrontierChart chart;
    chart.setData(Comparison::frontier(Comparison::samples(result.curves, metric), metric), metric);
    chart.setTitle(titled(title, QStringLiteral("%1 vs training time, Pareto front").arg(RunMetric::label(metric))));
    if (!charts::ChartRenderer::savePng(&chart, path, charts::ChartRenderer::defaultSize(), error))
        return false;
    if (written)
        *written << path;
    return true;
}

bool writeParallel(const ExperimentResult& result, const QString& path, QStringList* written, QString* error)
{
    charts::ParallelCoordinatesView view;
    view.setData(result.curves, RunMetric::defaultFor(result.curves));
    const QImage img = view.render(charts::ChartRenderer::defaultSize());
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || !img.save(&f, "PNG") || !f.commit()) {
        if (error)
            *error = QStringLiteral("cannot write PNG '%1': %2").arg(path, f.errorString());
        return false;
    }
    if (written)
        *written << path;
    return true;
}

} // namespace

bool writeCharts(const ExperimentResult& result, const QString& title, const QString& path, QStringList* written,
                 QString* error)
{
    using namespace tb::charts;
    if (result.kind == kinds::NoiseSweep) {
        NoiseSweepChart chart;
        chart.setData(result.sweep);
        chart.setTitle(title.isEmpty() ? QStringLiteral("RMSE vs noise σ") : title + QStringLiteral(" — RMSE vs noise σ"));
        if (!ChartRenderer::savePng(&chart, path, ChartRenderer::defaultSize(), error))
            return false;
        if (written)
            *written << path;
        return true;
    }
    const QStringList params = ParamSweepChart::numericParameters(result.curves);
    if (result.kind == kinds::ParamSweep && !params.isEmpty()) {
        const MetricId metric = RunMetric::defaultFor(result.curves);
        for (int i = 0; i < params.size(); ++i) {
            ParamSweepChart chart;
            chart.setData(result.curves, params[i], metric);
            chart.setTitle(titled(title, chart.title()));
            const QString file = i == 0 ? path : sibling(path, params[i]);
            if (!ChartRenderer::savePng(&chart, file, ChartRenderer::defaultSize(), error))
                return false;
            if (written)
                *written << file;
        }
        if (!writeParallel(result, sibling(path, "parallel"), written, error))
            return false;
        return writeFrontier(result, title, sibling(path, "frontier"), written, error);
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
    // A sweep of non-numeric values (choices, lists) has no parameter axis: learning curves, and
    // the parallel coordinates that can show categories.
    if (result.kind == kinds::ParamSweep && !result.sweptKeys.isEmpty() &&
        !writeParallel(result, sibling(path, "parallel"), written, error))
        return false;
    // Runs that state their number of features (Least Squares Revisited): accuracy against time
    // with the features as point size, one point per stage or run.
    if (FeatureFrontierChart::hasFeatureCounts(result.curves)) {
        FeatureFrontierChart chart;
        chart.setData(result.curves, !classification);
        chart.setTitle(titled(title, chart.title()));
        const QString file = sibling(path, "features");
        if (!ChartRenderer::savePng(&chart, file, ChartRenderer::defaultSize(), error))
            return false;
        if (written)
            *written << file;
    }
    return writeFrontier(result, title, sibling(path, "frontier"), written, error);
}

} // namespace tb::cli
