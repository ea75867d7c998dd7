#pragma once
/// @file SuiteRunner.h
/// Runs a suite (Suite.h): each set as an experiment of its own, one after the other, with one
/// progress over sets × algorithms; Stop ends the set that trains (what finished is kept, as for
/// any experiment) and starts no other.

#include "ExperimentRunner.h"
#include "Suite.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <functional>

namespace tb {

class PluginRegistry;
class RunStore;

/// What came of one set of a suite.
struct SuiteSetOutcome {
    SuiteSet set;
    ExperimentSpec spec;          ///< the set's experiment (Suite::setSpec())
    ExperimentResult result;      ///< its result; error set when it could not start (its data did not load …)
    QStringList gaps;             ///< algorithms that cannot take the set, named
    QString absent;               ///< a catalogue set not downloaded: the command that fetches it (the set was skipped)
    bool ran = false;             ///< started (false: skipped as absent, or not reached after Stop)
    qint64 resumedFrom = -1;      ///< the stored experiment resumed, −1 when the set ran afresh
};

/// What a suite produced.
struct SuiteResult {
    QList<SuiteSetOutcome> sets;  ///< one per set of the suite, in order
    /// Every set's curves in one result (their data set named by the set's name, datasetIndex the
    /// set's index), counts summed: what AcrossSets, the charts and the CSV read.
    ExperimentResult merged;
    QList<qint64> experimentIds;  ///< the stored experiments, in set order (sets that stored one)
    bool cancelled = false;
    QString storeError;           ///< the first set's store failure, which stopped the suite
    /// Sets that could not start, "set NAME: error"; the suite went on with the others.
    QStringList setErrors;
};

/// Runs suites on an ExperimentRunner (its store, its executor). One suite at a time.
class SuiteRunner {
public:
    /// @p runner runs each set; it must outlive this object. @p store (may be null) is the
    /// runner's, for resuming.
    SuiteRunner(ExperimentRunner& runner, const PluginRegistry& registry, const RunStore* store);

    /// Called before each set's experiment starts and after it returned (MPI: tells the worker
    /// ranks which experiment they serve).
    std::function<void(const ExperimentSpec& set)> beginSet;
    std::function<void()> endSet;

    /// Runs (or with @p resume, continues) every set of @p suite in order. Resuming a set resumes
    /// its newest stored experiment with the same settings (ExperimentRunner::resumable()); a set
    /// with none runs afresh; when no set has one, nothing runs and @p error says so. The caller
    /// should have validated @p suite.
    SuiteResult run(const ExperimentSpec& suite, ExperimentObserver* observer, bool resume, QString* error = nullptr);
    /// The same with the plan the caller made already (plan() of @p suite and @p resume), so that
    /// the store is not read for it twice.
    SuiteResult run(const ExperimentSpec& suite, ExperimentObserver* observer, bool resume,
                    const QList<SuiteSetOutcome>& plan, QString* error = nullptr);

    /// What run() will do with each set of @p suite: its experiment, gaps, whether it is absent
    /// and (with @p resume) which stored experiment it resumes.
    QList<SuiteSetOutcome> plan(const ExperimentSpec& suite, bool resume) const;

    /// Stops the set that trains and the sets after it; any thread.
    void requestStop();

private:
    ExperimentRunner& m_runner;
    const PluginRegistry& m_registry;
    const RunStore* m_store;
    std::atomic<bool> m_stop{false};
};

} // namespace tb
