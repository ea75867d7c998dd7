// The param sweep: a grid (or list) of parameter values × data-set options × seeds, one stored run
// per cell, compared with paired statistics (core/engine/Comparison). Its cells are a pure function
// of the file (ParamSweep::cells), so any of them can run anywhere.

#include <engine/ExperimentContext.h>
#include <engine/CostPrediction.h>
#include <engine/ExperimentKind.h>
#include <engine/HostBudget.h>
#include "ParamSweep.h"
#include <engine/PluginRegistry.h>
#include <engine/PreparedConfiguration.h>
#include <engine/kinds/RepeatKeys.h>
#include <store/RunStore.h>

#include <data/DataSource.h>

#include <QJsonArray>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <utility>
#include <tbb/task_arena.h>

namespace tb {
namespace {

class ParamSweepKind : public ExperimentKind {
public:
    QString id() const override { return QStringLiteral("param-sweep"); }
    QString label() const override { return QStringLiteral("Parameter sweep"); }
    QString description() const override
    {
        return QStringLiteral("A grid of parameter values over seeds (and data-set options), one stored run per "
                              "cell, compared with paired statistics.");
    }
    int order() const override { return 30; }
    ParamSchema keys() const override { return kindkeys::repeats(); }
    QStringList sectionKeys() const override { return {QStringLiteral("sweep")}; }
    QString sectionEditor() const override { return QStringLiteral("parameter-grid"); }
    bool comparesConfigurations() const override { return true; }

    bool parseSection(const QJsonObject& file, ExperimentSpec& s, QString* key, QString* message) const override
    {
        auto sweep = std::make_shared<ParamSweepSpec>();
        if (!parseSweep(file.value(QStringLiteral("sweep")), *sweep, s, key, message))
            return false;
        s.section = std::move(sweep);
        return true;
    }

    QString describe(const ExperimentSpec& spec) const override
    {
        return QStringLiteral("param sweep: %1 cell(s) (points × data sets × algorithms × %2 repeat(s) from %3), seed "
                              "%4, %5 threads%6")
            .arg(ParamSweep::cellCount(spec))
            .arg(spec.repeats)
            .arg(spec.firstRepeat)
            .arg(spec.seed)
            .arg(spec.effectiveThreads())
            .arg(spec.timeBudgetSeconds > 0 ? QStringLiteral(", time budget %1 s per run").arg(spec.timeBudgetSeconds)
                                            : QString());
    }

    QList<AlgorithmCurves> configurations(const ExperimentSpec& spec, const PluginRegistry* registry) const override
    {
        return ParamSweep::configurations(spec, registry);
    }
    QList<QJsonObject> datasets(const ExperimentSpec& spec) const override { return ParamSweep::datasets(spec); }

