#include "SweepResultView.h"

#include <charts/ChartPlot.h>
#include <charts/ChartRegistry.h>
#include <charts/ChartRenderer.h>
#include <charts/FeatureFrontierChart.h>
#include <charts/FrontierChart.h>
#include <charts/ParallelCoordinatesView.h>
#include <charts/ParamSweepChart.h>

#include <QChart>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

namespace tb::gui {

SweepResultView::SweepResultView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    m_metric = new QComboBox;
    for (const QString& key : RunMetric::keys())
        m_metric->addItem(RunMetric::label(*RunMetric::fromKey(key)), key);
    m_parameter = new QComboBox;
    m_parameter->setToolTip(tr("The swept parameter on the x axis"));
    bar->addWidget(new QLabel(tr("Metric")));
    bar->addWidget(m_metric);
    bar->addWidget(new QLabel(tr("Parameter")));
    bar->addWidget(m_parameter);
    bar->addStretch(1);
    layout->addLayout(bar);
    m_tabs = new QTabWidget;
    // One tab per chart of the Comparison tab's place, in the registry's order.
    for (const charts::ChartEntry* entry : charts::ChartRegistry::entries(charts::ChartPlace::Comparison)) {
        Tab tab;
        tab.entry = entry;
        tab.plot = entry->build(charts::ChartOptions());
        const int i = m_tabs->addTab(tab.plot->view(), entry->title(charts::ChartOptions()));
        m_tabs->setTabToolTip(i, entry->toolTip);
        m_tabList.push_back(std::move(tab));
    }
    layout->addWidget(m_tabs, 1);

    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { refreshCurrent(); });
    connect(m_metric, &QComboBox::activated, this, [this] {
        m_metricChosen = true;
        markAllDirty();
        refreshCurrent();
    });
    connect(m_parameter, &QComboBox::activated, this, [this] {
        // Only the chart drawn against the parameter changes.
        for (Tab& t : m_tabList)
            if (t.entry->exportParameters)
                t.dirty = true;
        refreshCurrent();
    });
}

SweepResultView::~SweepResultView() = default;

MetricId SweepResultView::metric() const
{
    return RunMetric::fromKey(m_metric->currentData().toString()).value_or(MetricId::TestAccuracy);
}

void SweepResultView::setMetric(MetricId metric)
{
    m_metric->setCurrentIndex(m_metric->findData(RunMetric::key(metric)));
    m_metricChosen = true;
    markAllDirty();
    refreshCurrent();
}

QString SweepResultView::parameter() const
{
    return m_parameter->currentText();
}

void SweepResultView::setParameter(const QString& key)
{
    const int i = m_parameter->findText(key);
    if (i >= 0) {
        m_parameter->setCurrentIndex(i);
        for (Tab& t : m_tabList)
            if (t.entry->exportParameters)
                t.dirty = true;
        refreshCurrent();
    }
}

void SweepResultView::setCurves(const QList<AlgorithmCurves>& curves, const QList<AlgorithmCurves>& selection)
{
    m_data.curves = curves;
    m_data.selection = selection;
    if (!m_metricChosen && !curves.isEmpty())
        m_metric->setCurrentIndex(m_metric->findData(RunMetric::key(RunMetric::defaultFor(curves))));
    const QStringList params = charts::ParamSweepChart::numericParameters(curves);
    const QString keep = m_parameter->currentText();
    QStringList shown;
    for (int i = 0; i < m_parameter->count(); ++i)
        shown << m_parameter->itemText(i);
    if (shown != params) {
        m_parameter->clear();
        m_parameter->addItems(params);
        if (params.contains(keep))
            m_parameter->setCurrentText(keep);
    }
    // Tabs follow whether their chart applies, in order. Without a numeric swept parameter the
    // frontier says most; a sweep brings its chart (the first tab) back.
    const int frontier = indexOf(QStringLiteral("frontier"));
    const int across = indexOf(QStringLiteral("critical-difference"));
    const bool hadAcross = across >= 0 && m_tabs->isTabEnabled(across);
    for (int i = 0; i < int(m_tabList.size()); ++i) {
        const bool on = m_tabList[i].entry->applies(m_data);
        const bool had = m_tabs->isTabEnabled(i);
        m_tabs->setTabEnabled(i, on);
        if (!on && m_tabs->currentIndex() == i && frontier >= 0)
            m_tabs->setCurrentIndex(frontier);
        else if (on && !had && i == 0 && selection.isEmpty()) // a tuned comparison keeps its tuning in front
            m_tabs->setCurrentIndex(0);
    }
    // A suite's point is the comparison across its sets: its diagram comes forward when it begins to apply.
    if (across >= 0 && !hadAcross && m_tabs->isTabEnabled(across))
        m_tabs->setCurrentIndex(across);
    // A tuned comparison's point is its tuning: its chart comes forward when its trials arrive.
    if (const int tuning = indexOf(QStringLiteral("tuning")); tuning >= 0 && !selection.isEmpty() &&
                                                              m_tabs->isTabEnabled(tuning) && !m_showedTuning) {
        m_tabs->setCurrentIndex(tuning);
        m_showedTuning = true;
    }
    if (selection.isEmpty())
        m_showedTuning = false;
    markAllDirty();
    refreshCurrent();
}

void SweepResultView::markAllDirty()
{
    for (Tab& t : m_tabList)
        t.dirty = true;
}

void SweepResultView::refreshCurrent()
{
    const int t = m_tabs->currentIndex();
    if (t < 0 || t >= int(m_tabList.size()) || !m_tabList[t].dirty)
        return;
    m_tabList[t].dirty = false;
    charts::ChartOptions options;
    options.metric = metric();
    options.parameter = parameter();
    m_tabList[t].plot->show(m_data, options);
}

int SweepResultView::indexOf(const QString& id) const
{
    for (int i = 0; i < int(m_tabList.size()); ++i)
        if (m_tabList[i].entry->id == id)
            return i;
    return -1;
}

QObject* SweepResultView::target(const QString& id) const
{
    const int i = indexOf(id);
    if (i < 0)
        return nullptr;
    if (QChart* c = m_tabList[i].plot->chart())
        return c;
    return m_tabs->widget(i);
}

charts::ParamSweepChart* SweepResultView::parameterChart() const
{
    return qobject_cast<charts::ParamSweepChart*>(target(QStringLiteral("metric-vs-parameter")));
}

charts::ParallelCoordinatesView* SweepResultView::parallelView() const
{
    return qobject_cast<charts::ParallelCoordinatesView*>(target(QStringLiteral("parallel-coordinates")));
}

charts::FrontierChart* SweepResultView::frontierChart() const
{
    return qobject_cast<charts::FrontierChart*>(target(QStringLiteral("frontier")));
}

charts::FeatureFrontierChart* SweepResultView::featuresChart() const
{
    return qobject_cast<charts::FeatureFrontierChart*>(target(QStringLiteral("feature-frontier")));
}

bool SweepResultView::savePng(const QString& path, QString* error)
{
    const int t = m_tabs->currentIndex();
    if (t < 0 || t >= int(m_tabList.size())) {
        if (error)
            *error = tr("cannot write PNG '%1': there is no chart").arg(path);
        return false;
    }
    refreshCurrent();
    return m_tabList[t].plot->savePng(path, charts::ChartRenderer::defaultSize(), error);
}

} // namespace tb::gui
