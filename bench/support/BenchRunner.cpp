#include "BenchRunner.h"

#include "TrainingCpuClock.h"

#include <tbb/task_arena.h>

#include <stdexcept>

namespace tb::bench {
namespace {

/// Keeps the run's process CPU time with the host's pauses and passes everything on.
class ClockObserver final : public RunObserver {
public:
    ClockObserver(RunObserver* next, BenchRun& out) : m_next(next), m_out(out) {}

    void trainingClock(const RunJob& job, bool running) override
    {
        m_cpu.update(running);
        m_out.trainCpuSeconds = m_cpu.seconds();
        if (m_next)
            m_next->trainingClock(job, running);
    }
    void runStarted(const RunJob& job, qint64 runId) override
    {
        if (m_next)
            m_next->runStarted(job, runId);
    }
    void costPredicted(const RunJob& job, qint64 runId, const QJsonObject& cost) override
    {
        if (m_next)
            m_next->costPredicted(job, runId, cost);
    }
    void checkpointLogged(const RunJob& job, qint64 runId, const MetricPoint& p) override
    {
        m_out.cpuSeconds.push_back(m_out.trainCpuSeconds); // the clock is stopped here
        if (m_next)
            m_next->checkpointLogged(job, runId, p);
    }
    void modelReady(const RunJob& job, const Trainer& trainer, const MetricPoint& p, const QJsonObject& facts,
                    bool final) override
    {
        if (m_next)
            m_next->modelReady(job, trainer, p, facts, final);
    }
    void runFinished(const RunJob& job, const RunResult& r) override
    {
        if (m_next)
            m_next->runFinished(job, r);
    }

private:
    RunObserver* m_next;
    BenchRun& m_out;
    TrainingCpuClock m_cpu;
};

} // namespace

void BenchRun::requireFinished(const QString& what) const
{
    if (finished())
        return;
    throw std::runtime_error(
        QStringLiteral("%1: the run ended %2%3")
            .arg(what, runStatusName(result.status),
                 result.error.isEmpty() ? QString() : QStringLiteral(": ") + result.error)
            .toStdString());
}

double BenchRun::fact(const QString& key, double fallback) const
{
    const QJsonValue v = result.info.value(key);
    return v.isDouble() ? v.toDouble() : fallback;
}

BenchRunner::BenchRunner()
{
    m_registry.scan();
    if (m_registry.algorithms().isEmpty())
        throw std::runtime_error(QStringLiteral("no trainer plugin loaded from %1 (build the plugins, or set "
                                                "TRAINBENCH_PLUGIN_PATH)")
                                     .arg(m_registry.searchPaths().join(QStringLiteral(":")))
                                     .toStdString());
}

const AlgorithmEntry& BenchRunner::require(const QString& algorithmId) const
{
    if (const AlgorithmEntry* e = m_registry.algorithm(algorithmId))
        return *e;
    QStringList broken;
    for (const auto& p : m_registry.plugins())
        if (!p->isLoaded())
            broken << QStringLiteral("%1 (%2: %3)").arg(p->filePath, p->stateName(), p->error);
    throw std::runtime_error(
        QStringLiteral("no plugin offers the algorithm \"%1\"; plugin search path: %2%3")
            .arg(algorithmId, m_registry.searchPaths().join(QStringLiteral(":")),
                 broken.isEmpty() ? QString() : QStringLiteral("; not loaded: ") + broken.join("; "))
            .toStdString());
}

QVariantMap BenchRunner::normalise(const QString& algorithmId, const QVariantMap& params) const
{
    QString error;
    const auto normalised = require(algorithmId).info.schema.normalise(params, &error);
    if (!normalised)
        throw std::invalid_argument(QStringLiteral("%1: %2").arg(algorithmId, error).toStdString());
    return *normalised;
}

RunJob BenchRunner::job(const QString& algorithmId, const QVariantMap& params,
                        std::shared_ptr<const data::DatasetPair> data, std::uint64_t seed, int threads)
{
    RunJob j;
    j.algorithmId = algorithmId;
    j.params = params;
    j.seed = seed;
    j.data = std::move(data);
    j.threads = threads;
    return j;
}

BenchRun BenchRunner::run(const RunJob& job, RunObserver* observer, const StopSource* stop) const
{
    BenchRun out;
    tbb::task_arena arena(std::max(1, job.threads));
    arena.execute([&] { out = runHere(job, observer, stop); });
    return out;
}

BenchRun BenchRunner::runHere(const RunJob& job, RunObserver* observer, const StopSource* stop) const
{
    BenchRun out;
    ClockObserver clock(observer, out);
    const StopSource own;
    out.result = Runner(m_registry, nullptr).execute(job, stop ? *stop : own, &clock);
    return out;
}

} // namespace tb::bench
