#pragma once
/// @file StoredRuns.h
/// Runs read back from the run store: how a stored run or experiment is re-run, and how stored
/// runs are grouped into curves. The one place of both rules; the GUI and the CLI call it.

#include "ExperimentRunner.h"
#include "ExperimentSpec.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace tb {

class PluginRegistry;
class RunStore;

/// Stored runs as experiments to run again and as curves to draw. Stateless; every function
/// reads @p store (thread-safe as RunStore's reads are) and never writes.
class StoredRuns {
public:
    /// An experiment that repeats stored runs exactly.
    struct Rerun {
        ExperimentSpec spec;  ///< what to run (validated by the caller against its registry)
        QString description;  ///< e.g. "run 19 (Adam, repeat 0, seed 123)"
        QStringList notes;    ///< e.g. a plugin version that differs from the stored run's
    };

    /// Re-running run @p runId: its experiment's stored spec (data set with absolute paths, seed)
    /// restricted to the run's algorithm, label and complete stored parameters, budget and thread
    /// count — former algorithm ids and parameter spellings upgraded, each change a note;
    /// a learning-curve run keeps its repeat number (first_repeat = repeat, repeats = 1), so its
    /// seed is deriveSeed(seed, repeat) as before. A noise-sweep run re-runs its algorithm's whole
    /// sweep (its cells are not stored one by one). nullopt with @p error when the run, its
    /// experiment or its spec is missing.
    static std::optional<Rerun> rerunOfRun(const RunStore& store, const PluginRegistry& registry, qint64 runId,
                                           QString* error);
    /// Re-running experiment @p experimentId: its stored spec as it was run.
    static std::optional<Rerun> rerunOfExperiment(const RunStore& store, qint64 experimentId, QString* error);

    /// A re-run's final metrics against its stored run's, and whether the two were trained by the
    /// same build on the same CPU (the "build", "cpu" and "git_hash" facts every run records; runs
    /// stored before issue 43 have no "build" or "cpu"). What "bit-identical" means here: the same
    /// build on the same CPU gives the same bits for the same seed, thread count and parameters;
    /// another CPU or build rounds differently (how the compiler fused and vectorised the sums),
    /// and the metrics then agree within rounding, amplified by what the algorithm does with it
    /// (README, "Reproducibility").
    struct RerunAgreement {
        bool compared = false;      ///< both runs have final metrics
        bool identical = false;     ///< every final metric the same double
        double largestRelative = 0; ///< max |now − stored| / max(|now|, |stored|) over the metrics
        /// One line per metric that differs: "loss: stored 0.27915544436299722, now
        /// 0.2791554443629975 (relative 1.1e-15)".
        QStringList differences;
        bool sameMachine = false;   ///< both record the same build, git hash and CPU
        bool timeBudget = false;    ///< the stored run had a time budget (its results depend on speed)
        QString text;               ///< the comparison for the user, in a sentence or three
    };
    /// Compares the final metrics of @p stored (its "final" fact) with those of its re-run, whose
    /// facts are @p rerunInfo (a RunResult's or a stored run's info). Pure.
    static RerunAgreement agreement(const RunRecord& stored, const QJsonObject& rerunInfo);

    /// Stored runs grouped for the charts.
    struct Selection {
        ExperimentResult result;     ///< curves (learning-curve runs) and sweep points (noise-sweep runs)
        QList<qint64> runIds;        ///< the runs found, in the order given
        QList<qint64> experimentIds; ///< their experiments, ascending
        bool classification = false; ///< any learning-curve run's data set is a classification task
        /// The first read that failed (a damaged file: what PRAGMA quick_check found), empty when
        /// every read succeeded. When set, the selection may lack runs or checkpoints: say so.
        QString readError;
    };
    /// Groups @p runIds (ids not in the store are skipped) the way the charts draw them:
    ///  - a learning-curve run joins the curve of its (label, algorithm id) — its repeats and the
    ///    runs of the same label form one mean ± std curve, in order of first appearance;
    ///  - a noise-sweep run contributes its experiment's sweep points of its algorithm and label;
    ///  - when the runs come from several experiments, every label gets " (exp. N)", so the same
    ///    algorithm in two experiments stays two curves.
    /// result.kind is NoiseSweep when only noise-sweep runs were given; result.experimentId is
    /// the experiment when there is one, else −1. Counts: runsFinished and runsFailed.
    static Selection group(const RunStore& store, const QList<qint64>& runIds);
    /// Every run of experiment @p experimentId grouped as group() does (what `trainbench-cli
    /// export` draws). nullopt with @p error naming the store when the id is unknown or a read
    /// failed (a damaged file), never a shortened result.
    static std::optional<ExperimentResult> experiment(const RunStore& store, qint64 experimentId, QString* error);
};

} // namespace tb
