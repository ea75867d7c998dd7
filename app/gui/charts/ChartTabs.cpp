#include "ChartTabs.h"

#include "widgets/ElidedLabel.h"

#include <ChartRenderer.h>
#include <ChartView.h>

#include <QActionGroup>
#include <QMenu>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include <iterator>

namespace tb::gui {

ChartTabs::ChartTabs(QWidget* parent) : QWidget(parent)
{
    using charts::LearningCurveChart;
    m_time = new LearningCurveChart(LearningCurveChart::Metric::Accuracy, LearningCurveChart::XAxis::TrainTime);
    m_epoch = new LearningCurveChart(LearningCurveChart::Metric::Accuracy, LearningCurveChart::XAxis::Epoch);
    m_loss = new LearningCurveChart(LearningCurveChart::Metric::Loss, LearningCurveChart::XAxis::TrainTime);
    m_sweep = new charts::NoiseSweepChart;

    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    for (QChart* c : {static_cast<QChart*>(m_time), static_cast<QChart*>(m_epoch), static_cast<QChart*>(m_loss),
                      static_cast<QChart*>(m_sweep)}) {
        auto* view = new charts::ChartView(c);
        view->setToolTip(tr("Drag to zoom in, right-click to zoom out, wheel to zoom, double-click to show all"));
        m_views << view;
        m_tabs->addTab(view, QString());
    }

    m_caption = new ElidedLabel(tr("No experiment yet: choose a data set and algorithms, then Run."), this);
    // Display options in one menu: the bar stays narrow enough for a 1024-pixel screen.
    auto* options = new QToolButton(this);
    options->setText(tr("Display"));
    options->setObjectName(QStringLiteral("chartDisplayButton"));
    options->setPopupMode(QToolButton::InstantPopup);
    options->setToolTip(tr("Log axes, train/test lines, ± std bands, export"));
    auto* menu = new QMenu(options);
    m_logTime = menu->addAction(tr("Log time axis"));
    m_logTime->setCheckable(true);
    m_logTime->setToolTip(tr("Training time on a log10 axis (time and loss charts)"));
    m_logY = menu->addAction(tr("Log y axis"));
    m_logY->setCheckable(true);
    m_logY->setToolTip(tr("Metric on a log10 axis: RMSE that spans decades (BPLS: 1e-14 at σ = 0)"));
    menu->addSeparator();
    m_showTrain = menu->addAction(tr("Show train lines"));
    m_showTrain->setCheckable(true);
    m_showTrain->setChecked(true);
    m_showTest = menu->addAction(tr("Show test lines"));
    m_showTest->setCheckable(true);
    m_showTest->setChecked(true);
    menu->addSeparator();
    auto* bands = menu->addMenu(tr("± std bands"));
    auto* bandGroup = new QActionGroup(bands);
    const std::pair<QString, charts::BandedLineChart::BandMode> modes[] = {
        {tr("Automatic (all for up to 3 algorithms, else the one under the mouse)"), charts::BandedLineChart::BandMode::Auto},
        {tr("All"), charts::BandedLineChart::BandMode::All},
        {tr("Only the one under the mouse"), charts::BandedLineChart::BandMode::Hovered},
        {tr("None"), charts::BandedLineChart::BandMode::None}};
    for (const auto& [text, mode] : modes) {
        QAction* a = bands->addAction(text);
        a->setCheckable(true);
        a->setChecked(mode == charts::BandedLineChart::BandMode::Auto);
        bandGroup->addAction(a);
        const auto m = mode;
        connect(a, &QAction::triggered, this, [this, m] { setBandMode(m); });
    }
    menu->addSeparator();
    menu->addAction(tr("Legend: click an entry to hide or show its line"))->setEnabled(false);
    options->setMenu(menu);
    auto* reset = new QToolButton(this);
    reset->setText(tr("Reset zoom"));
    reset->setToolTip(tr("Show all data again (also: double-click the chart)"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_caption, 1);
    bar->addWidget(options);
    bar->addWidget(reset);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_tabs, 1);

    connect(m_logTime, &QAction::toggled, this, &ChartTabs::setLogTime);
    connect(m_logY, &QAction::toggled, this, &ChartTabs::setLogY);
    connect(m_showTrain, &QAction::toggled, this, [this](bool on) { setLinesShown(on, m_showTest->isChecked()); });
    connect(m_showTest, &QAction::toggled, this, [this](bool on) { setLinesShown(m_showTrain->isChecked(), on); });
    connect(m_tabs, &QTabWidget::currentChanged, this, &ChartTabs::refreshCurrent);
    connect(reset, &QToolButton::clicked, this, &ChartTabs::resetZoom);
    renameTabs();
}

void ChartTabs::setTask(bool classification)
{
    if (classification == m_classification)
        return;
    m_classification = classification;
    const auto metric = classification ? charts::LearningCurveChart::Metric::Accuracy
                                       : charts::LearningCurveChart::Metric::Rmse;
    m_time->setMetric(metric);
    m_epoch->setMetric(metric);
    renameTabs();
}

void ChartTabs::setCurves(const QList<charts::CurveSeriesData>& curves)
{
    // Only the chart in view is rebuilt now; the others when their tab is opened. Live updates
    // then cost one chart's work, not three, on the GUI thread (and on the cores that train).
    m_curves = curves;
    m_dirty[TimeTab] = m_dirty[EpochTab] = m_dirty[LossTab] = true;
    refreshCurrent();
}

void ChartTabs::setSweep(const QList<SweepPoint>& points)
{
    m_points = points;
    m_dirty[SweepTab] = true;
    refreshCurrent();
}

void ChartTabs::refreshCurrent()
{
    const int i = m_tabs->currentIndex();
    if (i < 0 || i >= int(std::size(m_dirty)) || !m_dirty[i])
        return;
    m_dirty[i] = false;
    switch (i) {
    case TimeTab:
        m_time->setData(m_curves);
        break;
    case EpochTab:
        m_epoch->setData(m_curves);
        break;
    case LossTab:
        m_loss->setData(m_curves);
        break;
    case SweepTab:
        m_sweep->setData(m_points);
        break;
    }
}

void ChartTabs::refreshAll()
{
    m_time->setData(m_curves);
    m_epoch->setData(m_curves);
    m_loss->setData(m_curves);
    m_sweep->setData(m_points);
    for (bool& d : m_dirty)
        d = false;
}

void ChartTabs::clear()
{
    setCurves({});
    setSweep({});
    resetZoom();
}

void ChartTabs::setCaption(const QString& text)
{
    m_caption->setFullText(text);
}

QString ChartTabs::caption() const
{
    return m_caption->fullText();
}

void ChartTabs::showKind(bool noiseSweep)
{
    if (noiseSweep)
        m_tabs->setCurrentIndex(SweepTab);
    else if (m_tabs->currentIndex() == SweepTab)
        m_tabs->setCurrentIndex(TimeTab);
}

void ChartTabs::setLogTime(bool on)
{
    if (m_logTime->isChecked() != on)
        m_logTime->setChecked(on); // re-enters through toggled()
    const auto x = on ? charts::LearningCurveChart::XAxis::TrainTimeLog : charts::LearningCurveChart::XAxis::TrainTime;
    if (m_time->xAxisKind() != x) {
        m_time->setXAxisKind(x);
        m_loss->setXAxisKind(x);
    }
}

bool ChartTabs::logTime() const
{
    return m_logTime->isChecked();
}

QList<charts::BandedLineChart*> ChartTabs::allCharts() const
{
    return {m_time, m_epoch, m_loss, m_sweep};
}

void ChartTabs::setLogY(bool on)
{
    if (m_logY->isChecked() != on)
        m_logY->setChecked(on);
    for (auto* c : allCharts())
        c->setYLog(on);
}

bool ChartTabs::logY() const
{
    return m_logY->isChecked();
}

void ChartTabs::setLinesShown(bool train, bool test)
{
    if (m_showTrain->isChecked() != train)
        m_showTrain->setChecked(train);
    if (m_showTest->isChecked() != test)
        m_showTest->setChecked(test);
    for (auto* c : allCharts()) {
        c->setSuffixVisible(QStringLiteral("train"), train);
        c->setSuffixVisible(QStringLiteral("test"), test);
    }
}

void ChartTabs::setBandMode(charts::BandedLineChart::BandMode mode)
{
    for (auto* c : allCharts())
        c->setBandMode(mode);
}

bool ChartTabs::saveImage(const QString& path, const QString& title, const QStringList& settings, QString* error)
{
    refreshCurrent(); // a chart out of date since its tab was last shown
    return charts::ChartRenderer::saveWithHeader(currentView()->chart(), path, title, settings,
                                                 charts::ChartRenderer::defaultSize(), error);
}

bool ChartTabs::savePng(const QString& path, QString* error)
{
    refreshCurrent(); // a chart out of date since its tab was last shown
    return charts::ChartRenderer::savePng(currentView()->chart(), path, charts::ChartRenderer::defaultSize(), error);
}

charts::ChartView* ChartTabs::currentView() const
{
    return m_views.value(m_tabs->currentIndex(), m_views.first());
}

void ChartTabs::resetZoom()
{
    for (auto* v : m_views)
        v->resetZoom();
}

void ChartTabs::renameTabs()
{
    const QString metric = m_classification ? tr("Accuracy") : tr("RMSE");
    m_tabs->setTabText(TimeTab, tr("%1 vs time").arg(metric));
    m_tabs->setTabText(EpochTab, tr("%1 vs epoch").arg(metric));
    m_tabs->setTabText(LossTab, tr("Loss vs time"));
    m_tabs->setTabText(SweepTab, tr("RMSE vs σ"));
}

} // namespace tb::gui
