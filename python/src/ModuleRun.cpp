#include "ModuleRun.h"
#include "ModuleErrors.h"
#include "ModuleRegistry.h"
#include "QtRuntime.h"
#include "RunColumns.h"

#include <engine/ExperimentKind.h>
#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>
#include <engine/SuiteRunner.h>
#include <store/RunStore.h>

#include <QDir>
#include <QFile>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace tb::python {
namespace {

QString fromPath(const std::string& path)
{
    return QFile::decodeName(QByteArray::fromStdString(path));
}

// What the training threads tell the calling thread: progress and notices, behind one mutex that
// is held only to copy them (never while the GIL is held, never while Python code runs).
struct Mailbox {
    std::mutex mutex;
    std::condition_variable wake;
    bool finished = false;
    int done = 0, total = 0;
    bool started = false;
    QStringList notices;
};

// Queues the experiment's progress for the calling thread (ExperimentObserver calls come from the
// runner's worker threads, concurrently).
class QueuedProgress : public ExperimentObserver {
public:
    explicit QueuedProgress(Mailbox& box) : m_box(box) {}
    void experimentStarted(qint64, const ExperimentSpec&, int totalUnits) override { update(0, totalUnits); }
    void progress(int done, int total) override { update(done, total); }

private:
    void update(int done, int total)
    {
        const std::lock_guard lock(m_box.mutex);
        // Cells finish side by side and report in any order: the count shown only grows.
        if (!m_box.started || total != m_box.total)
            m_box.done = done;
        else
            m_box.done = std::max(m_box.done, done);
        m_box.total = total;
        m_box.started = true;
    }
    Mailbox& m_box;
};

// The runs of @p curves (a result's configurations, or its selection) as columns: one row per
// repeat, and their checkpoints.
void curveColumns(const ExperimentResult& r, const QList<AlgorithmCurves>& curves, Columns& runs,
                  Columns& points)
{
    std::vector<std::int64_t> experimentId, runId, repeat, datasetIndex;
    std::vector<std::uint64_t> seed;
    QStringList label, configuration, algorithmId, dataset, set, status, error, clock;
    std::vector<QJsonObject> infos;
    std::vector<QVariantMap> settings;
    std::vector<std::int64_t> cpRunId, cpRepeat;
    QStringList cpLabel, cpAlgorithm, cpSet;
    RunColumns::Checkpoints cp;
    for (const AlgorithmCurves& c : curves) {
        const QString setName = r.suiteSets.value(c.datasetIndex);
        for (qsizetype i = 0; i < c.repeats.size(); ++i) {
            const qint64 id = c.runIds.value(i, -1);
            const int rep = c.repeatNumbers.value(i, int(i));
            experimentId.push_back(c.experimentId >= 0 ? c.experimentId : r.experimentId);
            runId.push_back(id);
            label << c.label;
            configuration << (c.configuration.isEmpty() ? c.label : c.configuration);
            algorithmId << c.algorithmId;
            dataset << c.dataset;
            datasetIndex.push_back(c.datasetIndex);
            set << setName;
            repeat.push_back(rep);
            seed.push_back(c.seeds.value(i, 0));
            status << runStatusName(c.statuses.value(i, RunStatus::Failed));
            error << c.errors.value(i);
            clock << (c.clock == ClockKind::Cpu ? QStringLiteral("cpu") : QStringLiteral("wall"));
            infos.push_back(c.infos.value(i));
            settings.push_back(c.setting);
            for (const MetricPoint& p : c.repeats[i]) {
                cp.append(p);
                cpRunId.push_back(id);
                cpRepeat.push_back(rep);
                cpLabel << c.label;
                cpAlgorithm << c.algorithmId;
                cpSet << setName;
            }
        }
    }
    runs.put("label", label);
    runs.put("configuration", configuration);
    runs.put("algorithm_id", algorithmId);
    runs.put("dataset", dataset);
    runs.put("dataset_index", datasetIndex);
    runs.put("set", set);
    runs.put("repeat", repeat);
    runs.put("seed", seed);
    runs.put("status", status);
    runs.put("error", error);
    runs.put("experiment_id", experimentId);
    runs.put("run_id", runId);
    runs.put("clock", clock);
    QSet<QString> taken;
    for (const auto& k : runs.dict())
        taken.insert(QString::fromStdString(py::str(k.first)));
    RunColumns::putFinal(runs, infos, taken);
    RunColumns::putPeakMemory(runs, infos);
    RunColumns::putParams(runs, settings, QStringLiteral("setting."));

    points.put("label", cpLabel);
    points.put("algorithm_id", cpAlgorithm);
    points.put("set", cpSet);
    points.put("repeat", cpRepeat);
    points.put("run_id", cpRunId);
    cp.putInto(points);
}

py::dict summaryColumns(const QList<SummaryPoint>& summary)
{
    Columns c;
    RunColumns::putSummary(c, summary);
    return c.dict();
}

// Says @p message through Python's notify callable; GIL held.
void tell(const py::object& notify, const QString& message)
{
    if (notify.is_none())
        std::fprintf(stderr, "trainbench: %s\n", message.toLocal8Bit().constData());
    else
        notify(PyConvert::str(message));
}

} // namespace

