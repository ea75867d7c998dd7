#include "ExperimentRunner.h"

#include "ExperimentContext.h"
#include "ExperimentKind.h"
#include "PluginRegistry.h"
#include <store/RunStore.h>

#include <store/BuildInfo.h>
#include <data/DataSource.h>

#include <QElapsedTimer>

#ifndef TB_APP_VERSION
#define TB_APP_VERSION "0.0.0"
#endif

namespace tb {

ExperimentRunner::ExperimentRunner(const PluginRegistry& registry, RunStore* store, CellExecutor* executor)
    : m_registry(registry), m_store(store), m_executor(executor ? executor : &m_local),
      m_context(std::make_unique<ExperimentContext>(registry, store, *m_executor, m_stop))
{
}

ExperimentRunner::~ExperimentRunner() = default;

QJsonObject ExperimentRunner::storedSpec(const ExperimentSpec& spec)
{
    QJsonObject json = spec.toJson();
    // Paths absolute, so the row re-runs the same data from any working directory.
    json.insert(QStringLiteral("dataset"), data::DataSource::withAbsolutePaths(spec.dataset, spec.baseDir));
    return json;
}

qint64 ExperimentRunner::resumable(const RunStore& store, const ExperimentSpec& spec, QString* error)
{
    QString readError;
    const QList<ExperimentRecord> all = store.experiments(&readError);
    if (!readError.isEmpty()) {
        if (error)
            *error = readError;
        return -1;
    }
    // The same settings: everything but the description, prose that a file may correct without
    // making its stored runs someone else's.
    const auto settings = [](QJsonObject o) {
        o.remove(QStringLiteral("description"));
        // Experiments stored before parameter formats have none; where their parameters did not
        // change meaning, they are this one's.
        o.remove(QStringLiteral("format"));
        return o;
    };
    const QJsonObject wanted = settings(storedSpec(spec));
    for (auto it = all.rbegin(); it != all.rend(); ++it)
        if (it->name == spec.name && settings(it->spec) == wanted)
            return it->id;
    if (error) {
        int sameName = 0;
        for (const ExperimentRecord& e : all)
            sameName += e.name == spec.name;
        *error = QStringLiteral("nothing to resume: %1 holds no experiment \"%2\" with this file's settings (%3 "
                                "with that name, none with the same data, algorithms, seeds and threads); run it "
                                "without --resume")
                     .arg(store.path(), spec.name)
                     .arg(sameName);
    }
    return -1;
}

ExperimentResult ExperimentRunner::run(const ExperimentSpec& spec, ExperimentObserver* observer)
{
    return execute(spec, observer, -1);
}

ExperimentResult ExperimentRunner::resume(const ExperimentSpec& spec, qint64 experimentId, ExperimentObserver* observer)
{
    return execute(spec, observer, experimentId);
}

ExperimentResult ExperimentRunner::execute(const ExperimentSpec& given, ExperimentObserver* observer, qint64 resumeId)
{
    // Parameters of an earlier format run as their meaning converted (the callers that read
    // files convert them first, with notes for the user; the stored spec is then the current one).
    ExperimentSpec converted;
    if (given.paramsFormat < kParamsFormat) {
        converted = given;
        converted.upgradeParams(m_registry);
    }
    const ExperimentSpec& spec = given.paramsFormat < kParamsFormat ? converted : given;
    m_stop.reset();
    const bool resuming = resumeId >= 0;
    m_context->begin(resuming, {});
    const bool writes = m_context->writesExperiment();
    QElapsedTimer wall;
    wall.start();
    // The first store failure of this experiment stops it: what cannot be recorded must not go on
    // training as if it were. The writer thread calls this directly; requestStop() is an atomic.
    QMetaObject::Connection watching;
    if (m_store)
        watching = QObject::connect(m_store, &RunStore::writeFailed, [this](const QString& message) {
            m_context->storeFailed(message);
            m_stop.requestStop();
        });
    qint64 experimentId = -1;
    auto refused = [&](const QString& message) {
        QObject::disconnect(watching);
        ExperimentResult r;
        r.kind = spec.kind;
        r.error = message;
        return r;
    };
    const ExperimentKind* kind = ExperimentKinds::find(spec.kind);
    if (!kind)
        return refused(QStringLiteral("unknown experiment kind \"%1\" (known: %2)")
                           .arg(spec.kind, ExperimentKinds::ids().join(", ")));
    if (resuming) {
        if (!m_store || m_executor->isWorker())
            return refused(QStringLiteral("resuming an experiment needs its database"));
        QString readError;
        const auto exp = m_store->experiment(resumeId, &readError);
        if (!exp)
            return refused(readError.isEmpty() ? QStringLiteral("no experiment %1 in %2 to resume").arg(resumeId).arg(m_store->path())
                                               : readError);
        QList<RunRecord> stored = m_store->runs(resumeId, &readError);
        if (!readError.isEmpty())
            return refused(readError);
        // The claim, taken in one transaction: of two resumes started at once, one proceeds.
        QString holder;
        if (!m_store->claimExperiment(resumeId, &holder))
            return refused(holder.isEmpty()
                               ? QStringLiteral("cannot resume experiment %1 of %2: %3")
                                     .arg(resumeId)
                                     .arg(m_store->path(), m_store->lastError())
                               : QStringLiteral("cannot resume experiment %1 of %2: another process (%3) is running "
                                                "or resuming it now. Wait for it to end (or stop it), then resume what "
                                                "is left")
                                     .arg(resumeId)
                                     .arg(m_store->path(), holder));
        // And a run read as running has a live owner (a dead one's reads as interrupted): another
        // process (of a build before claims) is running or resuming this experiment. Resuming
        // beside it would delete the runs it trains and train its cells twice.
        const RunStoreOwner& me = RunStoreOwner::current();
        for (const RunRecord& r : std::as_const(stored))
            if (r.status == RunStatus::Running &&
                !(r.owner.pid == me.pid && r.owner.host == me.host && r.owner.startTicks == me.startTicks)) {
                m_store->releaseExperiment(resumeId);
                return refused(QStringLiteral("cannot resume experiment %1 of %2: another process (%3) is training "
                                              "its run %4 now — it is running or resuming this experiment. Wait for "
                                              "it to end (or stop it), then resume what is left")
                                   .arg(resumeId)
                                   .arg(m_store->path(), r.owner.describe())
                                   .arg(r.id));
            }
        m_context->begin(true, std::move(stored));
        experimentId = resumeId;
    } else if (writes) {
        ExperimentRecord rec;
        rec.name = spec.name;
        rec.kind = spec.kind;
        rec.spec = storedSpec(spec);
        rec.created = QDateTime::currentDateTimeUtc();
        rec.appVersion = QStringLiteral(TB_APP_VERSION);
        rec.gitHash = gitHash();
        experimentId = m_store->createExperiment(rec);
        if (experimentId < 0) {
            QString failure = m_context->storeFailure();
            if (failure.isEmpty())
                failure = m_store->lastError();
            ExperimentResult r = refused(QStringLiteral("cannot record the experiment in %1, so it was not started: %2")
                                             .arg(m_store->path(), failure));
            r.storeError = failure;
            return r;
        }
        // Claimed while it runs, so that a resume of it from another process waits for this one.
        QString holder;
        m_store->claimExperiment(experimentId, &holder); // a new row: no one else holds it
    }
    ExperimentResult r = kind->run(*m_context, spec, experimentId, observer);
    r.kind = spec.kind;
    if (writes && experimentId >= 0)
        m_store->releaseExperiment(experimentId); // created or resumed claimed by this process
    if (writes && !resuming && !r.error.isEmpty()) {
        // The data did not load and no run started: an empty experiment row would only confuse.
        m_store->deleteExperiment(experimentId);
        experimentId = -1;
    }
    r.experimentId = experimentId;
    if (m_store)
        m_store->flush(-1); // every write of this experiment is committed or reported (bounded by the busy timeout)
    QObject::disconnect(watching);
    r.storeError = m_context->storeFailure();
    r.cancelled = m_stop.stopRequested() && r.storeError.isEmpty();
    r.wallSeconds = wall.elapsed() / 1000.0;
    return r;
}

} // namespace tb
