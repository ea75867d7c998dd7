#pragma once
/// @file ChartPlot.h
/// One chart made by an entry of the ChartRegistry, for a view or for a file.

#include "ChartOptions.h"

#include <QImage>
#include <QPointer>
#include <QSize>
#include <QString>

#include <functional>

class QChart;
class QWidget;

namespace tb::charts {

/// A chart that a ChartEntry built: either a QChart (rendered by ChartRenderer, shown in a
/// ChartView with zoom and hover) or a QWidget that paints itself (ParallelCoordinatesView),
/// together with the function that shows a result on it.
///
/// Ownership: the plot owns its chart or widget until view() has been put into a widget
/// hierarchy; from then on the parent owns it and the plot never deletes it (show() does nothing
/// once it is gone). Not copyable. GUI thread only; Qt Charts needs a QApplication.
class ChartPlot {
public:
    /// Shows a result on the plot's chart or widget.
    using Update = std::function<void(const ExperimentResult& result, const ChartOptions& options)>;
    /// Paints a widget plot at the given size on a white background.
    using Render = std::function<QImage(QSize size)>;

    /// A plot drawing on @p chart (not null) with @p update.
    ChartPlot(QChart* chart, Update update);
    /// A plot that is @p widget (not null), shown with @p update and painted for files by @p render.
    ChartPlot(QWidget* widget, Update update, Render render);
    ~ChartPlot();
    ChartPlot(const ChartPlot&) = delete;
    ChartPlot& operator=(const ChartPlot&) = delete;

    /// Shows @p result with @p options. As cheap as the chart's own setData: the curve charts
    /// reuse their series, so a view may call it ~20 times a second while an experiment runs.
    void show(const ExperimentResult& result, const ChartOptions& options);

    /// The chart of a chart plot; nullptr for a widget plot (or once its view was deleted).
    QChart* chart() const;
    /// The widget for a tab: a ChartView of the chart (made on the first call, zoom and hover
    /// tooltips on) or the plot's widget itself. Give it a parent (e.g. QTabWidget::addTab).
    QWidget* view();

    /// The plot at @p size pixels on white (ChartRenderer::render for a chart); a null image for
    /// an empty size or a plot whose view was deleted.
    QImage render(QSize size) const;
    /// Writes render(@p size) as a PNG to @p path, replacing it atomically. False with @p error
    /// naming the path and the cause ("cannot write PNG '…': …") on failure.
    bool savePng(const QString& path, QSize size, QString* error) const;

private:
    QPointer<QChart> m_chart;
    QPointer<QWidget> m_widget; ///< the widget of a widget plot, or the ChartView of a chart plot
    Update m_update;
    Render m_render;
};

} // namespace tb::charts