    // A swept key of an earlier format is converted as every algorithm that takes it converts it
    // (ridge: ×0.5 in gradient and dsgd alike); where two algorithms convert it differently no one
    // axis can hold both, and validate() says so.
    void upgradeFormat(ExperimentSpec& spec, const PluginRegistry& registry, int fromFormat,
                       QStringList* notes) const override
    {
        auto sweep = std::make_shared<ParamSweepSpec>(ParamSweep::sweepOf(spec));
        // The one change of @p key for every algorithm taking it; nullopt when none changes it.
        auto changeOf = [&](const QString& key, const QString& path) -> std::optional<ParamSchema::FormatChange> {
            std::optional<ParamSchema::FormatChange> found;
            QString foundBy, unchangedBy;
            for (const AlgorithmRun& a : std::as_const(spec.algorithms)) {
                const AlgorithmEntry* e = registry.algorithm(a.id);
                if (!e)
                    continue;
                std::optional<ParamSchema::FormatChange> mine;
                for (const auto& c : e->info.schema.formatChanges(fromFormat))
                    if (c.key == key)
                        mine = c;
                if (!mine) {
                    if (e->info.schema.find(key))
                        unchangedBy = a.id;
                    continue;
                }
                if (found && (found->now != mine->now || found->factor != mine->factor)) {
                    sweep->formatProblems << QStringLiteral("%1: written in parameter format %2, where \"%3\" meant %4 "
                                                            "for %5 and %6 for %7: sweep them in format %8 "
                                                            "(docs/parameters.md)")
                                                 .arg(path)
                                                 .arg(fromFormat)
                                                 .arg(key, found->then, foundBy, mine->then, a.id)
                                                 .arg(kParamsFormat);
                    return std::nullopt;
                }
                found = mine;
                foundBy = a.id;
            }
            if (found && !unchangedBy.isEmpty()) {
                sweep->formatProblems << QStringLiteral("%1: written in parameter format %2, where \"%3\" meant %4 for "
                                                        "%5 and what it means now for %6: sweep them in format %7")
                                             .arg(path)
                                             .arg(fromFormat)
                                             .arg(key, found->then, foundBy, unchangedBy)
                                             .arg(kParamsFormat);
                return std::nullopt;
            }
            return found;
        };
        const auto scaled = [](const ParamSchema::FormatChange& c, const QJsonValue& v) {
            return QJsonValue::fromVariant(ParamSchema::convertedValue(c, v.toVariant()));
        };
        for (SweepAxis& axis : sweep->grid) {
            const QString path = QStringLiteral("sweep.grid.") + axis.key;
            const auto c = changeOf(axis.key, path);
            if (!c)
                continue;
            for (QVariant& v : axis.values)
                v = ParamSchema::convertedValue(*c, v);
            if (axis.source.isArray()) {
                QJsonArray a = axis.source.toArray();
                for (auto&& v : a)
                    v = scaled(*c, v);
                axis.source = a;
            } else {  // {"from", "to", "count", "scale"}: a range scaled end to end is the values scaled
                QJsonObject o = axis.source.toObject();
                for (const char* end : {"from", "to"})
                    o.insert(QLatin1String(end), scaled(*c, o.value(QLatin1String(end))));
                axis.source = o;
            }
            *notes << QStringLiteral("%1: written in parameter format %2, where \"%3\" meant %4: it is now \"%5\", "
                                     "each value × %6")
                          .arg(path)
                          .arg(fromFormat)
                          .arg(axis.key, c->then, c->now)
                          .arg(c->factor);
            axis.key = c->now;
        }
        for (int i = 0; i < sweep->list.size(); ++i) {
            QVariantMap point;
            for (auto it = sweep->list[i].begin(); it != sweep->list[i].end(); ++it) {
                const QString path = QStringLiteral("sweep.list[%1].%2").arg(i).arg(it.key());
                const auto c = changeOf(it.key(), path);
                if (!c) {
                    point.insert(it.key(), it.value());
                    continue;
                }
                const QVariant now = ParamSchema::convertedValue(*c, it.value());
                point.insert(c->now, now);
                *notes << ParamSchema::formatNote(*c, fromFormat, it.key(), it.value(), now).prepend(path + ": ");
            }
            sweep->list[i] = point;
        }
        spec.section = std::move(sweep);
    }

private:
    // The "sweep" object @p sw into @p ps; @p s is the spec parsed so far (its algorithms,
    // repeats and data set size the cells).
    bool parseSweep(const QJsonValue& sw, ParamSweepSpec& ps, const ExperimentSpec& s, QString* key, QString* message) const
    {
        struct {
            QString* key;
            QString* message;
            bool fail(const QString& k, const QString& m)
            {
                *key = k;
                *message = m;
                return false;
            }
        } c{key, message};
        if (!sw.isObject())
            return c.fail("sweep", QStringLiteral("a param-sweep needs {\"grid\": {\"lr\": [0.001, 0.01]}} or {\"list\": "
                                                  "[{\"lr\": 0.001}, …]}, got %1")
                                       .arg(jsonValueText(sw)));
        const QJsonObject so = sw.toObject();
        static const QStringList known{"grid", "list", "datasets", "cells_at_once"};
        for (auto it = so.begin(); it != so.end(); ++it)
            if (!known.contains(it.key()))
                return c.fail("sweep." + it.key(), QStringLiteral("unknown key (known: %1)").arg(known.join(", ")));
        if (so.contains("grid") && so.contains("list"))
            return c.fail("sweep", QStringLiteral("give either \"grid\" or \"list\", not both"));
        if (so.contains("grid")) {
            if (!so.value("grid").isObject() || so.value("grid").toObject().isEmpty())
                return c.fail("sweep.grid", QStringLiteral("expected an object of parameter: values, got %1").arg(jsonValueText(so.value("grid"))));
            const QJsonObject g = so.value("grid").toObject();
            for (auto it = g.begin(); it != g.end(); ++it) {
                QString err;
                const auto values = ParamSweep::expand(it.value(), "sweep.grid." + it.key(), &err);
                if (!values)
                    return c.fail(err.section(QStringLiteral(": "), 0, 0), err.section(QStringLiteral(": "), 1));
                ps.grid << SweepAxis{it.key(), it.value(), *values};
            }
        }
        if (so.contains("list")) {
            const QJsonValue l = so.value("list");
            if (!l.isArray() || l.toArray().isEmpty())
                return c.fail("sweep.list", QStringLiteral("expected a non-empty array of {parameter: value} objects, got %1").arg(jsonValueText(l)));
            const QJsonArray la = l.toArray();
            if (la.size() > ParamSweep::maxCells)
                return c.fail("sweep.list", QStringLiteral("%1 points, at most %2").arg(la.size()).arg(ParamSweep::maxCells));
            for (int i = 0; i < la.size(); ++i) {
                if (!la[i].isObject())
                    return c.fail(QStringLiteral("sweep.list[%1]").arg(i), QStringLiteral("expected an object, got %1").arg(jsonValueText(la[i])));
                ps.list << la[i].toObject().toVariantMap();
            }
        }
        if (so.contains("datasets")) {
            const QJsonValue d = so.value("datasets");
            if (!d.isArray() || d.toArray().isEmpty())
                return c.fail("sweep.datasets", QStringLiteral("expected a non-empty array of dataset objects, got %1").arg(jsonValueText(d)));
            const QJsonArray da = d.toArray();
            if (da.size() > 1000)
                return c.fail("sweep.datasets", QStringLiteral("%1 options, at most 1000").arg(da.size()));
            for (int i = 0; i < da.size(); ++i) {
                if (!da[i].isObject())
                    return c.fail(QStringLiteral("sweep.datasets[%1]").arg(i),
                                  QStringLiteral("expected an object such as {\"train_limit\": 2000}, got %1").arg(jsonValueText(da[i])));
                ps.datasets << da[i].toObject();
            }
        }
        ps.cellsAtOnce = 1;
        if (so.contains("cells_at_once")) {
            const QJsonValue v = so.value("cells_at_once");
            const double d = v.toDouble(std::nan(""));
            if (!v.isDouble() || d != std::floor(d))
                return c.fail("sweep.cells_at_once", QStringLiteral("expected an integer, got %1").arg(jsonValueText(v)));
            if (d < 1 || d > 1024)
                return c.fail("sweep.cells_at_once", QStringLiteral("%1 is outside [1, 1024]").arg(jsonValueText(v)));
            ps.cellsAtOnce = int(d);
        }
        ExperimentSpec counted = s;  // the cells of this sweep, before it is the spec's
        counted.section = std::make_shared<ParamSweepSpec>(ps);
        const qint64 cells = ParamSweep::cellCount(counted);
        if (cells > ParamSweep::maxCells)
            return c.fail("sweep", QStringLiteral("%1 cells (points × data sets × algorithms × repeats), at most %2")
                                       .arg(cells).arg(ParamSweep::maxCells));
        return true;
    }

public:
    QStringList validate(const ExperimentSpec& spec, const PluginRegistry& registry) const override
    {
        const QList<AlgorithmRun>& algorithms = spec.algorithms;
        const ParamSweepSpec& ps = ParamSweep::sweepOf(spec);
        QStringList problems = ps.formatProblems;
        for (int i = 0; i < algorithms.size(); ++i) {
            const AlgorithmEntry* e = registry.algorithm(algorithms[i].id);
            if (!e)
                continue; // reported by validate()
            const ParamSchema& schema = e->info.schema;
            auto unknown = [&](const QString& path, const QString& key) {
                QStringList keys;
                for (const auto& sp : schema.specs())
                    keys << sp.key;
                problems << QStringLiteral("%1: \"%2\" is not a parameter of \"%3\" (its parameters: %4)")
                                .arg(path, key, algorithms[i].id, keys.join(", "));
            };
            // A former spelling would be upgraded at run time and could lose to the current key in
            // the algorithm's params: the sweep would silently not vary. Sweeps name current keys.
            auto renamed = [&](const QString& path, const QString& key, const QVariant& value) {
                const QVariantMap up = schema.upgrade(QVariantMap{{key, value}});
                if (up.size() != 1 || up.firstKey() == key || !schema.find(up.firstKey()))
                    return false;
                problems << QStringLiteral("%1: \"%2\" is now \"%3\"; sweep it by its current name")
                                .arg(path, key, up.firstKey());
                return true;
            };
            // The budget among the parameters is the host's (ExperimentSpec::validate() checks it): not the schema's.
            QVariantMap base = schema.upgrade(algorithms[i].params);
            HostBudget::takeFromParams(base, nullptr);
            for (const SweepAxis& axis : ps.grid) {
                const QString path = QStringLiteral("sweep.grid.") + axis.key;
                if (!schema.find(axis.key)) {
                    if (!renamed(path, axis.key, axis.values.value(0)))
                        unknown(path, axis.key);
                    continue;
                }
                for (int v = 0; v < axis.values.size(); ++v) {
                    QVariantMap params = base;
                    params.insert(axis.key, axis.values[v]);
                    QString err;
                    if (!schema.normalise(params, &err)) {
                        problems << QStringLiteral("%1[%2]: %3").arg(path).arg(v).arg(err);
                        break;
                    }
                }
            }
            for (int p = 0; p < ps.list.size(); ++p) {
                const QString path = QStringLiteral("sweep.list[%1]").arg(p);
                const QVariantMap& point = ps.list[p];
                bool known = true;
                for (auto it = point.begin(); it != point.end(); ++it)
                    if (!schema.find(it.key())) {
                        if (!renamed(path + "." + it.key(), it.key(), it.value()))
                            unknown(path + "." + it.key(), it.key());
                        known = false;
                    }
                if (!known)
                    break;
                QVariantMap params = base;
                for (auto it = point.begin(); it != point.end(); ++it)
                    params.insert(it.key(), it.value());
                QString err;
                if (!schema.normalise(params, &err)) {
                    problems << QStringLiteral("%1: %2").arg(path, err);
                    break;
                }
            }
        }
        const QList<QJsonObject> sets = ParamSweep::datasets(spec);
        for (int d = 0; d < ps.datasets.size(); ++d) {
            const QString path = QStringLiteral("sweep.datasets[%1]").arg(d);
            const QString err = data::DataSource::validate(sets[d]);
            if (!err.isEmpty()) {
                problems << QStringLiteral("%1: %2").arg(path, err);
                continue;
            }
            const bool classification = data::DataSource::task(sets[d]) == Task::Classification;
            for (const AlgorithmRun& a : algorithms) {
                const AlgorithmEntry* e = registry.algorithm(a.id);
                if (e && (classification ? !e->info.classification : !e->info.regression))
                    problems << QStringLiteral("%1: \"%2\" does not do %3")
                                    .arg(path, a.id, classification ? "classification" : "regression");
            }
        }
        return problems;
    }

