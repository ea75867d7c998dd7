#pragma once
/// @file ExperimentKind.h
/// One kind of experiment — "learning-curve", "noise-sweep", "param-sweep" … — behind one
/// interface: the keys of the experiment file it reads, the checks it makes, how its cells run,
/// and the charts its results offer. Each kind lives in a folder of its own under
/// core/engine/kinds/ and registers itself (TB_REGISTER_EXPERIMENT_KIND), so a new kind is a new
/// folder and nothing else (docs/contributing.md, "A new experiment kind").

#include "ExperimentRunner.h"

#include <trainbench/ParamSchema.h>

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>
#include <memory>

namespace tb {

class ExperimentContext;
class PluginRegistry;

/// Where a stored run belongs among its experiment's configurations (ExperimentKind::placeOf()).
struct StoredPlace {
    bool placed = false;      ///< false: the run is a configuration of its own label
    QString configuration;    ///< the configuration's name (a result matrix's row)
    QVariantMap setting;      ///< the varied parameters' values
    int datasetIndex = 0;     ///< the data-set option
    QList<int> order;         ///< sorts the runs of one experiment as the runner orders its configurations
    /// A run that chose the configurations (ExperimentResult::selection: a tuned comparison's
    /// trial), grouped there by algorithm instead of into a configuration of its own.
    bool selection = false;
    /// What the run was for in its experiment ("trial", "final", "default"), for the CSV's phase
    /// column; empty for a kind without phases.
    QString phase;
    int trial = -1; ///< a trial's number (0-based), −1 for other runs
};

/// One kind of experiment. Implementations are stateless and thread-safe.
class ExperimentKind {
public:
    virtual ~ExperimentKind() = default;

    /// The value of the file's "kind", e.g. "learning-curve".
    virtual QString id() const = 0;
    /// For people, e.g. "Learning curve".
    virtual QString label() const = 0;
    /// One sentence: what the experiment measures.
    virtual QString description() const = 0;
    /// Position in lists (smaller first).
    virtual int order() const { return 100; }

    /// The top-level keys of the experiment file this kind reads besides the ones every kind
    /// has (name, description, kind, dataset, algorithms, seed, threads, time_budget_s): e.g.
    /// "repeats". Checked, normalised and stored into ExperimentSpec::settings by ExperimentSpec;
    /// a key of another kind is an error.
    virtual ParamSchema keys() const { return {}; }

    /// The top-level objects of the file this kind reads itself in parseSection(), e.g. "sweep";
    /// any other object key is an error.
    virtual QStringList sectionKeys() const { return {}; }

    /// Keys an algorithm entry of this kind may have besides id, label, params and its budget
    /// (e.g. a tuned comparison's "search"); kept in AlgorithmRun::kindKeys for the kind.
    virtual QStringList algorithmKeys() const { return {}; }

    /// Reads the kind's section objects (sectionKeys()) of @p file into @p spec (ExperimentSpec::
    /// section, a type of the kind's own). False with @p key (e.g. "sweep.sigma[2]") and
    /// @p message set on the first problem. Default: nothing to read.
    virtual bool parseSection(const QJsonObject& file, ExperimentSpec& spec, QString* key, QString* message) const
    {
        Q_UNUSED(file);
        Q_UNUSED(spec);
        Q_UNUSED(key);
        Q_UNUSED(message);
        return true;
    }

    /// The fields of the kind's section for a form, each key a path into the file ("sweep.sigma",
    /// "tuning.trials"): the workbench builds its editor from this schema. Empty when the kind has
    /// no section, or edits it with an editor of its own (sectionEditor()).
    virtual ParamSchema sectionSchema() const { return {}; }
    /// The id of a workbench editor for a section that a schema cannot describe (a param sweep's
    /// grid: "parameter-grid"); empty when sectionSchema() says it all.
    virtual QString sectionEditor() const { return {}; }

    /// Problems only the plugins can tell (a swept parameter an algorithm lacks; a data source
    /// without a noise level), each "key: message" without the file name. The checks every kind
    /// shares (algorithm ids, parameters, tasks, the data set) are made by ExperimentSpec.
    virtual QStringList validate(const ExperimentSpec& spec, const PluginRegistry& registry) const
    {
        Q_UNUSED(spec);
        Q_UNUSED(registry);
        return {};
    }

    /// Converts the kind's own values of algorithm parameters (a sweep's values, a search range's
    /// bounds) written in parameter format @p fromFormat to the current one, by the algorithms'
    /// ParamSchema::formatChanges(); one note per change, "key: what changed". Called by
    /// ExperimentSpec::upgradeParams() for a file of an earlier format.
    virtual void upgradeFormat(ExperimentSpec& spec, const PluginRegistry& registry, int fromFormat,
                               QStringList* notes) const
    {
        Q_UNUSED(spec);
        Q_UNUSED(registry);
        Q_UNUSED(fromFormat);
        Q_UNUSED(notes);
    }

    /// Writes the kind's part of the spec (its keys and section) into @p json, as the file
    /// would hold it; algorithm entries' kind keys are written by ExperimentSpec.
    virtual void write(const ExperimentSpec& spec, QJsonObject& json) const = 0;

