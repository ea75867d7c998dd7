#pragma once

#include <engine/ExperimentRunner.h>

#include <QSize>
#include <QString>
#include <QStringList>

namespace tb::cli {

/// Writes an experiment's charts as PNG (1200×800): every chart of the ChartRegistry (app/charts,
/// the workbench's builders) that is exported for @p result (ChartEntry::isExportedFor), in the
/// registry's order, titled "<title> — <what it shows>". The first chart goes to @p path, every
/// other to "<path without .png>-<suffix>.png", the suffix being the chart's file suffix or, for a
/// chart drawn against each swept parameter, the parameter's name. For example a learning curve
/// writes its metric against training time to OUT.png, against epoch to OUT-epoch.png and the
/// frontier to OUT-frontier.png; a noise sweep its RMSE vs σ to OUT.png; a param sweep its final
/// metric against the first numeric swept parameter to OUT.png and against the others to
/// OUT-KEY.png. Needs a QApplication. Returns false with @p error naming the file on failure (the
/// files before it are written); @p written lists the files written. @p size (default: empty, i.e.
/// ChartRenderer::defaultSize()) is the image size; @p limit ≥ 1 writes only the first @p limit
/// charts (−1, the default: all) — a reproduction report keeps its images small.
bool writeCharts(const ExperimentResult& result, const QString& title, const QString& path, QStringList* written,
                 QString* error, QSize size = {}, int limit = -1);

} // namespace tb::cli
