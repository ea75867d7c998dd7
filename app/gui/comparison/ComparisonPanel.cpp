#include "ComparisonPanel.h"

#include <engine/AcrossSetsTables.h>
#include <engine/ComparisonTables.h>

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
    m_alpha->setMinimumWidth(m_alpha->fontMetrics().horizontalAdvance(QStringLiteral("0.0500")) + 16);
    m_alpha->setMaximumWidth(m_alpha->minimumWidth() + 20);
    m_alpha->setToolTip(tr("Significance level α of the markers, (0, 0.5]"));
    m_target = new QLineEdit;
    m_target->setPlaceholderText(tr("reached by all"));
    m_target->setMaximumWidth(110);
    m_target->setToolTip(tr("Time to target: the metric value to reach (accuracy as a fraction, e.g. 0.8). Empty: "
                            "the best value every compared run reaches."));
    // Two rows: in one, a 1024×768 screen's centre clipped the baseline and α (").05").
    m_baselineWhy = new QLabel;
    m_baselineWhy->setObjectName(QStringLiteral("baseline_why"));
    m_baselineWhy->setStyleSheet(QStringLiteral("color: gray;"));
    m_baselineWhy->setWordWrap(true); // never what makes the panel wider than a laptop's centre
    auto* first = new QHBoxLayout;
    first->addWidget(new QLabel(tr("Metric")));
    first->addWidget(m_metric);
    first->addWidget(new QLabel(tr("Baseline")));
    first->addWidget(m_baseline, 1);
    first->addWidget(m_baselineWhy, 1);
    layout->addLayout(first);
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
    controls->addStretch(1);
    layout->addLayout(controls);

    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_tabs = new QTabWidget;
    const QString names[TabCount] = {tr("Result matrix"), tr("Paired tests"), tr("Time to target"), tr("Grid"),
                                     tr("At common times"), tr("Per data set"), tr("Ranks")};
    for (int t = 0; t < TabCount; ++t) {
        auto* page = new QWidget;
        auto* pl = new QVBoxLayout(page);
        pl->setContentsMargins(2, 2, 2, 2);
        m_views[t] = new QTableWidget;
        m_views[t]->setEditTriggers(QAbstractItemView::NoEditTriggers);
        m_views[t]->setSelectionBehavior(QAbstractItemView::SelectRows);
        m_views[t]->verticalHeader()->setVisible(false);
        m_views[t]->horizontalHeader()->setStretchLastSection(true);
        m_views[t]->setAlternatingRowColors(true);
        // At least seven rows in sight: the page scrolls rather than squeeze a table to two.
        m_views[t]->setMinimumHeight(m_views[t]->verticalHeader()->defaultSectionSize() * 7 +
                                     m_views[t]->horizontalHeader()->sizeHint().height() + 4);
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
    // A configuration per column: a stretched last one would set its scores far from the others.
    for (Tab t : {PerSetTab, RanksTab})
        m_views[t]->horizontalHeader()->setStretchLastSection(false);
    layout->addWidget(m_tabs, 1);

    auto again = [this] {
        if (!m_building)
            rebuild();
    };
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        if (m_building)
            return;
        if (!m_userBaseline) { // the best on the new metric
            QString why;
            const QString best = defaultBaseline(&why);
            m_building = true;
            m_baseline->setCurrentText(best);
            m_building = false;
            m_baselineWhy->setText(why);
        }
        rebuild();
    });
    connect(m_baseline, &QComboBox::currentIndexChanged, this, again);
    connect(m_baseline, &QComboBox::activated, this, [this] {
        m_userBaseline = true; // the user's choice is kept while it applies
        m_baselineWhy->clear();
    });
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
    if (i >= 0) {
        m_userBaseline = true;
        m_baselineWhy->clear();
        m_baseline->setCurrentIndex(i);
    }
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
    if (curves.isEmpty())
        m_userBaseline = false;
    if (m_userBaseline && names.contains(keep)) {
        m_baseline->setCurrentText(keep);
        m_baselineWhy->clear();
    } else {
        QString why;
        const QString best = defaultBaseline(&why);
        m_baseline->setCurrentText(best);
        m_baselineWhy->setText(why);
    }
    m_building = false;
    rebuild();
}

