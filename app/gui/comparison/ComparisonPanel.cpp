#include "ComparisonPanel.h"

#include <ComparisonTables.h>

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace tb::gui {

ComparisonPanel::ComparisonPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QHBoxLayout;
    m_metric = new QComboBox;
    for (const QString& key : RunMetric::keys())
        m_metric->addItem(RunMetric::label(*RunMetric::fromKey(key)), key);
    m_metric->setToolTip(tr("What is compared: each run's final value"));
    m_baseline = new QComboBox;
    m_baseline->setToolTip(tr("The configuration every other one is tested against"));
    m_baseline->setMinimumContentsLength(16);
    m_baseline->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_test = new QComboBox;
    m_test->addItem(tr("paired t-test"), int(SignificanceTest::PairedT));
    m_test->addItem(tr("Wilcoxon signed-rank"), int(SignificanceTest::Wilcoxon));
    m_test->setToolTip(tr("Test behind the ▲ / ▼ markers of the result matrix"));
    m_alpha = new QLineEdit(QStringLiteral("0.05"));
    m_alpha->setValidator(new QDoubleValidator(1e-6, 0.5, 6, m_alpha));
    m_alpha->setMaximumWidth(60);
    m_alpha->setToolTip(tr("Significance level α of the markers, (0, 0.5]"));
    m_target = new QLineEdit;
    m_target->setPlaceholderText(tr("reached by all"));
    m_target->setMaximumWidth(110);
    m_target->setToolTip(tr("Time to target: the metric value to reach (accuracy as a fraction, e.g. 0.8). Empty: "
                            "the best value every compared run reaches."));
    controls->addWidget(new QLabel(tr("Metric")));
    controls->addWidget(m_metric);
    controls->addWidget(new QLabel(tr("Baseline")));
    controls->addWidget(m_baseline, 1);
    controls->addWidget(new QLabel(tr("Test")));
    controls->addWidget(m_test);
    controls->addWidget(new QLabel(tr("α")));
    controls->addWidget(m_alpha);
    controls->addWidget(new QLabel(tr("Target")));
    controls->addWidget(m_target);
    auto* copy = new QToolButton;
    copy->setText(tr("Copy as"));
    copy->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(copy);
    const struct {
        QString name;
        TextTable::Format format;
    } formats[] = {{tr("Text"), TextTable::Format::Text},
                   {QStringLiteral("CSV"), TextTable::Format::Csv},
                   {QStringLiteral("Markdown"), TextTable::Format::Markdown},
                   {QStringLiteral("LaTeX"), TextTable::Format::Latex}};
    for (const auto& f : formats) {
        const TextTable::Format format = f.format;
        menu->addAction(f.name, this, [this, format] { QApplication::clipboard()->setText(currentTableText(format)); });
    }
    copy->setMenu(menu);
    controls->addWidget(copy);
    layout->addLayout(controls);

    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_tabs = new QTabWidget;
    const QString names[] = {tr("Result matrix"), tr("Paired tests"), tr("Time to target"), tr("Grid")};
    for (int t = 0; t < 4; ++t) {
        auto* page = new QWidget;
        auto* pl = new QVBoxLayout(page);
        pl->setContentsMargins(2, 2, 2, 2);
        m_views[t] = new QTableWidget;
        m_views[t]->setEditTriggers(QAbstractItemView::NoEditTriggers);
        m_views[t]->setSelectionBehavior(QAbstractItemView::SelectRows);
        m_views[t]->verticalHeader()->setVisible(false);
        m_views[t]->horizontalHeader()->setStretchLastSection(true);
        m_views[t]->setAlternatingRowColors(true);
        m_notes[t] = new QLabel;
        m_notes[t]->setWordWrap(true);
        m_notes[t]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        QFont small = m_notes[t]->font();
        small.setPointSizeF(small.pointSizeF() * 0.9);
        m_notes[t]->setFont(small);
        pl->addWidget(m_views[t], 1);
        pl->addWidget(m_notes[t]);
        m_tabs->addTab(page, names[t]);
    }
    layout->addWidget(m_tabs, 1);

    auto again = [this] {
        if (!m_building)
            rebuild();
    };
    connect(m_metric, &QComboBox::currentIndexChanged, this, again);
    connect(m_baseline, &QComboBox::currentIndexChanged, this, again);
    connect(m_test, &QComboBox::currentIndexChanged, this, again);
    connect(m_alpha, &QLineEdit::editingFinished, this, again);
    connect(m_target, &QLineEdit::editingFinished, this, again);
    clear();
}

MetricId ComparisonPanel::metric() const
{
    return RunMetric::fromKey(m_metric->currentData().toString()).value_or(MetricId::TestAccuracy);
}

