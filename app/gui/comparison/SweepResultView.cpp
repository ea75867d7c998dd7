#include "SweepResultView.h"

#include <ChartRenderer.h>
#include <ChartView.h>
#include <Comparison.h>
#include <FeatureFrontierChart.h>
#include <FrontierChart.h>
#include <ParallelCoordinatesView.h>
#include <ParamSweepChart.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSaveFile>
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
    m_paramChart = new charts::ParamSweepChart;
    m_paramView = new charts::ChartView(m_paramChart);
    m_parallel = new charts::ParallelCoordinatesView;
    m_frontier = new charts::FrontierChart;
    m_frontierView = new charts::ChartView(m_frontier);
    m_tabs->addTab(m_paramView, tr("Metric vs parameter"));
    m_tabs->addTab(m_parallel, tr("Parallel coordinates"));
    m_tabs->addTab(m_frontierView, tr("Frontier"));
    m_features = new charts::FeatureFrontierChart;
    m_tabs->addTab(new charts::ChartView(m_features), tr("Features"));
    m_tabs->setTabToolTip(FeaturesTab, tr("Accuracy against training time, point size = number of features "
                                          "(runs that record them: Least Squares Revisited)"));
    layout->addWidget(m_tabs, 1);

    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { refreshCurrent(); });
    connect(m_metric, &QComboBox::activated, this, [this] {
        m_metricChosen = true;
        for (bool& d : m_dirty)
            d = true;
        refreshCurrent();
    });
    connect(m_parameter, &QComboBox::activated, this, [this] {
        m_dirty[ParameterTab] = true;
        refreshCurrent();
    });
}

MetricId SweepResultView::metric() const
{
    return RunMetric::fromKey(m_metric->currentData().toString()).value_or(MetricId::TestAccuracy);
}

void SweepResultView::setMetric(MetricId metric)
{
    m_metric->setCurrentIndex(m_metric->findData(RunMetric::key(metric)));
    m_metricChosen = true;
    for (bool& d : m_dirty)
        d = true;
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
        m_dirty[ParameterTab] = true;
        refreshCurrent();
    }
}

void SweepResultView::setCurves(const QList<AlgorithmCurves>& curves)
{
    m_curves = curves;
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
    // Without a numeric swept parameter the frontier says most; a sweep brings its chart back.
    const bool had = m_tabs->isTabEnabled(ParameterTab);
    m_tabs->setTabEnabled(ParameterTab, !params.isEmpty());
    if (params.isEmpty() && m_tabs->currentIndex() == ParameterTab)
        m_tabs->setCurrentIndex(FrontierTab);
    else if (!params.isEmpty() && !had)
        m_tabs->setCurrentIndex(ParameterTab);
    const bool features = charts::FeatureFrontierChart::hasFeatureCounts(curves);
    m_tabs->setTabEnabled(FeaturesTab, features);
    if (!features && m_tabs->currentIndex() == FeaturesTab)
        m_tabs->setCurrentIndex(FrontierTab);
    for (bool& d : m_dirty)
        d = true;
    refreshCurrent();
}

void SweepResultView::refreshCurrent()
{
    const int t = m_tabs->currentIndex();
    if (t < 0 || t > 3 || !m_dirty[t])
        return;
    m_dirty[t] = false;
    const MetricId m = metric();
    switch (Tab(t)) {
    case ParameterTab:
        if (!parameter().isEmpty())
            m_paramChart->setData(m_curves, parameter(), m);
        break;
    case ParallelTab: m_parallel->setData(m_curves, m); break;
    case FrontierTab: m_frontier->setData(Comparison::frontier(Comparison::samples(m_curves, m), m), m); break;
    case FeaturesTab:
        m_features->setData(m_curves, m == MetricId::TestRmse || m == MetricId::TrainRmse);
        break;
    }
}

bool SweepResultView::savePng(const QString& path, QString* error)
{
    refreshCurrent();
    if (m_tabs->currentIndex() == ParallelTab) {
        QSaveFile f(path);
        if (!f.open(QIODevice::WriteOnly) || !m_parallel->render(charts::ChartRenderer::defaultSize()).save(&f, "PNG") ||
            !f.commit()) {
            if (error)
                *error = tr("cannot write PNG '%1': %2").arg(path, f.errorString());
            return false;
        }
        return true;
    }
    QChart* chart = m_tabs->currentIndex() == ParameterTab  ? static_cast<QChart*>(m_paramChart)
                    : m_tabs->currentIndex() == FeaturesTab ? static_cast<QChart*>(m_features)
                                                            : static_cast<QChart*>(m_frontier);
    return charts::ChartRenderer::savePng(chart, path, charts::ChartRenderer::defaultSize(), error);
}

} // namespace tb::gui