py::dict ModuleRun::run(const Request& request, const py::object& progress, const py::object& notify)
{
    QtRuntime::ensure();
    if (request.threads && (*request.threads < 0 || *request.threads > 1024))
        throw py::value_error("threads: expected an integer in [0, 1024], got " +
                              std::to_string(*request.threads));
    const PluginRegistry* registry = nullptr;
    std::optional<ExperimentSpec> spec;
    QString error;
    QStringList notes, problems;
    {
        py::gil_scoped_release release; // a plugin may take the GIL while the registry loads it
        registry = &ModuleRegistry::get();
        if (request.isPath) {
            spec = ExperimentSpec::fromFile(fromPath(request.spec), &error);
        } else {
            // A dict's relative paths (data files, a suite's "suite") resolve against the current
            // folder: fromObject() reads a suite file relative to the source name's folder.
            spec = ExperimentSpec::fromJson(QByteArray::fromStdString(request.spec),
                                            QStringLiteral("experiment dict"), &error);
            if (spec)
                spec->baseDir = QDir::currentPath();
        }
        if (spec) {
            if (request.threads)
                spec->threads = *request.threads;
            notes = spec->warnings;
            notes << spec->upgradeParams(*registry);
            problems = spec->validate(*registry);
        }
    }
    if (!spec)
        throw py::value_error(error.toStdString());
    if (!problems.isEmpty())
        throw py::value_error(problems.join(QLatin1Char('\n')).toStdString());
    if (request.resume && !request.db)
        throw py::value_error("resume=True continues an experiment stored in a database: give db as well");
    for (const QString& n : std::as_const(notes))
        tell(notify, n);

    Mailbox box;
    std::unique_ptr<RunStore> store;
    qint64 resumeId = -1;
    {
        py::gil_scoped_release release;
        if (request.db) {
            RunStore::Options options;
            // open() may wait for another process's lock; say so as the CLI does.
            options.onOpenWait = [&box](const QString& message) {
                const std::lock_guard lock(box.mutex);
                box.notices << message;
            };
            store = RunStore::open(fromPath(*request.db), options, &error);
            if (store && request.resume && !spec->isSuite())
                resumeId = ExperimentRunner::resumable(*store, *spec, &error);
        }
    }
    {
        // Notices of the open, said before anything can fail.
        QStringList said;
        {
            const std::lock_guard lock(box.mutex);
            said.swap(box.notices);
        }
        for (const QString& n : std::as_const(said))
            tell(notify, n);
    }
    if (request.db && !store)
        throw StoreError(error.toStdString());
    if (request.resume && !spec->isSuite() && resumeId < 0)
        throw ExperimentError(error.toStdString());
    if (store)
        QObject::connect(
            store.get(), &RunStore::waiting, store.get(),
            [&box](const QString& message, bool) {
                if (message.isEmpty())
                    return;
                const std::lock_guard lock(box.mutex);
                box.notices << message;
            },
            Qt::DirectConnection);

    auto runner = std::make_unique<ExperimentRunner>(*registry, store.get());
    std::unique_ptr<SuiteRunner> suite;
    QList<SuiteSetOutcome> plan;
    if (spec->isSuite()) {
        suite = std::make_unique<SuiteRunner>(*runner, *registry, store.get());
        {
            py::gil_scoped_release release;
            plan = suite->plan(*spec, request.resume);
        }
        for (const SuiteSetOutcome& o : std::as_const(plan))
            if (!o.absent.isEmpty())
                tell(notify, QStringLiteral(
                                 "skipped: set \"%1\" is not downloaded (%2): run `%3`, then run the suite "
                                 "again with resume=True")
                                 .arg(o.set.name, o.set.origin, o.absent));
    }

    QueuedProgress observer(box);
    ExperimentResult result;
    SuiteResult suiteResult;
    QString suiteError, crash;
    std::optional<py::error_already_set> pending; // what stopped the run from Python's side
    QString storeFailure;
    {
        py::gil_scoped_release release;
        std::thread training([&] {
            try {
                if (suite)
                    suiteResult = suite->run(*spec, &observer, request.resume, plan, &suiteError);
                else
                    result = resumeId >= 0 ? runner->resume(*spec, resumeId, &observer)
                                           : runner->run(*spec, &observer);
            } catch (const std::exception& e) {
                crash = QString::fromUtf8(e.what());
            } catch (...) {
                crash = QStringLiteral("unknown exception");
            }
            const std::lock_guard lock(box.mutex);
            box.finished = true;
            box.wake.notify_all();
        });
        bool stopped = false;
        auto stop = [&] {
            if (stopped)
                return;
            stopped = true;
            if (suite)
                suite->requestStop();
            runner->requestStop();
        };
        int shownDone = -1, shownTotal = -1;
        for (;;) {
            bool finished = false, started = false;
            int done = 0, total = 0;
            QStringList notices;
            {
                std::unique_lock lock(box.mutex);
                box.wake.wait_for(lock, std::chrono::milliseconds(50), [&] { return box.finished; });
                finished = box.finished;
                started = box.started;
                done = box.done;
                total = box.total;
                notices.swap(box.notices);
            }
            {
                py::gil_scoped_acquire gil;
                try {
                    for (const QString& n : std::as_const(notices))
                        if (pending)
                            std::fprintf(stderr, "trainbench: %s\n", n.toLocal8Bit().constData());
                        else
                            tell(notify, n);
                    if (!pending && started && !progress.is_none() &&
                        (done != shownDone || total != shownTotal)) {
                        shownDone = done;
                        shownTotal = total;
                        progress(done, total);
                    }
                    if (PyErr_CheckSignals() != 0)
                        throw py::error_already_set();
                } catch (py::error_already_set& e) {
                    if (!pending)
                        pending.emplace(
                            std::move(e)); // later ones (a second Ctrl-C) are dropped: we stop anyway
                    stop();
                } catch (const std::exception& e) {
                    // A C++ exception out of a callback's conversion: stop, and raise it as Python would.
                    if (!pending) {
                        PyErr_SetString(PyExc_RuntimeError, e.what());
                        pending.emplace();
                    }
                    stop();
                }
            }
            if (finished)
                break;
        }
        training.join();
        if (store)
            storeFailure = store->failure();
        suite.reset();
        runner.reset();
        store.reset(); // flushes what is queued and closes the file, before the call returns
    }
    if (pending)
        throw *pending;
    if (!crash.isEmpty())
        throw ExperimentError(("the experiment stopped on an unexpected error: " + crash).toStdString());

    const ExperimentResult& r = spec->isSuite() ? suiteResult.merged : result;
    if (spec->isSuite()) {
        if (!suiteError.isEmpty())
            throw ExperimentError(suiteError.toStdString());
        int ran = 0;
        for (const SuiteSetOutcome& o : std::as_const(suiteResult.sets))
            ran += o.ran ? 1 : 0;
        if (ran > 0 && suiteResult.setErrors.size() == ran && r.curves.isEmpty())
            throw ExperimentError(suiteResult.setErrors.join(QLatin1Char('\n')).toStdString());
    } else if (!r.error.isEmpty()) {
        throw ExperimentError(r.error.toStdString());
    }

    py::dict out;
    out["experiment_id"] = py::int_(r.experimentId);
    out["kind"] = PyConvert::str(r.kind.isEmpty() ? spec->kind : r.kind);
    out["name"] = PyConvert::str(spec->name);
    out["cancelled"] = py::bool_(r.cancelled);
    out["error"] = PyConvert::str(r.error);
    QString storeError = r.storeError;
    if (storeError.isEmpty() && !storeFailure.isEmpty())
        storeError = storeFailure; // a write that failed after the runner's last look (the final flush)
    out["store_error"] = PyConvert::str(storeError);
    out["warnings"] = PyConvert::strings(notes + r.warnings);
    out["result_warnings"] = PyConvert::strings(r.warnings); // the ones not yet told through notify
    out["wall_seconds"] = py::float_(r.wallSeconds);
    out["runs_planned"] = py::int_(r.runsPlanned);
    out["runs_finished"] = py::int_(r.runsFinished);
    out["runs_failed"] = py::int_(r.runsFailed);
    out["runs_cancelled"] = py::int_(r.runsCancelled);
    out["runs_not_started"] = py::int_(r.runsNotStarted);
    out["run_errors"] = PyConvert::strings(r.runErrors);
    out["varied_keys"] = PyConvert::strings(r.variedKeys);
    out["suite_sets"] = PyConvert::strings(r.suiteSets);
    py::list experimentIds;
    if (spec->isSuite()) {
        for (qint64 id : std::as_const(suiteResult.experimentIds))
            experimentIds.append(py::int_(id));
    } else if (r.experimentId >= 0) {
        experimentIds.append(py::int_(r.experimentId));
    }
    out["experiment_ids"] = experimentIds;
    out["set_errors"] = PyConvert::strings(suiteResult.setErrors);
    const ExperimentKind* kind = ExperimentKinds::find(spec->kind);
    out["summary_axis"] = PyConvert::str(kind ? kind->summaryAxis() : QString());
    Columns runs, points, selectionRuns, selectionPoints;
    curveColumns(r, r.curves, runs, points);
    curveColumns(r, r.selection, selectionRuns, selectionPoints);
    out["runs"] = runs.dict();
    out["checkpoints"] = points.dict();
    out["selection_runs"] = selectionRuns.dict();
    out["selection_checkpoints"] = selectionPoints.dict();
    out["summary"] = summaryColumns(r.summary);
    return out;
}

} // namespace tb::python
