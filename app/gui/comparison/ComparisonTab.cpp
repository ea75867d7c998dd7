#include "ComparisonTab.h"

#include <engine/ExperimentKind.h>

#include "ComparisonPanel.h"
#include "SweepResultView.h"

#include <engine/ExperimentRunner.h>
#include <engine/PluginRegistry.h>
#include <engine/StoredRuns.h>
#include <store/RunStore.h>

#include <QJsonObject>
#include <QLabel>
#include <QSet>
#include <QSplitter>
#include <QVBoxLayout>

namespace tb::gui {

ComparisonTab::ComparisonTab(const PluginRegistry& registry, QWidget* parent) : QWidget(parent), m_registry(registry)
{
    auto* layout = new QVBoxLayout(this);
    m_caption = new QLabel;
    QFont f = m_caption->font();
    f.setBold(true);
    m_caption->setFont(f);
    layout->addWidget(m_caption);
    m_splitter = new QSplitter(Qt::Vertical);
    m_sweep = new SweepResultView;
    m_panel = new ComparisonPanel;
    m_splitter->addWidget(m_sweep);
    m_splitter->addWidget(m_panel);
    // Charts and tables about evenly: the result matrix needs its rows visible.
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 1);
    layout->addWidget(m_splitter, 1);
    clear();
}

QString ComparisonTab::caption() const
{
    return m_caption->text();
}

void ComparisonTab::clear()
{
    m_caption->setText(tr("Nothing to compare yet: run an experiment with repeats or a param sweep, or pick runs in "
                          "the run browser and press Compare."));
    show({});
}

void ComparisonTab::show(const QList<AlgorithmCurves>& curves, const QList<AlgorithmCurves>& selection)
{
    m_sweep->setCurves(curves, selection);
    m_panel->setCurves(curves);
}

QList<AlgorithmCurves> ComparisonTab::liveConfigurations(const ExperimentSpec& spec,
                                                        const QList<charts::CurveSeriesData>& curves) const
{
    // The kind's configurations, as its runner labels them; a kind of summary points has none.
    const ExperimentKind* kind = ExperimentKinds::find(spec.kind);
    QList<AlgorithmCurves> shown = kind ? kind->configurations(spec, &m_registry) : QList<AlgorithmCurves>{};
    for (AlgorithmCurves& c : shown)
        if (!kind->comparesConfigurations())
            c.dataset = QStringLiteral("data set");
    for (AlgorithmCurves& c : shown)
        for (const charts::CurveSeriesData& d : curves)
            if (d.label == c.label && d.algorithmId == c.algorithmId) {
                // Live: every run so far counts, the one training too (its value is its latest
                // checkpoint); the finished result replaces this with the runs' real statuses.
                c.repeats = d.repeats;
                c.clock = d.clock;
                for (int r = 0; r < d.repeats.size(); ++r) {
                    c.statuses << RunStatus::Finished;
                    c.infos << QJsonObject();
                    c.seeds << std::uint64_t(r);
                    c.repeatNumbers << r;
                }
                break;
            }
    return shown;
}

void ComparisonTab::showLive(const ExperimentSpec& spec, const QList<charts::CurveSeriesData>& curves,
                             const QList<AlgorithmCurves>& selection)
{
    const QList<AlgorithmCurves> shown = liveConfigurations(spec, curves);
    if (shown.isEmpty()) {
        clear();
        return;
    }
    m_caption->setText(tr("Live: %1 — %2").arg(spec.name, spec.kind));
    show(shown, selection); // a tuned comparison's trials so far: its tuning charts, live
}

void ComparisonTab::showLiveSuite(const ExperimentSpec& suite, const QList<LiveSuiteSet>& sets)
{
    QList<AlgorithmCurves> shown;
    int started = 0;
    for (int i = 0; i < sets.size(); ++i) {
        if (!sets[i].started)
            continue;
        ++started;
        // Named by the set, as the finished suite's result names them (SuiteResult::merged).
        for (AlgorithmCurves c : liveConfigurations(sets[i].spec, sets[i].curves)) {
            c.dataset = sets[i].name;
            c.datasetIndex = i;
            shown << c;
        }
    }
    if (shown.isEmpty()) {
        clear();
        return;
    }
    m_caption->setText(tr("Live: suite %1 — %2, %3 of %4 data sets started")
                           .arg(suite.name, suite.kind)
                           .arg(started)
                           .arg(sets.size()));
    show(shown);
}