    /// The number of runs the experiment plans (progress is counted in these units).
    virtual int plannedRuns(const ExperimentSpec& spec) const = 0;
    /// The unit of plannedRuns() for people, for @p n of them: "run"/"runs" by default, a noise
    /// sweep's "cell"/"cells".
    virtual QString unit(int n) const { return n == 1 ? QStringLiteral("run") : QStringLiteral("runs"); }
    /// Whether each unit of plannedRuns() is a stored run of its own (false: a noise sweep's cells,
    /// which are aggregated into summary points and stored as one run per algorithm).
    virtual bool unitsAreRuns() const { return true; }
    /// What @p spec runs, in one line for captions and exported charts ("3 repeats from 0, seed
    /// 1"), without the data set and the algorithms, which the caller says.
    virtual QString describe(const ExperimentSpec& spec) const = 0;

    /// The configurations of @p spec whose runs the result groups into curves, in the order of
    /// ExperimentResult::curves, without runs: algorithm id, label as the runner labels its jobs,
    /// configuration, setting — what a live view matches runs against. @p registry (may be null)
    /// names unlabelled algorithms. Empty for a kind whose result is summary points only.
    virtual QList<AlgorithmCurves> configurations(const ExperimentSpec& spec, const PluginRegistry* registry) const = 0;

    /// The data sets the experiment trains on, each a complete "dataset" object: the file's, or a
    /// kind's options merged over it (a param sweep's "sweep.datasets"). AlgorithmCurves::
    /// datasetIndex indexes this list.
    virtual QList<QJsonObject> datasets(const ExperimentSpec& spec) const { return {spec.dataset}; }

    /// The axis of the kind's summary points (ExperimentResult::summary), for charts and tables
    /// (a noise sweep's "noise σ"); empty for a kind without summary points.
    virtual QString summaryAxis() const { return {}; }
    /// Sets the number of independent repetitions (seeds) of the experiment file @p file to @p n,
    /// as a claim's n asks: "repeats" by default, a noise sweep's "sweep.monte_carlo".
    virtual void setRepetitions(QJsonObject& file, int n) const { file.insert(QStringLiteral("repeats"), n); }
    /// Whether the point of the kind is comparing its configurations (a param sweep's grid): the
    /// workbench then opens its Comparison tab when it starts.
    virtual bool comparesConfigurations() const { return false; }

    /// Whether the runs of a plain run of @p spec train one at a time (each with every thread),
    /// so that a run's own progress can be shown and its timings compare.
    virtual bool runsOneAtATime(const ExperimentSpec& spec) const = 0;

    /// Why runs of @p spec train side by side in the process, with the setting that would stop
    /// it ("3 cells at once: set \"sweep.cells_at_once\": 1"); empty when they train one at a
    /// time, so that the process's CPU time while a run trains is that run's (a budget on the
    /// cpu clock needs it). Default: empty when runsOneAtATime().
    virtual QString sideBySide(const ExperimentSpec& spec) const
    {
        return runsOneAtATime(spec) ? QString() : QStringLiteral("its runs train at once");
    }

    /// Runs the experiment (or resumes it: ExperimentContext::resuming()). The experiment row
    /// exists already (@p experimentId, −1 without a store); the runner does the bookkeeping
    /// common to every kind around this call.
    virtual ExperimentResult run(ExperimentContext& ctx, const ExperimentSpec& spec, qint64 experimentId,
                                 ExperimentObserver* observer) const = 0;

    /// Narrows @p spec, the stored experiment of @p run (with its algorithm and parameters set
    /// already), to the one cell that trained @p run, so that running it trains that run again
    /// (StoredRuns::rerun). Default: nothing to narrow.
    virtual void narrowToRun(ExperimentSpec& spec, const RunRecord& run) const
    {
        Q_UNUSED(spec);
        Q_UNUSED(run);
    }

    /// Where stored run @p run of this kind belongs (from the facts its run() recorded), so that
    /// runs read back from the store group into the configurations the run had
    /// (StoredRuns::group()). Default: not placed, each label a configuration of its own.
    virtual StoredPlace placeOf(const RunRecord& run) const
    {
        Q_UNUSED(run);
        return {};
    }

    /// Ids of the charts (app/charts' registry) that show this kind's results, in tab order.
    virtual QStringList charts() const = 0;
};

/// How a value of an experiment file is named in a message: a string quoted, a number as
/// written, "an array", "an object", "nothing" for a key that is absent. Thread-safe.
QString jsonValueText(const QJsonValue& v);

/// Every kind the process knows. Thread-safe.
class ExperimentKinds {
public:
    /// Adds a kind; called at start-up by TB_REGISTER_EXPERIMENT_KIND. A second kind with the same
    /// id aborts with a message (a programming error). Returns true.
    static bool add(std::shared_ptr<const ExperimentKind> kind);
    /// The kind @p id, or nullptr.
    static const ExperimentKind* find(const QString& id);
    /// Every kind, in list order.
    static QList<const ExperimentKind*> all();
    /// Their ids, in order.
    static QStringList ids();
};

} // namespace tb

#define TB_EXPERIMENT_KIND_CONCAT_(a, b) a##b
#define TB_EXPERIMENT_KIND_CONCAT(a, b) TB_EXPERIMENT_KIND_CONCAT_(a, b)
/// Registers an experiment kind (a default-constructible class implementing tb::ExperimentKind)
/// when the engine library loads. Put it in the kind's own .cpp file, after the class.
#define TB_REGISTER_EXPERIMENT_KIND(Class)                                                                     \
    namespace {                                                                                                \
    [[maybe_unused]] const bool TB_EXPERIMENT_KIND_CONCAT(tbKindRegistered, __LINE__) =                        \
        ::tb::ExperimentKinds::add(std::make_shared<Class>());                                                 \
    }