    void write(const ExperimentSpec& spec, QJsonObject& o) const override
    {
        const ParamSweepSpec& ps = ParamSweep::sweepOf(spec);
        QJsonObject sw;
        if (!ps.grid.isEmpty()) {
            QJsonObject g;
            for (const SweepAxis& a : ps.grid)
                g.insert(a.key, a.source);
            sw.insert("grid", g);
        }
        if (!ps.list.isEmpty()) {
            QJsonArray l;
            for (const QVariantMap& p : ps.list)
                l.append(QJsonObject::fromVariantMap(p));
            sw.insert("list", l);
        }
        if (!ps.datasets.isEmpty()) {
            QJsonArray d;
            for (const QJsonObject& x : ps.datasets)
                d.append(x);
            sw.insert("datasets", d);
        }
        if (ps.cellsAtOnce != 1)
            sw.insert("cells_at_once", ps.cellsAtOnce);
        o.insert("sweep", sw);
        o.insert("repeats", spec.repeats);
        if (spec.firstRepeat > 0)
            o.insert("first_repeat", spec.firstRepeat);
    }

    void narrowToRun(ExperimentSpec& spec, const RunRecord& run) const override
    {
        spec.repeats = 1;
        spec.firstRepeat = run.repeat; // the seed rule deriveSeed(seed, repeat) gives its seed again
        // One cell, not the grid: its data-set option, and its complete stored parameters (which
        // hold the swept values).
        const int option = run.info.value(QStringLiteral("sweep_cell")).toObject().value(QStringLiteral("dataset")).toInt();
        spec.dataset = ParamSweep::datasets(spec).value(option, spec.dataset);
        spec.section = std::make_shared<ParamSweepSpec>();
    }

