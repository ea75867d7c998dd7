#include "ChartPlot.h"

#include "ChartRenderer.h"
#include "ChartView.h"

#include <QChart>
#include <QImageWriter>
#include <QSaveFile>
#include <QWidget>

namespace tb::charts {

ChartPlot::ChartPlot(QChart* chart, Update update) : m_chart(chart), m_update(std::move(update)) {}

ChartPlot::ChartPlot(QWidget* widget, Update update, Render render)
    : m_widget(widget), m_update(std::move(update)), m_render(std::move(render))
{
}

ChartPlot::~ChartPlot()
{
    // What no widget hierarchy took over is still the plot's: a view without a parent (it owns
    // the chart), or a chart that was never shown.
    if (m_widget && !m_widget->parent())
        delete m_widget.data();
    else if (!m_widget && m_chart)
        delete m_chart.data();
}

void ChartPlot::show(const ExperimentResult& result, const ChartOptions& options)
{
    if ((m_chart || m_widget) && m_update)
        m_update(result, options);
}

QChart* ChartPlot::chart() const
{
    return m_chart.data();
}

QWidget* ChartPlot::view()
{
    if (!m_widget && m_chart) {
        auto* v = new ChartView(m_chart.data());
        m_widget = v;
    }
    return m_widget.data();
}

QImage ChartPlot::render(QSize size) const
{
    if (m_chart)
        return ChartRenderer::render(m_chart.data(), size);
    if (m_widget && m_render && !size.isEmpty())
        return m_render(size);
    return {};
}

bool ChartPlot::savePng(const QString& path, QSize size, QString* error) const
{
    if (m_chart)
        return ChartRenderer::savePng(m_chart.data(), path, size, error);
    // A widget plot: written as trainbench-cli always wrote the parallel coordinates.
    const QImage img = render(size);
    QSaveFile f(path);
    if (img.isNull() || !f.open(QIODevice::WriteOnly) || !img.save(&f, "PNG") || !f.commit()) {
        if (error)
            *error = QStringLiteral("cannot write PNG '%1': %2")
                         .arg(path, img.isNull() ? QStringLiteral("nothing to render") : f.errorString());
        return false;
    }
    return true;
}

} // namespace tb::charts