QString ComparisonPanel::defaultBaseline(QString* why) const
{
    // The first configuration was the default: often the worst, so every row got ▲. The best on
    // the validation split is what a reviewer accepts; on test only when there is no validation
    // split, and said so.
    const MetricId m = metric();
    MetricId select = m;
    if (const auto v = RunMetric::validationOf(m); v && RunMetric::anyMeasured(*v, m_curves))
        select = *v;
    const bool higher = RunMetric::better(select) == stats::Better::Higher;
    QString best;
    double bestMean = NaN;
    for (const ConfigurationSample& s : Comparison::samples(m_curves, select)) {
        double sum = 0;
        int n = 0;
        for (double x : s.values)
            if (std::isfinite(x)) {
                sum += x;
                ++n;
            }
        if (n == 0)
            continue;
        const double mean = sum / n;
        if (!std::isfinite(bestMean) || (higher ? mean > bestMean : mean < bestMean)) {
            bestMean = mean;
            best = s.configuration;
        }
    }
    if (best.isEmpty()) {
        if (why)
            why->clear();
        return m_baseline->count() > 0 ? m_baseline->itemText(0) : QString();
    }
    if (why)
        *why = select == m && RunMetric::validationOf(m) ? tr("best on %1 (no validation split)").arg(RunMetric::label(select))
                                                         : tr("best on %1").arg(RunMetric::label(select));
    return best;
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
    const QList<ConfigurationSample> curveSamples = Comparison::samples(m_curves, curveMetric);
    m_tables[AtTimesTab] = ComparisonTables::atTimes(Comparison::atTimes(curveSamples, curveMetric, {1, 10, 30, 150}), 0.95);
    // Across data sets (a suite): each set ranked on its own task's default metric, as the
    // critical-difference diagram ranks them, so the table and the diagram agree.
    ExperimentResult runs;
    runs.curves = m_curves;
    const bool across = AcrossSets::applies(runs);
    if (across) {
        const AcrossSetsResult r = AcrossSets::compute(AcrossSets::samples(m_curves), std::nullopt, QString(), alpha);
        m_tables[PerSetTab] = AcrossSetsTables::perSet(r);
        m_tables[RanksTab] = AcrossSetsTables::ranks(r);
        m_tables[PerSetTab].addNote(tr("Each set is ranked on its task's default metric (test accuracy, or test RMSE "
                                       "for regression), whatever the Metric box says; α is the box's."));
    } else {
        m_tables[PerSetTab] = m_tables[RanksTab] = TextTable();
    }
    for (int t = 0; t < TabCount; ++t)
        fill(Tab(t), m_tables[t]);
    m_tabs->setTabEnabled(GridTab, sweep);
    m_tabs->setTabEnabled(PerSetTab, across);
    m_tabs->setTabEnabled(RanksTab, across);
    // A suite's point is the comparison across its sets: it comes forward once, when it begins to apply.
    if (across && !m_acrossSets)
        m_tabs->setCurrentIndex(PerSetTab);
    else if (!across && (m_tabs->currentIndex() == PerSetTab || m_tabs->currentIndex() == RanksTab))
        m_tabs->setCurrentIndex(MatrixTab);
    m_acrossSets = across;
    if (m_curves.isEmpty())
        m_summary->setText(tr("Run an experiment with repeats, or pick runs in the run browser and press Compare."));
    else {
        // What the comparison selects, and where: on validation, reported on test.
        QStringList selected;
        for (const Selection& s : Comparison::select(curveSamples, curveMetric))
            selected << tr("%1: %2 (%3 %4)")
                            .arg(s.dataset, s.configuration, RunMetric::label(s.metric),
                                 RunMetric::formatMeanStd(s.metric, s.reported.mean, s.reported.std));
        const MetricId on = Comparison::selectionMetric(curveSamples, curveMetric);
        const QString where = on != curveMetric ? tr("Best on %1").arg(RunMetric::label(on))
                                                : tr("Best on %1 — selected on test data, the runs have no validation "
                                                     "split")
                                                      .arg(RunMetric::label(on));
        m_summary->setText(tr("%n finished run(s) in %1 configuration(s)%2; runs pair by seed.", nullptr, finished)
                               .arg(Comparison::configurations(samples).size())
                               .arg(excluded ? tr(", %n unfinished left out", nullptr, excluded) : QString()) +
                           (selected.isEmpty() ? QString() : QStringLiteral("\n%1: %2").arg(where, selected.join(QStringLiteral("; ")))));
    }
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
            // A set's winner (AcrossSetsTables::perSet marks it "*"): bold and green.
            if (tab == PerSetTab && c > 1 && text.endsWith(QStringLiteral(" *"))) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
                item->setForeground(QColor(0x00, 0x7A, 0x3D));
                item->setToolTip(tr("the best on this data set"));
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