    StoredPlace placeOf(const RunRecord& run) const override
    {
        StoredPlace p;
        const QJsonObject cell = run.info.value(QStringLiteral("sweep_cell")).toObject();
        if (cell.isEmpty())
            return p;
        p.placed = true;
        p.setting = cell.value("setting").toObject().toVariantMap();
        p.configuration = cell.value("configuration").toString();
        p.datasetIndex = cell.value("dataset").toInt();
        // The runner's order: data-set option, algorithm, point, then the cell.
        p.order = {p.datasetIndex, cell.value("algorithm").toInt(), cell.value("point").toInt(), cell.value("index").toInt()};
        return p;
    }

    int plannedRuns(const ExperimentSpec& spec) const override
    {
        return int(std::min<qint64>(ParamSweep::cellCount(spec), std::numeric_limits<int>::max()));
    }
    bool runsOneAtATime(const ExperimentSpec& spec) const override { return ParamSweep::sweepOf(spec).cellsAtOnce == 1; }
    QString sideBySide(const ExperimentSpec& spec) const override
    {
        if (ParamSweep::sweepOf(spec).cellsAtOnce <= 1)
            return {};
        return QStringLiteral("its cells train %1 at once: set \"sweep.cells_at_once\": 1").arg(ParamSweep::sweepOf(spec).cellsAtOnce);
    }
    QStringList charts() const override
    {
        return {QStringLiteral("metric-vs-parameter"), QStringLiteral("learning-curve-time"),
                QStringLiteral("learning-curve-epoch"), QStringLiteral("loss-time"), QStringLiteral("parallel-coordinates"),
                QStringLiteral("frontier"), QStringLiteral("feature-frontier"), QStringLiteral("peak-memory")};
    }

