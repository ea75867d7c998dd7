#include "TunedRun.h"

#include <engine/CostPrediction.h>
#include <engine/PluginRegistry.h>
#include <engine/PreparedConfiguration.h>
#include <engine/RunMetric.h>
#include <store/RunStore.h>
#include <engine/SelectionCurves.h>

#include <data/DataSource.h>
#include <trainbench/Seeds.h>

#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <tbb/task_arena.h>

namespace tb {
namespace {

QString tunedLabel(const QString& label) { return QStringLiteral("%1 (tuned)").arg(label); }
QString defaultsLabel(const QString& label) { return QStringLiteral("%1 (defaults)").arg(label); }

// The legend labels of @p spec's algorithms, as ExperimentContext::labels() gives them.
QStringList labelsOf(const ExperimentSpec& spec, const PluginRegistry* registry)
{
    QStringList out;
    for (const AlgorithmRun& a : spec.algorithms) {
        const AlgorithmEntry* e = registry ? registry->algorithm(a.id) : nullptr;
        out << (!a.label.isEmpty() ? a.label : (e ? e->info.name : a.id));
    }
    return out;
}

// Algorithm @p a's searched axes: its entry's "search", else its plugin's default space.
QList<SearchAxis> axesOf(const ExperimentSpec& spec, const TuningSection& section, const PluginRegistry* registry, int a)
{
    const AlgorithmEntry* e = registry ? registry->algorithm(spec.algorithms[a].id) : nullptr;
    const ParamSchema schema = e ? e->info.schema : ParamSchema();
    return SearchSpaces::resolve(schema, section.overrides.value(a), section.overridden.value(a, false),
                                 schema.upgrade(spec.algorithms[a].params));
}

// Trials algorithm @p a runs at most: one when it has nothing to search.
int trialsOf(const QList<SearchAxis>& axes, const TuningSection& section) { return axes.isEmpty() ? 1 : section.trialCap(); }

} // namespace

TunedRun::TunedRun(ExperimentContext& ctx, const ExperimentSpec& spec, const TuningSection& section, qint64 experimentId,
                   ExperimentObserver* obs)
    : m_ctx(ctx), m_spec(spec), m_section(section), m_experimentId(experimentId), m_obs(obs),
      m_threads(spec.effectiveThreads())
{
}

QList<AlgorithmCurves> TunedRun::configurations(const ExperimentSpec& spec, const TuningSection& section,
                                                const PluginRegistry* registry)
{
    const QStringList labels = labelsOf(spec, registry);
    QList<AlgorithmCurves> out;
    for (int a = 0; a < spec.algorithms.size(); ++a) {
        AlgorithmCurves c;
        c.algorithmId = spec.algorithms[a].id;
        c.algorithmIndex = a;
        c.dataset = data::DataSource::describe(spec.dataset);
        c.label = c.configuration = tunedLabel(labels[a]);
        out << c;
        if (section.defaults) {
            c.label = c.configuration = defaultsLabel(labels[a]);
            out << c;
        }
    }
    return out;
}

int TunedRun::plannedCells(const ExperimentSpec& spec, const TuningSection& section, const PluginRegistry* registry)
{
    qint64 n = 0;
    for (int a = 0; a < spec.algorithms.size(); ++a) {
        // Without the plugins, an algorithm without a "search" of its own is taken to have a default space.
        const bool searched = registry ? !axesOf(spec, section, registry, a).isEmpty()
                                       : !(section.overridden.value(a, false) && section.overrides.value(a).isEmpty());
        n += (searched ? section.trialCap() : 1) + section.finalSeeds * (section.defaults ? 2 : 1);
    }
    return int(std::min<qint64>(n, std::numeric_limits<int>::max()));
}

ExperimentResult TunedRun::run()
{
    if (m_section.cpuSeconds > 0 && m_ctx.executor().distributes()) {
        m_result.error = QStringLiteral("tuning.cpu_seconds: a CPU-seconds budget decides whether a trial starts from "
                                        "the CPU time of the trials before it, so its trials train in one process: run "
                                        "without --mpi, or give \"tuning.trials\" alone");
        return m_result;
    }
    if (!loadData())
        return m_result;
    planCells();
    if (!checkMemory())
        return m_result;
    if (m_ctx.resuming() && !takeFinished(0, m_rungFirst[1]))
        return m_result;
    if (m_obs)
        m_obs->experimentStarted(m_experimentId, m_spec, int(m_cells.size()));
    tune();
    if (m_ctx.executor().isWorker())
        return m_result; // rank 0 chooses, trains the final runs and writes the experiment's rows
    if (!m_ctx.stop().stopRequested()) {
        choose();
        trainFinals();
    }
    gather(true);
    return m_result;
}

/// The data set, with the validation split the trials are chosen on.
bool TunedRun::loadData()
{
    m_description = data::DataSource::describe(m_spec.dataset);
    m_data = ExperimentContext::loadData(m_spec.dataset, m_spec.baseDir, data::DataOverrides{std::nullopt, m_spec.seed},
                                         QStringLiteral("out of memory while loading the data set (%1)").arg(m_description),
                                         &m_result.error);
    if (!m_data)
        return false;
    if (!m_data->hasValidation()) {
        m_result.error = QStringLiteral("dataset: a tuned comparison chooses on the validation split, and this data set "
                                        "has none: give it \"validation_fraction\" (e.g. 0.2) or \"validation_file\"");
        return false;
    }
    m_result.warnings = m_data->warnings;
    return true;
}

/// Every algorithm's axes, its trials' drawn values, and the cells in order.
void TunedRun::planCells()
{
    const PluginRegistry& registry = m_ctx.registry();
    m_labels = labelsOf(m_spec, &registry);
    const int nAlg = int(m_spec.algorithms.size());
    int cap = 0;
    for (int a = 0; a < nAlg; ++a) {
        m_axes << axesOf(m_spec, m_section, &registry, a);
        m_fixed << m_spec.algorithms[a].params;
        // The searched keys' values when nothing is drawn: the defaults' row.
        const AlgorithmEntry* e = registry.algorithm(m_spec.algorithms[a].id);
        const ParamSchema schema = e ? e->info.schema : ParamSchema();
        const QVariantMap normal = schema.normalise(schema.upgrade(m_fixed[a]), nullptr).value_or(QVariantMap());
        QVariantMap defaults;
        for (const SearchAxis& axis : m_axes[a])
            defaults.insert(axis.key, normal.value(axis.key));
        m_defaults << defaults;
        cap = std::max(cap, trialsOf(m_axes[a], m_section));
        // Successive halving scales the run's time budget, else the integer parameter its plugin
        // counts progress in (ProgressRule: epochs, iterations, sweeps, stages …); an algorithm with
        // neither (a closed-form solver), or nothing to search, trains every trial whole.
        QString resource;
        bool halved = m_section.halvingEta > 0 && !m_axes[a].isEmpty() && m_spec.budgetOf(a).isSet();
        if (m_section.halvingEta > 0 && !m_axes[a].isEmpty() && !halved && e) {
            const ParamSpec* length = schema.find(e->info.progress.parameter);
            if (length && length->type == ParamType::Int) {
                resource = length->key;
                halved = true;
            }
        }
        m_resourceKey << resource;
        m_rungs << (halved ? m_section.rungs() : QList<double>{1.0});
    }
    // Rung 0: every trial, trial-major; rung k: places for the best of rung k − 1, filled by promote(k).
    m_rungFirst.push_back(0);
    for (int t = 0; t < cap; ++t)
        for (int a = 0; a < nAlg; ++a)
            if (t < trialsOf(m_axes[a], m_section)) {
                m_cells.push_back(Cell{a, t, 0, -1, false});
                m_drawn.push_back(SearchSpaces::draw(m_axes[a], m_section.search, m_section.seed, t));
            }
    const int rungs = int(m_section.rungs().size());
    for (int k = 1; k < rungs && m_section.halvingEta > 0; ++k) {
        m_rungFirst.push_back(int(m_cells.size()));
        for (int a = 0; a < nAlg; ++a) {
            if (m_rungs[a].size() <= k)
                continue;
            int places = trialsOf(m_axes[a], m_section);
            for (int j = 1; j <= k; ++j)
                places = m_section.promoted(places);
            for (int j = 0; j < places; ++j) {
                m_cells.push_back(Cell{a, -1, k, -1, false});
                m_drawn.push_back(QVariantMap());
            }
        }
    }
    m_trialCells = int(m_cells.size());
    m_rungFirst.push_back(m_trialCells);
    for (int a = 0; a < nAlg; ++a) {
        for (int f = 0; f < m_section.finalSeeds; ++f)
            m_cells.push_back(Cell{a, -1, -1, f, false});
        if (m_section.defaults)
            for (int f = 0; f < m_section.finalSeeds; ++f)
                m_cells.push_back(Cell{a, -1, -1, f, true});
    }
    m_results.assign(m_cells.size(), RunResult());
    m_ran.assign(m_cells.size(), 0);
    m_outcome.assign(m_cells.size(), Outcome::Pending);
    m_cpuUsed.assign(size_t(nAlg), 0.0);
    m_trialsDone.assign(size_t(nAlg), 0);
    m_chosen.assign(size_t(nAlg), QVariantMap());
    m_chosenTrial.assign(size_t(nAlg), -1);
}

/// Every trial's and every default's working memory (one run at a time).
bool TunedRun::checkMemory()
{
    QList<MemoryCheck::Demand> demands;
    const ProblemShape shape = CostPrediction::shapeOf(m_data->train);
    for (int i = 0; i < m_rungFirst[1]; ++i) // rung 0 (a later rung's runs are the same settings, longer)
        demands << MemoryCheck::Demand{jobOf(i, false).label, m_spec.algorithms[m_cells[size_t(i)].algorithm].id, paramsOf(i),
                                       shape, 1};
    for (int a = 0; a < m_spec.algorithms.size(); ++a)
        demands << MemoryCheck::Demand{defaultsLabel(m_labels[a]), m_spec.algorithms[a].id, m_fixed[a], shape, 1};
    return m_ctx.refuseOverMemory(demands, m_threads, m_result);
}

QVariantMap TunedRun::paramsOf(int i) const
{
    const Cell& c = m_cells[size_t(i)];
    QVariantMap p = m_fixed[c.algorithm];
    const QVariantMap& drawn = c.isTrial() ? m_drawn[size_t(i)] : c.defaults ? QVariantMap() : m_chosen[size_t(c.algorithm)];
    for (auto it = drawn.begin(); it != drawn.end(); ++it)
        p.insert(it.key(), it.value());
    const double fraction = c.isTrial() ? m_rungs[c.algorithm].value(c.rung, 1.0) : 1.0;
    const QString& key = m_resourceKey[c.algorithm];
    if (fraction < 1 && !key.isEmpty()) {
        // A rung's share of the epochs (or iterations): of the value written or drawn, else the default.
        const AlgorithmEntry* e = m_ctx.registry().algorithm(m_spec.algorithms[c.algorithm].id);
        if (e) {
            p = e->info.schema.upgrade(p);
            const double whole = (p.contains(key) ? p.value(key) : e->info.schema.find(key)->defaultValue).toDouble();
            p.insert(key, qlonglong(std::max(1.0, std::round(whole * fraction))));
        }
    }
    return p;
}

QString TunedRun::phaseOf(int i) const
{
    const Cell& c = m_cells[size_t(i)];
    return c.isTrial() ? QStringLiteral("trial") : c.defaults ? QStringLiteral("default") : QStringLiteral("final");
}

RunJob TunedRun::jobOf(int i, bool prepare) const
{
    const Cell& c = m_cells[size_t(i)];
    const QString& label = m_labels[c.algorithm];
    RunJob job;
    job.algorithmId = m_spec.algorithms[c.algorithm].id;
    const bool halved = c.isTrial() && m_rungs[c.algorithm].size() > 1;
    job.label = c.isTrial() ? (halved ? QStringLiteral("%1 trial %2, rung %3").arg(label).arg(c.trial).arg(c.rung)
                                      : QStringLiteral("%1 trial %2").arg(label).arg(c.trial))
                : c.defaults ? defaultsLabel(label)
                             : tunedLabel(label);
    job.params = paramsOf(i);
    if (prepare)
        job.prepared = m_ctx.registry().prepared(job.algorithmId, job.params);
    // A trial's every rung trains with the trial's seed: a promoted trial is the same run, longer.
    job.repeat = c.isTrial() ? c.trial : m_section.trialCap() + c.finalSeed;
    job.seed = deriveSeed(m_spec.seed, std::uint64_t(job.repeat));
    job.data = m_data;
    job.datasetDescription = m_description;
    job.budget = m_spec.budgetOf(c.algorithm);
    if (halved && m_resourceKey[c.algorithm].isEmpty())
        job.budget.seconds *= m_rungs[c.algorithm][c.rung];
    job.experimentId = m_experimentId;
    job.threads = m_threads;
    job.measureCpu = true; // the tuning budget's clock; one run at a time, so the process's CPU is the run's
    // A trial is chosen on its final model: the host evaluates it once, after fit(), not at every
    // checkpoint (which cost more than the training of a small trial); the final runs keep their curves.
    job.evaluateCheckpoints = !c.isTrial();
    // Nor is a trial's peak memory measured (returning freed memory to the system and resetting the
    // kernel's high-water mark before each run cost ~0.5 ms a trial): the final runs measure theirs.
    job.measureMemory = !c.isTrial();
    if (c.isTrial())
        job.memoryNote = QStringLiteral("a tuned comparison's trial: its peak memory is not measured (its final runs' is)");
    QJsonObject fact{{"phase", phaseOf(i)},
                     {"index", i},
                     {"algorithm", c.algorithm},
                     {"configuration", c.isTrial() ? label : job.label},
                     {"search", TuningSection::searchName(m_section.search)},
                     {"seed", QString::number(m_section.seed)},
                     {"trials", m_section.trials},
                     {"cpu_seconds", m_section.cpuSeconds}};
    if (c.isTrial()) {
        fact.insert("trial", c.trial);
        fact.insert("drawn", QJsonObject::fromVariantMap(m_drawn[size_t(i)]));
        if (halved) {
            fact.insert("rung", c.rung);
            fact.insert("rungs", int(m_rungs[c.algorithm].size()));
            fact.insert("fraction", m_rungs[c.algorithm][c.rung]);
            fact.insert("halving", QJsonObject{{"eta", m_section.halvingEta}, {"min_fraction", m_section.halvingMinFraction}});
        }
    } else {
        fact.insert("final", c.finalSeed);
        const QVariantMap setting = c.defaults ? m_defaults[c.algorithm] : m_chosen[size_t(c.algorithm)];
        fact.insert("setting", QJsonObject::fromVariantMap(setting));
        if (!c.defaults)
            fact.insert("chosen_trial", m_chosenTrial[size_t(c.algorithm)]);
    }
    job.hostFacts.insert(SelectionCurves::factKey(), fact);
    return job;
}

/// A resumed experiment's finished cells first … first + count − 1, taken from the store.
bool TunedRun::takeFinished(int first, int count)
{
    auto cellOf = [&](const RunRecord& r) {
        const QJsonObject f = r.info.value(SelectionCurves::factKey()).toObject();
        const int i = f.value(QStringLiteral("index")).toInt(-1);
        if (i < first || i >= first + count || f.value(QStringLiteral("phase")).toString() != phaseOf(i) ||
            m_spec.algorithms[m_cells[size_t(i)].algorithm].id != r.algorithmId ||
            (m_cells[size_t(i)].isTrial() && f.value(QStringLiteral("trial")).toInt(-2) != m_cells[size_t(i)].trial))
            return -1;
        return i - first;
    };
    std::vector<RunResult> results(static_cast<size_t>(count));
    std::vector<char> ran(size_t(count), 0);
    if (!m_ctx.takeFinishedRuns(count, cellOf, results, ran, &m_result.error))
        return false;
    for (int k = 0; k < count; ++k)
        if (ran[size_t(k)])
            cellDone(first + k, std::move(results[size_t(k)]), false);
    return true;
}

/// The trials, rung by rung; under a CPU budget a trial starts only while its algorithm's trials
/// so far have used less than the budget. Under MPI the ranks share rung 0; rank 0 trains the
/// later rungs (a promotion needs every result of the rung before).
void TunedRun::tune()
{
    reportStatus();
    runCells(0, m_rungFirst[1], false);
    if (m_ctx.executor().isWorker())
        return;
    for (int k = 1; k + 1 < int(m_rungFirst.size()) && !m_ctx.stop().stopRequested(); ++k) {
        promote(k);
        const int first = m_rungFirst[size_t(k)], count = m_rungFirst[size_t(k) + 1] - first;
        if (m_ctx.resuming() && !takeFinished(first, count))
            return;
        runCells(first, count, true);
    }
}

void TunedRun::runCells(int first, int count, bool here)
{
    tbb::task_arena arena(m_threads);
    std::vector<char> skip(size_t(count), 0);
    for (int k = 0; k < count; ++k)
        skip[size_t(k)] = m_ran[size_t(first + k)] || m_outcome[size_t(first + k)] == Outcome::OverBudget;
    CellPlan plan = m_ctx.runPerCell(count, 1, arena, m_obs, skip, [this, first](int k) { return jobOf(first + k); });
    if (m_section.cpuSeconds > 0 && first < m_trialCells) {
        plan.work = [this, first, work = plan.work](int k, RunLog* log, RunObserver* o) {
            {
                const std::lock_guard lock(m_mutex);
                if (m_cpuUsed[size_t(m_cells[size_t(first + k)].algorithm)] >= m_section.cpuSeconds)
                    return CellOutput{};
            }
            return work(k, log, o);
        };
    }
    plan.done = [this, first](int k, CellOutput&& out) {
        const int i = first + k;
        if (out.runs.isEmpty() && m_cells[size_t(i)].isTrial()) {
            {
                const std::lock_guard lock(m_mutex);
                m_outcome[size_t(i)] = Outcome::OverBudget;
                m_overBudget++;
            }
            if (m_obs)
                m_obs->progress(m_done, int(m_cells.size()) - m_overBudget);
            return;
        }
        cellDone(i, out.runs.value(0));
    };
    if (here && m_ctx.executor().distributes()) {
        LocalCellExecutor local;
        local.run(plan);
    } else {
        m_ctx.executor().run(plan);
    }
}

double TunedRun::scoreOf(const RunResult& rr)
{
    if (rr.status != RunStatus::Finished)
        return NaN;
    const MetricPoint& p = rr.last;
    return std::isfinite(p.validationAccuracy) ? p.validationAccuracy : -p.validationRmse;
}

/// Successive halving's promotion: of each halved algorithm's trials that ran at rung k − 1, the
/// best ⌊n / eta⌋ by validation score (a failed trial scores worst; the lower trial number first
/// among equals) fill its places at rung k; places left over are not runs.
void TunedRun::promote(int k)
{
    const int from = m_rungFirst[size_t(k) - 1], to = m_rungFirst[size_t(k)], end = m_rungFirst[size_t(k) + 1];
    for (int a = 0; a < m_spec.algorithms.size(); ++a) {
        std::vector<int> ran;
        for (int i = from; i < to; ++i)
            if (m_cells[size_t(i)].algorithm == a && m_ran[size_t(i)])
                ran.push_back(i);
        std::stable_sort(ran.begin(), ran.end(), [this](int x, int y) {
            const double sx = scoreOf(m_results[size_t(x)]), sy = scoreOf(m_results[size_t(y)]);
            if (std::isfinite(sx) != std::isfinite(sy))
                return std::isfinite(sx);
            return std::isfinite(sx) && sx > sy ? true
                   : std::isfinite(sx) && sx < sy ? false
                                                  : m_cells[size_t(x)].trial < m_cells[size_t(y)].trial;
        });
        const int promoted = m_section.promoted(int(ran.size()));
        int next = 0;
        for (int i = to; i < end; ++i) {
            Cell& c = m_cells[size_t(i)];
            if (c.algorithm != a)
                continue;
            if (next < promoted) {
                c.trial = m_cells[size_t(ran[size_t(next)])].trial;
                m_drawn[size_t(i)] = m_drawn[size_t(ran[size_t(next)])];
                next++;
            } else if (m_outcome[size_t(i)] != Outcome::OverBudget) {
                m_outcome[size_t(i)] = Outcome::OverBudget;
                m_overBudget++;
            }
        }
    }
}

void TunedRun::cellDone(int i, RunResult&& rr, bool notify)
{
    m_ctx.blameStoreFailure(rr);
    const Cell& c = m_cells[size_t(i)];
    int done = 0, counted = 0;
    {
        const std::lock_guard lock(m_mutex);
        if (c.isTrial()) {
            m_cpuUsed[size_t(c.algorithm)] +=
                rr.info.value(QStringLiteral("final")).toObject().value(QStringLiteral("train_cpu_seconds")).toDouble();
            if (c.rung == 0)
                m_trialsDone[size_t(c.algorithm)]++;
        }
        if (rr.status == RunStatus::Failed || rr.status == RunStatus::Diverged)
            if (m_errors.size() < 20)
                m_errors.insert(QStringLiteral("%1: %2").arg(jobOf(i, false).label, rr.error));
        m_results[size_t(i)] = std::move(rr);
        m_ran[size_t(i)] = 1;
        m_outcome[size_t(i)] = Outcome::Ran;
        done = ++m_done;
        counted = int(m_cells.size()) - m_overBudget;
    }
    if (!notify)
        return;
    if (m_obs && !c.isTrial()) {
        const int conf = c.algorithm * (m_section.defaults ? 2 : 1) + (c.defaults ? 1 : 0);
        m_obs->cellFinished(i, conf, m_results[size_t(i)]);
    }
    if (m_obs) {
        m_obs->progress(done, counted);
        reportStatus();
    }
}

/// Per algorithm: its trials and CPU seconds of the budget, and the best trial so far.
void TunedRun::reportStatus()
{
    if (!m_obs)
        return;
    QStringList lines;
    {
        const std::lock_guard lock(m_mutex);
        for (int a = 0; a < m_spec.algorithms.size(); ++a) {
            QString line = QStringLiteral("%1: %2 of %3 trials, %4 CPU s")
                               .arg(m_labels[a])
                               .arg(m_trialsDone[size_t(a)])
                               .arg(trialsOf(m_axes[a], m_section))
                               .arg(m_cpuUsed[size_t(a)], 0, 'f', 1);
            if (m_section.cpuSeconds > 0)
                line += QStringLiteral(" of %1").arg(m_section.cpuSeconds);
            // The best trial so far: at the highest rung any has reached, the best validation score there.
            int best = -1;
            double bestScore = NaN;
            bool accuracy = true;
            for (int i = 0; i < m_trialCells; ++i) {
                if (m_cells[size_t(i)].algorithm != a || !m_ran[size_t(i)])
                    continue;
                const double score = scoreOf(m_results[size_t(i)]);
                if (!std::isfinite(score))
                    continue;
                accuracy = std::isfinite(m_results[size_t(i)].last.validationAccuracy);
                if (best < 0 || m_cells[size_t(i)].rung > m_cells[size_t(best)].rung ||
                    (m_cells[size_t(i)].rung == m_cells[size_t(best)].rung && score > bestScore)) {
                    best = i;
                    bestScore = score;
                }
            }
            if (best >= 0)
                line += QStringLiteral("; best %1 %2 (trial %3)")
                            .arg(accuracy ? QStringLiteral("validation accuracy") : QStringLiteral("validation RMSE"),
                                 accuracy ? RunMetric::format(MetricId::ValidationAccuracy, bestScore)
                                          : RunMetric::format(MetricId::ValidationRmse, -bestScore))
                            .arg(m_cells[size_t(best)].trial);
            lines << line;
        }
    }
    m_obs->statusChanged(lines);
}

/// Each algorithm's trial with the best validation score (SelectionCurves: the first of equals).
void TunedRun::choose()
{
    gather(false); // the trials so far into m_result.selection
    const QList<TuningCurve> curves = SelectionCurves::of(m_result);
    for (int a = 0; a < curves.size() && a < m_spec.algorithms.size(); ++a) {
        m_chosenTrial[size_t(a)] = curves[a].bestTrial;
        m_chosen[size_t(a)] = curves[a].bestSetting;
    }
}

/// The chosen and the default configurations on the final seeds, one at a time, in this process
/// (under MPI the workers have gone: rank 0 trains them; their results do not depend on where).
void TunedRun::trainFinals()
{
    const int count = int(m_cells.size()) - m_trialCells;
    if (m_ctx.resuming() && !takeFinished(m_trialCells, count))
        return;
    // An algorithm none of whose trials finished has nothing to retrain: its tuned runs fail.
    for (int k = 0; k < count; ++k) {
        const int i = m_trialCells + k;
        const Cell& c = m_cells[size_t(i)];
        if (!m_ran[size_t(i)] && !c.defaults && m_chosenTrial[size_t(c.algorithm)] < 0)
            cellDone(i, m_ctx.failedRun(jobOf(i), RunStatus::Failed,
                                        QStringLiteral("no trial of %1 finished: there is no configuration to retrain")
                                            .arg(m_labels[c.algorithm]),
                                        -1));
    }
    runCells(m_trialCells, count, true);
}

/// The trials into the result's selection, the final runs into its configurations. With
/// @p record, a cell Stop kept from starting is part of the result, stored as cancelled with its
/// seed and parameters (a tuned run whose configuration was never chosen has no parameters yet:
/// it is counted, not stored); without, such cells are left out (choose() reads the trials so far).
void TunedRun::gather(bool record)
{
    ExperimentResult& r = m_result;
    r.selection.clear();
    r.curves = configurations(m_spec, m_section, &m_ctx.registry());
    r.runsFinished = r.runsFailed = r.runsCancelled = r.runsNotStarted = 0;
    const int perAlgorithm = m_section.defaults ? 2 : 1;
    QSet<QString> varied;
    for (int a = 0; a < m_spec.algorithms.size(); ++a) {
        AlgorithmCurves c;
        c.algorithmId = m_spec.algorithms[a].id;
        c.algorithmIndex = a;
        c.label = c.configuration = m_labels[a];
        c.dataset = m_description;
        r.selection << c;
        for (const SearchAxis& axis : m_axes[a])
            varied.insert(axis.key);
        r.curves[a * perAlgorithm].setting = m_chosen[size_t(a)];
        if (m_section.defaults)
            r.curves[a * perAlgorithm + 1].setting = m_defaults[a];
    }
    const Runner runner(m_ctx.registry(), m_ctx.writesExperiment() ? m_ctx.store() : nullptr);
    int unfilled = 0;
    for (int i = 0; i < int(m_cells.size()); ++i) {
        const Cell& c = m_cells[size_t(i)];
        if (m_outcome[size_t(i)] == Outcome::OverBudget)
            continue; // its algorithm's budget was spent before it, or no trial was promoted to it: not a run
        if (c.isTrial() && c.trial < 0) {
            unfilled++; // a rung Stop kept from starting: which trials it would have trained is not known
            continue;
        }
        if (!m_ran[size_t(i)] && !record)
            continue;
        AlgorithmCurves& into = c.isTrial() ? r.selection[c.algorithm]
                                             : r.curves[c.algorithm * perAlgorithm + (c.defaults ? 1 : 0)];
        RunJob job = jobOf(i, false);
        if (m_ran[size_t(i)]) {
            ExperimentContext::appendRun(into, m_results[size_t(i)], job.repeat, job.seed);
            ExperimentContext::count(r, m_results[size_t(i)].status);
            continue;
        }
        into.repeatNumbers << job.repeat;
        into.seeds << job.seed;
        const bool known = c.isTrial() || c.defaults || m_chosenTrial[size_t(c.algorithm)] >= 0;
        if (known)
            job = jobOf(i);
        ExperimentContext::appendNotStarted(into, known ? runner.recordNotStarted(job) : -1);
        into.infos.last().insert(SelectionCurves::factKey(), job.hostFacts.value(SelectionCurves::factKey()));
        r.runsCancelled++;
        r.runsNotStarted++;
    }
    r.variedKeys = QStringList(varied.values());
    r.variedKeys.sort();
    r.runsPlanned = int(m_cells.size()) - m_overBudget - unfilled;
    r.runErrors = QStringList(m_errors.values());
    r.runErrors.sort();
}

} // namespace tb
