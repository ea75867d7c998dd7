#pragma once
/// @file BenchRunner.h
/// Runs (algorithm, parameters, data, seed) for a benchmark exactly as trainbench-cli runs a
/// learning curve's run: the real plugins, the engine's Runner and its checkpoint clock.

#include <engine/PluginRegistry.h>
#include <engine/Runner.h>

#include <limits>
#include <memory>
#include <vector>

namespace tb::bench {

/// What a benchmark gets back from one run.
struct BenchRun {
    /// The engine's result: status and error, every checkpoint's point (training time on the
    /// host's clock, loss, train/test metrics), the facts (info) and the normalised parameters.
    RunResult result;
    /// At each of result.points: the process's CPU time spent training so far, paused exactly
    /// when the host's training clock pauses (checkpoints, evaluation). Meaningful only while
    /// one run trains in the process at a time.
    std::vector<double> cpuSeconds;
    /// The process's CPU time of the whole fit(), with the same pauses.
    double trainCpuSeconds = 0;

    bool finished() const { return result.status == RunStatus::Finished; }
    /// Throws std::runtime_error "@p what: the run ended STATUS: error" unless it finished.
    void requireFinished(const QString& what) const;
    /// The fact @p key (RunResult::info) as a number; @p fallback when absent or not a number.
    double fact(const QString& key, double fallback = std::numeric_limits<double>::quiet_NaN()) const;
};

/// The engine's Runner with the real PluginRegistry, for benchmark programs. The plugins are
/// found where trainbench-cli finds them (PluginRegistry::defaultSearchPaths(): above all
/// <build>/bin/plugins next to the benchmark), so a benchmark measures what the workbench and
/// the CLI run, checkpoint clock included: training time stops while the host evaluates the
/// model at a checkpoint. Nothing is stored. The const members are thread-safe (cells of a
/// sweep may run in parallel through runHere()).
class BenchRunner {
public:
    /// Scans the plugins. Throws std::runtime_error when none loads.
    BenchRunner();
    BenchRunner(const BenchRunner&) = delete;
    BenchRunner& operator=(const BenchRunner&) = delete;

    const PluginRegistry& registry() const { return m_registry; }

    /// The algorithm @p algorithmId; throws std::runtime_error naming the plugin search path
    /// (and the plugins that failed to load) when no plugin offers it.
    const AlgorithmEntry& require(const QString& algorithmId) const;
    /// @p params completed by the algorithm's schema, as the run will use them (former
    /// spellings upgraded); throws std::invalid_argument naming the algorithm and the problem.
    QVariantMap normalise(const QString& algorithmId, const QVariantMap& params) const;

    /// A run as trainbench-cli makes one of a learning curve: @p algorithmId with @p params on
    /// @p data, seed @p seed, an arena of @p threads; label and data description empty.
    static RunJob job(const QString& algorithmId, const QVariantMap& params,
                      std::shared_ptr<const data::DatasetPair> data, std::uint64_t seed, int threads);

    /// Runs @p job through the engine's Runner in a TBB arena of job.threads workers (the
    /// trainer parallelises inside it), with @p observer told everything the Runner tells
    /// (e.g. modelReady() to look at the model with the clock stopped) and @p stop (when
    /// given) able to stop it from another thread. Never throws for a failed run: see
    /// BenchRun::result.status.
    BenchRun run(const RunJob& job, RunObserver* observer = nullptr, const StopSource* stop = nullptr) const;
    /// The same on the calling thread, in the caller's arena (e.g. a sweep's cells in a
    /// tbb::parallel_for, as the engine runs a noise sweep's cells).
    BenchRun runHere(const RunJob& job, RunObserver* observer = nullptr,
                     const StopSource* stop = nullptr) const;

    /// The plugin's own trainer class behind @p trainer (e.g. in RunObserver::modelReady()),
    /// for a benchmark that measures what only that class tells — BplsTrainer's phase times,
    /// the network a bld trainer holds. The program links the plugin's static core library, so
    /// it holds a copy of the class as the plugin module does; the Itanium C++ ABI matches the
    /// two by their mangled name. nullptr when @p trainer is of another class.
    template <class T> static const T* pluginTrainer(const Trainer& trainer)
    {
        return dynamic_cast<const T*>(&trainer);
    }

private:
    PluginRegistry m_registry;
};

} // namespace tb::bench