    ExperimentResult run(ExperimentContext& ctx, const ExperimentSpec& spec, qint64 experimentId,
                         ExperimentObserver* obs) const override;
};

/// One param sweep's run, as its steps: the data-set options loaded, the configurations named
/// and prepared (each once, PluginRegistry::prepared()), their memory checked, the cells trained,
/// and the runs gathered into the configurations' curves.
class SweepRun {
public:
    SweepRun(ExperimentContext& ctx, const ExperimentSpec& spec, qint64 experimentId, ExperimentObserver* obs)
        : m_ctx(ctx), m_spec(spec), m_experimentId(experimentId), m_obs(obs), m_threads(spec.effectiveThreads()),
          m_cells(ParamSweep::cells(spec)),
          m_atOnce(std::clamp(ParamSweep::sweepOf(spec).cellsAtOnce, 1, m_threads))
    {
    }

    ExperimentResult run()
    {
        if (ParamSweep::cellCount(m_spec) > ParamSweep::maxCells) {
            m_result.error =
                QStringLiteral("sweep: %1 cells, at most %2").arg(ParamSweep::cellCount(m_spec)).arg(ParamSweep::maxCells);
            return m_result;
        }
        if (!loadData())
            return m_result;
        nameConfigurations();
        prepareConfigurations();
        if (!checkMemory())
            return m_result;
        m_results.assign(size_t(m_cells.size()), RunResult());
        m_ran.assign(size_t(m_cells.size()), 0);
        if (m_ctx.resuming() && !takeFinished())
            return m_result;
        train();
        gather();
        return m_result;
    }

private:
    int total() const { return int(m_cells.size()); }
    int configurationOf(int i) const { return ParamSweep::configurationIndex(m_spec, m_cells[i]); }

