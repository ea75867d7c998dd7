#include "ModuleStore.h"
#include "ModuleErrors.h"
#include "QtRuntime.h"
#include "RunColumns.h"

#include <store/RunStore.h>

#include <QFile>
#include <QHash>
#include <QSet>

#include <pybind11/stl.h>

#include <unordered_set>

namespace tb::python {
namespace {

QString fromPath(const std::string& path)
{
    return QFile::decodeName(QByteArray::fromStdString(path));
}

// Throws StoreError with @p error unless it is empty.
void check(const QString& error)
{
    if (!error.isEmpty())
        throw StoreError(error.toStdString());
}

// The run ids @p runs names: an int, or an iterable of ints (GIL held).
std::vector<qint64> runIds(const py::object& runs)
{
    std::vector<qint64> ids;
    if (py::isinstance<py::bool_>(runs))
        throw py::type_error("run: expected a run id (int) or a list of them, got a bool");
    if (py::isinstance<py::int_>(runs) || py::hasattr(runs, "__index__")) {
        ids.push_back(runs.cast<qint64>());
        return ids;
    }
    if (py::isinstance<py::str>(runs) || !py::hasattr(runs, "__iter__"))
        throw py::type_error("run: expected a run id (int) or a list of them, got " +
                             std::string(py::str(runs.get_type().attr("__name__"))));
    for (const py::handle item : runs) {
        if (py::isinstance<py::bool_>(item) ||
            !(py::isinstance<py::int_>(item) || py::hasattr(item, "__index__")))
            throw py::type_error("run: every run id must be an int, got " + std::string(py::repr(item)));
        ids.push_back(item.cast<qint64>());
    }
    return ids;
}

} // namespace

ModuleStore::ModuleStore(const std::string& path)
{
    QtRuntime::ensure();
    QString error;
    std::unique_ptr<RunStore> store;
    {
        py::gil_scoped_release release;
        RunStore::Options options;
        options.readOnly = true;
        store = RunStore::open(fromPath(path), options, &error);
    }
    if (!store)
        throw StoreError(
            (error.isEmpty() ? QStringLiteral("%1: cannot open the run store").arg(fromPath(path)) : error)
                .toStdString());
    m_path = QFile::encodeName(store->path()).toStdString();
    m_store = std::move(store);
}

ModuleStore::~ModuleStore() = default;

std::string ModuleStore::path() const
{
    return m_path;
}

int ModuleStore::schemaVersion() const
{
    const auto store = open();
    py::gil_scoped_release release;
    return store->schemaVersion();
}

void ModuleStore::close()
{
    std::shared_ptr<RunStore> last = std::move(m_store);
    py::gil_scoped_release release; // the last reference closes the connections
    last.reset();
}

std::shared_ptr<RunStore> ModuleStore::open() const
{
    if (!m_store)
        throw StoreError(m_path + ": the store is closed");
    return m_store;
}

void ModuleStore::requireExperiment(const RunStore& store, long long id)
{
    QString error;
    const auto e = store.experiment(id, &error);
    check(error);
    if (!e)
        throw py::key_error(
            QStringLiteral("%1 holds no experiment %2").arg(store.path()).arg(id).toStdString());
}

py::dict ModuleStore::experiments() const
{
    const auto store = open();
    QList<ExperimentRecord> records;
    QString error;
    {
        py::gil_scoped_release release;
        records = store->experiments(&error);
    }
    check(error);
    const std::size_t n = std::size_t(records.size());
    std::vector<std::int64_t> id(n);
    std::vector<double> created(n);
    QStringList name, kind, appVersion, gitHash, description;
    py::list spec(n);
    for (std::size_t i = 0; i < n; ++i) {
        const ExperimentRecord& e = records[qsizetype(i)];
        id[i] = e.id;
        created[i] = PyConvert::msSinceEpoch(e.created);
        name << e.name;
        kind << e.kind;
        appVersion << e.appVersion;
        gitHash << e.gitHash;
        description << e.spec.value(QStringLiteral("description")).toString();
        spec[i] = PyConvert::json(e.spec);
    }
    Columns c;
    c.put("id", id);
    c.put("name", name);
    c.put("kind", kind);
    c.put("created", created);
    c.put("app_version", appVersion);
    c.put("git_hash", gitHash);
    c.put("description", description);
    c.put(std::string("spec"), spec);
    return c.dict();
}

py::dict ModuleStore::runs(std::optional<long long> experiment, bool withInfo) const
{
    const auto store = open();
    QList<RunRecord> records;
    QString error;
    {
        py::gil_scoped_release release;
        if (experiment)
            requireExperiment(*store, *experiment);
        records = store->runs(experiment ? *experiment : -1, &error);
    }
    check(error);
    const std::size_t n = std::size_t(records.size());
    std::vector<std::int64_t> id(n), experimentId(n), threads(n), repeat(n);
    std::vector<std::uint64_t> seed(n);
    std::vector<double> sigma(n), started(n), ended(n);
    QStringList algorithmId, algorithmName, pluginId, pluginVersion, dataset, status, runError, appVersion,
        note;
    py::list tags(n);
    std::vector<QJsonObject> infos;
    std::vector<QVariantMap> params;
    infos.reserve(n);
    params.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const RunRecord& r = records[qsizetype(i)];
        id[i] = r.id;
        experimentId[i] = r.experimentId;
        algorithmId << r.algorithmId;
        algorithmName << r.algorithmName;
        pluginId << r.pluginId;
        pluginVersion << r.pluginVersion;
        dataset << r.dataset;
        seed[i] = r.seed;
        threads[i] = r.threads;
        repeat[i] = r.repeat;
        sigma[i] = r.sigma;
        status << runStatusName(r.status);
        runError << r.error;
        started[i] = PyConvert::msSinceEpoch(r.started);
        ended[i] = PyConvert::msSinceEpoch(r.ended);
        appVersion << r.appVersion;
        tags[i] = py::tuple(PyConvert::strings(r.tags));
        note << r.note;
        infos.push_back(r.info);
        params.push_back(r.params);
    }
    Columns c;
    c.put("id", id);
    c.put("experiment_id", experimentId);
    c.put("algorithm_id", algorithmId);
    c.put("algorithm_name", algorithmName);
    c.put("plugin_id", pluginId);
    c.put("plugin_version", pluginVersion);
    c.put("dataset", dataset);
    c.put("seed", seed);
    c.put("threads", threads);
    c.put("repeat", repeat);
    c.put("sigma", sigma);
    c.put("status", status);
    c.put("error", runError);
    c.put("started", started);
    c.put("ended", ended);
    c.put("app_version", appVersion);
    c.put(std::string("tags"), tags);
    c.put("note", note);
    QSet<QString> taken;
    for (const auto& k : c.dict())
        taken.insert(QString::fromStdString(py::str(k.first)));
    RunColumns::putFinal(c, infos, taken);
    RunColumns::putPeakMemory(c, infos);
    RunColumns::putParams(c, params, QStringLiteral("param."));
    if (withInfo) {
        py::list info(n);
        for (std::size_t i = 0; i < n; ++i)
            info[i] = PyConvert::json(infos[i]);
        c.put(std::string("info"), info);
    }
    return c.dict();
}

