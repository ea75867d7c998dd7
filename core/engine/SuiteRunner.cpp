#include "SuiteRunner.h"

#include "ExperimentKind.h"
#include "PluginRegistry.h"
#include <store/RunStore.h>

namespace tb {
namespace {

// One progress over the suite: each set's units counted after the sets before it; the suite
// starts once (with its total), and each set is announced before it starts (suiteSetStarted).
class SuiteObserver final : public ExperimentObserver {
public:
    SuiteObserver(ExperimentObserver* inner, int total, ExperimentRunner& runner, const std::atomic<bool>& stop)
        : m_inner(inner), m_total(total), m_runner(runner), m_stop(stop)
    {
    }

    void beginSet(int index, int sets, const ExperimentSpec& spec, int offset)
    {
        m_offset = offset;
        if (m_inner)
            m_inner->suiteSetStarted(index, sets, spec);
    }

    void experimentStarted(qint64 experimentId, const ExperimentSpec& spec, int) override
    {
        // A Stop of the suite that came as the set's experiment began (which resets the runner's
        // stop) reaches its runs all the same.
        if (m_stop)
            m_runner.requestStop();
        if (m_inner && !m_started)
            m_inner->experimentStarted(experimentId, spec, m_total);
        m_started = true;
        if (m_inner)
            m_inner->progress(m_offset, m_total);
    }
    void progress(int done, int) override
    {
        if (m_inner)
            m_inner->progress(m_offset + done, m_total);
    }
    void summaryPointReady(const SummaryPoint& p) override
    {
        if (m_inner)
            m_inner->summaryPointReady(p);
    }
    void statusChanged(const QStringList& lines) override
    {
        // As the set's kind wrote them: the observer knows the set from suiteSetStarted().
        if (m_inner)
            m_inner->statusChanged(lines);
    }
    void cellFinished(int cell, int configuration, const RunResult& r) override
    {
        if (m_inner)
            m_inner->cellFinished(cell, configuration, r);
    }
    void runStarted(const RunJob& job, qint64 runId) override
    {
        if (m_inner)
            m_inner->runStarted(job, runId);
    }
    void costPredicted(const RunJob& job, qint64 runId, const QJsonObject& cost) override
    {
        if (m_inner)
            m_inner->costPredicted(job, runId, cost);
    }
    void checkpointLogged(const RunJob& job, qint64 runId, const MetricPoint& p) override
    {
        if (m_inner)
            m_inner->checkpointLogged(job, runId, p);
    }
    void modelReady(const RunJob& job, const Trainer& trainer, const MetricPoint& p, const QJsonObject& facts,
                    bool final) override
    {
        if (m_inner)
            m_inner->modelReady(job, trainer, p, facts, final);
    }
    void runFinished(const RunJob& job, const RunResult& r) override
    {
        if (m_inner)
            m_inner->runFinished(job, r);
    }
    void trainingClock(const RunJob& job, bool running) override
    {
        if (m_inner)
            m_inner->trainingClock(job, running);
    }

private:
    ExperimentObserver* m_inner;
    int m_total;
    ExperimentRunner& m_runner;
    const std::atomic<bool>& m_stop;
    int m_offset = 0;
    bool m_started = false;
};

// Adds set @p index's result into the suite's.
void merge(ExperimentResult& into, const ExperimentResult& r, int index, const QString& setName)
{
    for (AlgorithmCurves c : r.curves) {
        c.dataset = setName;
        c.datasetIndex = index;
        c.experimentId = r.experimentId;
        into.curves << c;
    }
    for (AlgorithmCurves c : r.selection) {
        c.dataset = setName;
        c.datasetIndex = index;
        c.experimentId = r.experimentId;
        into.selection << c;
    }
    into.summary << r.summary;
    into.summaryRuns << r.summaryRuns;
    into.runsPlanned += r.runsPlanned;
    into.runsFinished += r.runsFinished;
    into.runsFailed += r.runsFailed;
    into.runsCancelled += r.runsCancelled;
    into.runsNotStarted += r.runsNotStarted;
    for (const QString& e : r.runErrors)
        into.runErrors << QStringLiteral("set %1: %2").arg(setName, e);
    for (const QString& w : r.warnings)
        into.warnings << QStringLiteral("set %1: %2").arg(setName, w);
    into.wallSeconds += r.wallSeconds;
    for (const QString& k : r.variedKeys)
        if (!into.variedKeys.contains(k))
            into.variedKeys << k;
    if (into.experimentId < 0)
        into.experimentId = r.experimentId;
}

} // namespace

SuiteRunner::SuiteRunner(ExperimentRunner& runner, const PluginRegistry& registry, const RunStore* store)
    : m_runner(runner), m_registry(registry), m_store(store)
{
}

void SuiteRunner::requestStop()
{
    m_stop = true;
    m_runner.requestStop();
}

QList<SuiteSetOutcome> SuiteRunner::plan(const ExperimentSpec& suite, bool resume) const
{
    QList<SuiteSetOutcome> out;
    for (int i = 0; i < suite.suite.size(); ++i) {
        SuiteSetOutcome o;
        o.set = suite.suite[i];
        o.spec = Suite::setSpec(suite, i, m_registry, &o.gaps);
        o.absent = Suite::absentBecause(o.set);
        if (resume && m_store && o.absent.isEmpty()) {
            QString none;
            o.resumedFrom = ExperimentRunner::resumable(*m_store, o.spec, &none);
        }
        out << o;
    }
    return out;
}

SuiteResult SuiteRunner::run(const ExperimentSpec& suite, ExperimentObserver* observer, bool resume, QString* error)
{
    return run(suite, observer, resume, plan(suite, resume), error);
}

SuiteResult SuiteRunner::run(const ExperimentSpec& suite, ExperimentObserver* observer, bool resume,
                             const QList<SuiteSetOutcome>& sets, QString* error)
{
    m_stop = false;
    SuiteResult out;
    out.merged.kind = suite.kind;
    const ExperimentKind* kind = ExperimentKinds::find(suite.kind);
    out.sets = sets;
    for (const SuiteSetOutcome& o : std::as_const(out.sets))
        out.merged.suiteSets << o.set.name;
    int total = 0;
    for (const SuiteSetOutcome& o : std::as_const(out.sets))
        if (o.absent.isEmpty() && kind)
            total += kind->plannedRuns(o.spec);
    if (resume && std::none_of(out.sets.begin(), out.sets.end(), [](const SuiteSetOutcome& o) { return o.resumedFrom >= 0; })) {
        if (error)
            *error = QStringLiteral("nothing to resume: %1 holds no set of the suite \"%2\" with this file's settings; run it "
                                    "without --resume")
                         .arg(m_store ? m_store->path() : QStringLiteral("the database"), suite.name);
        out.merged.error = error ? *error : QString();
        return out;
    }
    SuiteObserver progress(observer, total, m_runner, m_stop);
    int offset = 0;
    for (int i = 0; i < out.sets.size(); ++i) {
        SuiteSetOutcome& o = out.sets[i];
        if (!o.absent.isEmpty())
            continue;
        if (m_stop) {
            out.cancelled = true;
            break;
        }
        progress.beginSet(i, int(out.sets.size()), o.spec, offset);
        if (m_stop) { // asked for as the set was announced
            out.cancelled = true;
            break;
        }
        if (beginSet)
            beginSet(o.spec);
        o.result = o.resumedFrom >= 0 ? m_runner.resume(o.spec, o.resumedFrom, &progress) : m_runner.run(o.spec, &progress);
        if (endSet)
            endSet();
        o.ran = true;
        if (kind)
            offset += kind->plannedRuns(o.spec);
        if (!o.result.error.isEmpty())
            out.setErrors << QStringLiteral("set %1: %2").arg(o.set.name, o.result.error);
        merge(out.merged, o.result, i, o.set.name);
        if (o.result.experimentId >= 0)
            out.experimentIds << o.result.experimentId;
        if (!o.result.storeError.isEmpty()) {
            // What cannot be recorded must not go on: the suite stops where the set stopped.
            out.storeError = o.result.storeError;
            break;
        }
        if (o.result.cancelled || m_stop) {
            out.cancelled = true;
            break;
        }
    }
    out.merged.cancelled = out.cancelled;
    out.merged.storeError = out.storeError;
    return out;
}

} // namespace tb
