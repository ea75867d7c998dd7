#include "ChartTabs.h"

#include <engine/ExperimentKind.h>

#include "widgets/ElidedLabel.h"

#include <charts/ChartRegistry.h>
#include <charts/ChartRenderer.h>
#include <charts/ChartView.h>

#include <QActionGroup>
#include <QMenu>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace tb::gui {

ChartTabs::ChartTabs(QWidget* parent) : QWidget(parent)
{
    m_options.classification = true;
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    // One tab per chart of the Charts tab's place, in the registry's order.
    for (const charts::ChartEntry* entry : charts::ChartRegistry::entries(charts::ChartPlace::Curves)) {
        Tab tab;
        tab.entry = entry;
        tab.plot = entry->build(m_options);
        QWidget* view = tab.plot->view();
        if (qobject_cast<charts::ChartView*>(view))
            view->setToolTip(tr("Drag to zoom in, right-click to zoom out, wheel to zoom, double-click to show all"));
        const int i = m_tabs->addTab(view, QString());
        m_tabs->setTabToolTip(i, entry->toolTip);
        m_tabList.push_back(std::move(tab));
    }

    m_caption = new ElidedLabel(tr("No experiment yet: choose a data set and algorithms, then Run."), this);
    // Display options in one menu: the bar stays narrow enough for a 1024-pixel screen.
    auto* options = new QToolButton(this);
    options->setText(tr("Display"));
    options->setObjectName(QStringLiteral("chartDisplayButton"));
    options->setPopupMode(QToolButton::InstantPopup);
    options->setToolTip(tr("Log axes, train/test lines, ± std bands, export"));
    auto* menu = new QMenu(options);
    m_timeMenu = menu->addMenu(tr("Time axis"));
    m_timeMenu->setToolTipsVisible(true);
    m_timeAuto = m_timeMenu->addAction(tr("Automatic"));
    m_timeAuto->setToolTip(tr("Log10 when the training times span more than two decades (BPLS in milliseconds "
                              "beside Adam in seconds), linear otherwise"));
    m_timeLinear = m_timeMenu->addAction(tr("Linear"));
    m_timeLog = m_timeMenu->addAction(tr("Log"));
    m_timeLog->setToolTip(tr("Training time on a log10 axis (time and loss charts)"));
    auto* timeGroup = new QActionGroup(this);
    for (QAction* a : {m_timeAuto, m_timeLinear, m_timeLog}) {
        a->setCheckable(true);
        timeGroup->addAction(a);
    }
    m_timeAuto->setChecked(true);
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

    connect(m_timeAuto, &QAction::triggered, this, [this] { setTimeAxis(std::nullopt); });
    connect(m_timeLinear, &QAction::triggered, this, [this] { setTimeAxis(false); });
    connect(m_timeLog, &QAction::triggered, this, [this] { setTimeAxis(true); });
    connect(m_logY, &QAction::toggled, this, &ChartTabs::setLogY);
    connect(m_showTrain, &QAction::toggled, this, [this](bool on) { setLinesShown(on, m_showTest->isChecked()); });
    connect(m_showTest, &QAction::toggled, this, [this](bool on) { setLinesShown(m_showTrain->isChecked(), on); });
    connect(m_tabs, &QTabWidget::currentChanged, this, &ChartTabs::refreshCurrent);
    connect(reset, &QToolButton::clicked, this, &ChartTabs::resetZoom);
    renameTabs();
}

ChartTabs::~ChartTabs() = default;

void ChartTabs::setTask(bool classification)
{
    if (classification == isClassification())
        return;
    m_options.classification = classification;
    applyOptions();
    renameTabs();
}

void ChartTabs::setCurves(const QList<charts::CurveSeriesData>& curves)
{
    // Only the chart in view is rebuilt now; the others when their tab is opened. Live updates
    // then cost one chart's work, not three, on the GUI thread (and on the cores that train).
    m_data.curves.clear();
    m_data.curves.reserve(curves.size());
    for (const charts::CurveSeriesData& c : curves) {
        AlgorithmCurves a;
        a.label = c.label;
        a.algorithmId = c.algorithmId;
        a.repeats = c.repeats; // implicitly shared: cheap
        a.clock = c.clock;
        m_data.curves << a;
    }
    for (Tab& t : m_tabList)
        t.dirty = true;
    refreshCurrent();
}

void ChartTabs::setSummary(const QList<SummaryPoint>& points, const QString& kind)
{
    m_data.summary = points;
    m_data.kind = kind;
    for (Tab& t : m_tabList)
        t.dirty = true;
    refreshCurrent();
}

void ChartTabs::refreshCurrent()
{
    const int i = m_tabs->currentIndex();
    if (i < 0 || i >= int(m_tabList.size()) || !m_tabList[i].dirty)
        return;
    m_tabList[i].dirty = false;
    m_tabList[i].plot->show(m_data, m_options);
}