    /// Every data-set option, loaded once, up front: a bad one fails before any run starts.
    bool loadData()
    {
        const QList<QJsonObject> sets = ParamSweep::datasets(m_spec);
        for (int d = 0; d < sets.size(); ++d) {
            try {
                m_data.push_back(std::make_shared<const data::DatasetPair>(
                    data::DataSource::load(sets[d], m_spec.baseDir, data::DataOverrides{std::nullopt, m_spec.seed})));
            } catch (const std::exception& e) {
                m_result.error = ParamSweep::sweepOf(m_spec).datasets.isEmpty()
                                     ? QString::fromUtf8(e.what())
                                     : QStringLiteral("sweep.datasets[%1]: %2").arg(d).arg(QString::fromUtf8(e.what()));
                return false;
            }
            m_descriptions << data::DataSource::describe(sets[d]);
        }
        return true;
    }

    /// One configuration per (data-set option, algorithm, point), and the keys the points vary.
    void nameConfigurations()
    {
        QSet<QString> keys;
        for (const QVariantMap& p : ParamSweep::points(ParamSweep::sweepOf(m_spec)))
            for (auto it = p.begin(); it != p.end(); ++it)
                keys.insert(it.key());
        m_result.variedKeys = QStringList(keys.values());
        m_result.variedKeys.sort();
        m_result.curves = ParamSweep::configurations(m_spec, &m_ctx.registry());
        const int perOption = int(m_result.curves.size()) / std::max<int>(1, int(m_descriptions.size()));
        for (int c = 0; c < m_result.curves.size(); ++c)
            m_result.curves[c].dataset = m_descriptions[c / perOption];
    }

    /// Each configuration's parameters, read once for all its cells (its first cell's).
    void prepareConfigurations()
    {
        m_prepared.assign(size_t(m_result.curves.size()), nullptr);
        for (int i = 0; i < total(); ++i) {
            auto& p = m_prepared[size_t(configurationOf(i))];
            if (!p)
                p = m_ctx.registry().prepared(m_spec.algorithms[m_cells[i].algorithmIndex].id, m_cells[i].params);
        }
    }

    /// Every configuration's working memory, sweep.cells_at_once of them at once.
    bool checkMemory()
    {
        QList<MemoryCheck::Demand> demands;
        std::vector<char> seen(m_prepared.size(), 0);
        for (int i = 0; i < total(); ++i) {
            const SweepCell& cell = m_cells[i];
            const int conf = configurationOf(i);
            if (std::exchange(seen[size_t(conf)], 1))
                continue;
            demands << MemoryCheck::Demand{m_result.curves[conf].label, m_spec.algorithms[cell.algorithmIndex].id,
                                           cell.params, CostPrediction::shapeOf(m_data[size_t(cell.datasetIndex)]->train),
                                           m_atOnce};
        }
        return m_ctx.refuseOverMemory(demands, m_threads, m_result);
    }

    RunJob jobOf(int i) const
    {
        const SweepCell& cell = m_cells[i];
        const int conf = configurationOf(i);
        RunJob job;
        job.algorithmId = m_spec.algorithms[cell.algorithmIndex].id;
        job.label = m_result.curves[conf].label;
        job.params = cell.params;
        job.prepared = m_prepared[size_t(conf)];
        job.seed = cell.seed;
        job.repeat = cell.repeat;
        job.data = m_data[size_t(cell.datasetIndex)];
        job.datasetDescription = m_descriptions[cell.datasetIndex];
        job.budget = m_spec.budgetOf(cell.algorithmIndex);
        job.experimentId = m_experimentId;
        job.threads = m_threads;
        job.measureMemory = m_atOnce == 1;
        if (m_atOnce > 1)
            job.memoryNote = QStringLiteral("%1 sweep cells trained at once (sweep.cells_at_once)").arg(m_atOnce);
        // Enough to regroup the stored runs into this result (StoredRuns::group) and to re-run the cell.
        job.hostFacts.insert(QStringLiteral("sweep_cell"),
                             QJsonObject{{"index", cell.index},
                                         {"dataset", cell.datasetIndex},
                                         {"algorithm", cell.algorithmIndex},
                                         {"point", cell.pointIndex},
                                         {"configuration", m_result.curves[conf].configuration},
                                         {"setting", QJsonObject::fromVariantMap(cell.setting)}});
        return job;
    }