void ComparisonTab::showResult(const ExperimentResult& result, const QString& caption)
{
    if (result.curves.isEmpty()) {  // summary points only (a noise sweep): nothing to pair
        clear();
        return;
    }
    m_caption->setText(caption);
    show(result.curves, result.selection);
}

int ComparisonTab::showRuns(RunStore& store, const QList<qint64>& runIds)
{
    const QSet<qint64> wanted(runIds.begin(), runIds.end());
    QList<qint64> experiments;
    for (qint64 id : runIds)
        if (const auto run = store.run(id); run && !experiments.contains(run->experimentId))
            experiments << run->experimentId;
    // Sets of one suite: one configuration across the sets, each set's curves named by the set.
    const QString suite = commonSuite(store, experiments);
    QList<AlgorithmCurves> curves, selection;
    int shown = 0;
    for (qint64 e : experiments) {
        QString error;
        const auto result = StoredRuns::experiment(store, e, &error);
        if (!result || (result->curves.isEmpty() && result->selection.isEmpty()))
            continue;
        const int configurations = int(result->curves.size());
        const QList<AlgorithmCurves> all = result->curves + result->selection;
        for (int ci = 0; ci < all.size(); ++ci) {
            const AlgorithmCurves& c = all[ci];
            AlgorithmCurves kept = c;
            kept.repeats.clear();
            kept.statuses.clear();
            kept.infos.clear();
            kept.repeatNumbers.clear();
            kept.runIds.clear();
            kept.seeds.clear();
            for (int r = 0; r < c.runIds.size(); ++r)
                if (wanted.contains(c.runIds[r])) {
                    kept.repeats << c.repeats.value(r);
                    kept.statuses << c.statuses.value(r);
                    kept.infos << c.infos.value(r);
                    kept.repeatNumbers << c.repeatNumbers.value(r);
                    kept.runIds << c.runIds[r];
                    kept.seeds << c.seeds.value(r);
                }
            if (kept.runIds.isEmpty())
                continue;
            // Runs of several experiments: the experiment tells equal labels apart.
            if (experiments.size() > 1 && suite.isEmpty()) {
                const QString suffix = QStringLiteral(" (exp %1)").arg(e);
                kept.label += suffix;
                kept.configuration = (kept.configuration.isEmpty() ? c.label : kept.configuration) + suffix;
            }
            shown += int(kept.runIds.size());
            (ci < configurations ? curves : selection) << kept; // a tuned comparison's trials draw its tuning charts
        }
    }
    m_caption->setText(suite.isEmpty() ? tr("%n picked run(s)", nullptr, shown)
                                       : tr("Suite %1: %2 picked runs on %3 data sets")
                                             .arg(suite)
                                             .arg(shown)
                                             .arg(experiments.size()));
    show(curves, selection);
    return shown;
}

QString ComparisonTab::commonSuite(const RunStore& store, const QList<qint64>& experiments)
{
    if (experiments.size() < 2)
        return {};
    QString suite;
    QStringList sets;
    for (qint64 id : experiments) {
        const auto e = store.experiment(id);
        const QJsonObject place = e ? e->spec.value(QStringLiteral("suite_set")).toObject() : QJsonObject{};
        const QString name = place.value(QStringLiteral("suite")).toString();
        const QString set = place.value(QStringLiteral("set")).toString();
        // Two experiments of one set (a re-run) would mix their runs under one name: not one suite's sets.
        if (name.isEmpty() || set.isEmpty() || (!suite.isEmpty() && name != suite) || sets.contains(set))
            return {};
        suite = name;
        sets << set;
    }
    return suite;
}

} // namespace tb::gui