void ChartTabs::refreshAll()
{
    for (Tab& t : m_tabList) {
        t.plot->show(m_data, m_options);
        t.dirty = false;
    }
}

void ChartTabs::applyOptions()
{
    refreshAll();
}

void ChartTabs::clear()
{
    setCurves({});
    setSummary({}, QString());
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

void ChartTabs::showKind(const QString& kind)
{
    // The kind names the charts that show its results (ExperimentKind::charts()): stay on the
    // current chart if it is among them or draws such results, else go to the first of them this
    // view has.
    const ExperimentKind* k = ExperimentKinds::find(kind);
    const QStringList ids = k ? k->charts() : QStringList();
    ExperimentResult probe;
    probe.kind = kind;
    const int current = m_tabs->currentIndex();
    if (current >= 0 && current < int(m_tabList.size()) &&
        (ids.contains(m_tabList[current].entry->id) || m_tabList[current].entry->applies(probe)))
        return;
    for (const QString& id : ids)
        for (int i = 0; i < int(m_tabList.size()); ++i)
            if (m_tabList[i].entry->id == id) {
                m_tabs->setCurrentIndex(i);
                return;
            }
}

void ChartTabs::setTimeAxis(std::optional<bool> log)
{
    QAction* want = !log ? m_timeAuto : *log ? m_timeLog : m_timeLinear;
    if (!want->isChecked())
        want->setChecked(true); // the group unchecks the others; checking emits no triggered()
    if (m_options.logTime == log)
        return;
    m_options.logTime = log;
    applyOptions();
}

QList<charts::BandedLineChart*> ChartTabs::allCharts() const
{
    QList<charts::BandedLineChart*> out;
    for (const Tab& t : m_tabList)
        if (auto* c = qobject_cast<charts::BandedLineChart*>(t.plot->chart()))
            out << c;
    return out;
}

int ChartTabs::indexOf(const QString& id) const
{
    for (int i = 0; i < int(m_tabList.size()); ++i)
        if (m_tabList[i].entry->id == id)
            return i;
    return -1;
}

QChart* ChartTabs::chart(const QString& id) const
{
    const int i = indexOf(id);
    return i < 0 ? nullptr : m_tabList[i].plot->chart();
}

charts::LearningCurveChart* ChartTabs::timeChart() const
{
    return qobject_cast<charts::LearningCurveChart*>(chart(QStringLiteral("learning-curve-time")));
}

charts::LearningCurveChart* ChartTabs::epochChart() const
{
    return qobject_cast<charts::LearningCurveChart*>(chart(QStringLiteral("learning-curve-epoch")));
}

charts::LearningCurveChart* ChartTabs::lossChart() const
{
    return qobject_cast<charts::LearningCurveChart*>(chart(QStringLiteral("loss-time")));
}

charts::SummaryChart* ChartTabs::summaryChart() const
{
    return qobject_cast<charts::SummaryChart*>(chart(QStringLiteral("rmse-summary")));
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
    const int i = m_tabs->currentIndex();
    if (i < 0 || i >= int(m_tabList.size())) {
        if (error)
            *error = tr("cannot write '%1': there is no chart").arg(path);
        return false;
    }
    refreshCurrent(); // a chart out of date since its tab was last shown
    const charts::ChartPlot& plot = *m_tabList[i].plot;
    if (plot.chart())
        return charts::ChartRenderer::saveWithHeader(plot.chart(), path, title, settings,
                                                     charts::ChartRenderer::defaultSize(), error);
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        if (error)
            *error = tr("cannot write SVG '%1': the chart “%2” is written as PNG only").arg(path, m_tabs->tabText(i));
        return false;
    }
    return plot.savePng(path, charts::ChartRenderer::defaultSize(), error);
}

bool ChartTabs::savePng(const QString& path, QString* error)
{
    const int i = m_tabs->currentIndex();
    if (i < 0 || i >= int(m_tabList.size())) {
        if (error)
            *error = tr("cannot write PNG '%1': there is no chart").arg(path);
        return false;
    }
    refreshCurrent(); // a chart out of date since its tab was last shown
    return m_tabList[i].plot->savePng(path, charts::ChartRenderer::defaultSize(), error);
}

charts::ChartView* ChartTabs::currentView() const
{
    return qobject_cast<charts::ChartView*>(m_tabs->currentWidget());
}

void ChartTabs::resetZoom()
{
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto* v = qobject_cast<charts::ChartView*>(m_tabs->widget(i)))
            v->resetZoom();
}

void ChartTabs::renameTabs()
{
    for (int i = 0; i < int(m_tabList.size()); ++i)
        m_tabs->setTabText(i, m_tabList[i].entry->title(m_options));
}

} // namespace tb::gui