py::dict ModuleStore::checkpoints(const py::object& runs, std::optional<long long> experiment) const
{
    if (!runs.is_none() && experiment)
        throw py::value_error("checkpoints: give run or experiment, not both");
    const auto store = open();
    const bool given = !runs.is_none();
    std::vector<qint64> ids = given ? runIds(runs) : std::vector<qint64>{};
    RunColumns::Checkpoints points;
    std::vector<std::int64_t> runColumn;
    {
        py::gil_scoped_release release;
        QString error;
        if (experiment)
            requireExperiment(*store, *experiment);
        // One listing (without parameters) of the file names every run: the ids given are checked
        // against it, or an experiment's (every run's) ids are taken from it.
        const QList<RunRecord> listing = store->runListing(&error);
        check(error);
        if (given) {
            std::unordered_set<qint64> known;
            for (const RunRecord& r : listing)
                known.insert(r.id);
            QStringList unknown;
            for (qint64 id : ids)
                if (!known.count(id))
                    unknown << QString::number(id);
            if (!unknown.isEmpty())
                throw py::key_error(QStringLiteral("%1 holds no run %2")
                                        .arg(store->path(), unknown.join(QStringLiteral(", ")))
                                        .toStdString());
        } else {
            for (const RunRecord& r : listing)
                if (!experiment || r.experimentId == *experiment)
                    ids.push_back(r.id);
        }
        for (qint64 id : ids) {
            const QVector<MetricPoint> m = store->metrics(id, &error);
            check(error);
            for (const MetricPoint& p : m) {
                points.append(p);
                runColumn.push_back(id);
            }
        }
    }
    Columns c;
    c.put("run_id", runColumn);
    points.putInto(c);
    return c.dict();
}

py::dict ModuleStore::summaryPoints(std::optional<long long> experiment) const
{
    const auto store = open();
    std::vector<std::int64_t> experimentId;
    QList<SummaryPoint> all;
    {
        py::gil_scoped_release release;
        QString error;
        QList<qint64> experiments;
        if (experiment) {
            requireExperiment(*store, *experiment);
            experiments << *experiment;
        } else {
            for (const ExperimentRecord& e : store->experiments(&error))
                experiments << e.id;
            check(error);
        }
        for (qint64 id : std::as_const(experiments)) {
            const QList<SummaryPoint> points = store->summaryPoints(id, &error);
            check(error);
            all << points;
            experimentId.insert(experimentId.end(), std::size_t(points.size()), id);
        }
    }
    Columns c;
    c.put("experiment_id", experimentId);
    RunColumns::putSummary(c, all);
    return c.dict();
}

} // namespace tb::python