void ComparisonPanel::setMetric(MetricId metric)
{
    m_metric->setCurrentIndex(m_metric->findData(RunMetric::key(metric)));
}

QString ComparisonPanel::baseline() const
{
    return m_baseline->currentText();
}

void ComparisonPanel::setBaseline(const QString& configuration)
{
    const int i = m_baseline->findText(configuration);
    if (i >= 0)
        m_baseline->setCurrentIndex(i);
}

double ComparisonPanel::target() const
{
    bool ok = false;
    const double t = m_target->text().trimmed().toDouble(&ok);
    return ok && std::isfinite(t) ? t : NaN;
}

void ComparisonPanel::clear()
{
    setCurves({});
}

void ComparisonPanel::setCurves(const QList<AlgorithmCurves>& curves)
{
    const bool first = m_curves.isEmpty();
    m_curves = curves;
    m_building = true;
    if (first && !curves.isEmpty())
        setMetric(RunMetric::defaultFor(curves));
    const QString keep = m_baseline->currentText();
    m_baseline->clear();
    QStringList names;
    for (const AlgorithmCurves& c : curves)
        if (const QString n = c.configuration.isEmpty() ? c.label : c.configuration; !names.contains(n))
            names << n;
    m_baseline->addItems(names);
    if (names.contains(keep))
        m_baseline->setCurrentText(keep);
    m_building = false;
    rebuild();
}

void ComparisonPanel::rebuild()
{
    const MetricId m = metric();
    const QList<ConfigurationSample> samples = Comparison::samples(m_curves, m);
    bool ok = false;
    double alpha = m_alpha->text().toDouble(&ok);
    if (!ok || !(alpha > 0 && alpha < 1))
        alpha = 0.05;
    const auto test = SignificanceTest(m_test->currentData().toInt());
    const QString base = baseline();
    int finished = 0, excluded = 0;
    bool sweep = false;
    for (const auto& s : samples) {
        finished += int(s.values.size());
        excluded += s.excluded;
        sweep = sweep || !s.setting.isEmpty();
    }
    m_tables[MatrixTab] = ComparisonTables::matrix(Comparison::matrix(samples, m, base, alpha, test), samples);
    m_tables[PairsTab] = ComparisonTables::pairwise(Comparison::pairwise(samples, m, base), m, 0.05, 0.95);
    const MetricId curveMetric = RunMetric::hasCurve(m) ? m : RunMetric::defaultFor(m_curves);
    m_tables[TimeTab] = ComparisonTables::timeToTarget(
        Comparison::timeToTarget(Comparison::samples(m_curves, curveMetric), curveMetric, target(), base));
    m_tables[GridTab] = ComparisonTables::grid(Comparison::grid(samples), m);
    for (int t = 0; t < 4; ++t)
        fill(Tab(t), m_tables[t]);
    m_tabs->setTabEnabled(GridTab, sweep);
    if (m_curves.isEmpty())
        m_summary->setText(tr("Run an experiment with repeats, or pick runs in the run browser and press Compare."));
    else
        m_summary->setText(tr("%n finished run(s) in %1 configuration(s)%2; runs pair by seed.", nullptr, finished)
                               .arg(Comparison::configurations(samples).size())
                               .arg(excluded ? tr(", %n unfinished left out", nullptr, excluded) : QString()));
    Q_EMIT updated();
}

void ComparisonPanel::fill(Tab tab, const TextTable& table)
{
    QTableWidget* v = m_views[tab];
    v->clear();
    v->setColumnCount(int(table.header().size()));
    v->setRowCount(table.rowCount());
    v->setHorizontalHeaderLabels(table.header());
    for (int r = 0; r < table.rowCount(); ++r)
        for (int c = 0; c < table.header().size(); ++c) {
            const QString text = table.rows()[r].value(c).trimmed();
            auto* item = new QTableWidgetItem(text);
            if (c > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            // The markers in colour as well as shape.
            if (text.endsWith(QStringLiteral("▲"))) {
                item->setForeground(QColor(0x00, 0x7A, 0x3D));
                item->setToolTip(tr("significantly better than the baseline"));
            } else if (text.endsWith(QStringLiteral("▼"))) {
                item->setForeground(QColor(0xC0, 0x1C, 0x1C));
                item->setToolTip(tr("significantly worse than the baseline"));
            }
            if (text.endsWith(QStringLiteral("(baseline)"))) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
            }
            v->setItem(r, c, item);
        }
    v->resizeColumnsToContents();
    m_notes[tab]->setText(table.notes().join(QLatin1Char('\n')));
}

QString ComparisonPanel::currentTableText(TextTable::Format format) const
{
    return m_tables[m_tabs->currentIndex()].render(format);
}

} // namespace tb::gui