    /// A resumed experiment's finished cells, taken from the store.
    bool takeFinished()
    {
        auto cellOf = [&](const RunRecord& r) {
            const int i = r.info.value(QStringLiteral("sweep_cell")).toObject().value(QStringLiteral("index")).toInt(-1);
            return i >= 0 && i < total() && m_spec.algorithms[m_cells[i].algorithmIndex].id == r.algorithmId ? i : -1;
        };
        return m_ctx.takeFinishedRuns(total(), cellOf, m_results, m_ran, &m_result.error);
    }

    /// Cells are claimed in list order by atOnce loops; with the default of one, each cell has the
    /// whole arena (timings compare with a learning curve's). Results depend only on each cell's seed.
    void train()
    {
        if (m_obs)
            m_obs->experimentStarted(m_experimentId, m_spec, total());
        std::atomic<int> done{int(std::count(m_ran.begin(), m_ran.end(), 1))};
        tbb::task_arena arena(m_threads);
        CellPlan plan = m_ctx.runPerCell(total(), m_atOnce, arena, m_obs, m_ran, [this](int i) { return jobOf(i); });
        plan.done = [&](int i, CellOutput&& out) {
            RunResult rr = out.runs.value(0);
            m_ctx.blameStoreFailure(rr);
            if (rr.status == RunStatus::Failed || rr.status == RunStatus::Diverged)
                noteError(m_result.curves[configurationOf(i)].label, rr.error, 20);
            if (m_obs)
                m_obs->cellFinished(i, configurationOf(i), rr);
            m_results[size_t(i)] = std::move(rr);
            m_ran[size_t(i)] = 1;
            if (m_obs)
                m_obs->progress(++done, total());
        };
        m_ctx.executor().run(plan);
    }

    void noteError(const QString& label, const QString& error, int cap = -1)
    {
        const std::lock_guard lock(m_errorMutex);
        if (cap < 0 || m_errors.size() < cap)
            m_errors.insert(QStringLiteral("%1: %2").arg(label, error));
    }

    /// Every cell into its configuration's curves, in cell order.
    void gather()
    {
        m_result.runsPlanned = total();
        const Runner runner(m_ctx.registry(), m_ctx.writesExperiment() ? m_ctx.store() : nullptr);
        for (int i = 0; i < total(); ++i) {
            AlgorithmCurves& c = m_result.curves[configurationOf(i)];
            if (!m_ran[size_t(i)]) {
                // Stopped before this cell began: still part of the experiment, stored as cancelled
                // with its seed and parameters (so it can be re-run), never dropped.
                c.repeatNumbers << m_cells[i].repeat;
                c.seeds << m_cells[i].seed;
                ExperimentContext::appendNotStarted(c, runner.recordNotStarted(jobOf(i)));
                m_result.runsCancelled++;
                m_result.runsNotStarted++;
                continue;
            }
            const RunResult& rr = m_results[size_t(i)];
            ExperimentContext::appendRun(c, rr, m_cells[i].repeat, m_cells[i].seed);
            ExperimentContext::count(m_result, rr.status);
            if (m_ctx.resuming() && (rr.status == RunStatus::Failed || rr.status == RunStatus::Diverged))
                noteError(c.label, rr.error);
        }
        m_result.runErrors = QStringList(m_errors.values());
        m_result.runErrors.sort();
    }

    ExperimentContext& m_ctx;
    const ExperimentSpec& m_spec;
    const qint64 m_experimentId;
    ExperimentObserver* const m_obs;
    const int m_threads;
    const QList<SweepCell> m_cells;
    const int m_atOnce;
    ExperimentResult m_result;
    std::vector<std::shared_ptr<const data::DatasetPair>> m_data;
    QStringList m_descriptions;
    std::vector<std::shared_ptr<const PreparedConfiguration>> m_prepared; ///< by configuration
    std::vector<RunResult> m_results;
    std::vector<char> m_ran;
    std::mutex m_errorMutex;
    QSet<QString> m_errors;
};

ExperimentResult ParamSweepKind::run(ExperimentContext& ctx, const ExperimentSpec& spec, qint64 experimentId,
                                     ExperimentObserver* obs) const
{
    return SweepRun(ctx, spec, experimentId, obs).run();
}

} // namespace
} // namespace tb

TB_REGISTER_EXPERIMENT_KIND(tb::ParamSweepKind)
