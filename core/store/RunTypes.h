#pragma once
/// @file RunTypes.h
/// Plain records shared by the runner, the run store, the charts, the CLI and the GUI.

#include "RunStoreOwner.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <QVector>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tb {

inline constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/// Life cycle of a run. Stored as the lower-case name.
enum class RunStatus { Running, Finished, Cancelled, Failed, Diverged, Interrupted };

QString runStatusName(RunStatus s);
/// Parses a name written by runStatusName(); unknown names give Failed.
RunStatus runStatusFromName(const QString& name);

/// One checkpoint of one run. Metrics that do not apply are NaN.
struct MetricPoint {
    int seq = 0;              ///< 0, 1, 2 … in checkpoint order
    double epoch = 0;         ///< epochs done (fractional mid-epoch)
    double trainTime = 0;     ///< seconds on the run's clock (its budget's: training time, or CPU time with a cpu budget), paused during evaluation, from the last Checkpoint::restartClock
    double loss = NaN;
    double trainAccuracy = NaN;
    double testAccuracy = NaN;
    double trainRmse = NaN;
    double testRmse = NaN;
    double validationAccuracy = NaN; ///< NaN when the data set has no validation split
    double validationRmse = NaN;
};

/// One experiment: one spec file run once.
struct ExperimentRecord {
    qint64 id = -1;
    QString name;
    QString kind;             ///< "learning-curve" or "noise-sweep"
    QJsonObject spec;         ///< the whole experiment file as run (threads etc. resolved)
    QDateTime created;
    QString appVersion;       ///< e.g. "0.1.0"
    QString gitHash;          ///< build's commit, or "unknown"
};

/// One run: one (algorithm, params, seed) trained once.
struct RunRecord {
    qint64 id = -1;
    qint64 experimentId = -1;
    QString algorithmId;
    QString algorithmName;
    QString pluginId;
    QString pluginVersion;
    QVariantMap params;       ///< normalised (complete) parameters
    QString dataset;          ///< dataset description, e.g. "fashion-mnist" or "bpls-toy-linear σ=0.1"
    std::uint64_t seed = 0;
    int threads = 1;
    int repeat = 0;           ///< repeat index within the experiment
    double sigma = NaN;       ///< noise-sweep cell's σ, NaN for learning curves
    RunStatus status = RunStatus::Running;
    QString error;            ///< message for failed / diverged runs
    QDateTime started;
    QDateTime ended;
    QJsonObject info;         ///< facts the trainer recorded (RunContext::record) and final metrics
    QString appVersion;
    QStringList tags;         ///< the user's tags (run browser), e.g. {"baseline", "paper"}
    QString note;             ///< the user's free-text note
    /// The process that created the run and trains it (host, boot, pid, process start), as
    /// stored with the row; read back by RunStore, ignored by createRun() (the creator is the
    /// calling process). A "running" run whose owner is dead is read as Interrupted.
    RunStoreOwner owner;

    /// "a, b ,,a" → {"a", "b"}: trimmed, empty ones dropped, each once, in order.
    static QStringList splitTags(const QString& text);
};

/// Mean ± std of train and test RMSE of one algorithm's runs at one value x of the axis its
/// experiment's kind sweeps (ExperimentKind::summaryAxis(): a noise sweep's σ), over the `count`
/// runs there that finished — what a kind reports when it keeps statistics instead of each run's
/// curve. Stored in the store's summary table (sweep_points: x in its column "sigma", the count
/// in "mc") and written as the CSV's summary rows (columns sigma and monte_carlo).
struct SummaryPoint {
    QString algorithmId;
    QString algorithmName;
    double x = 0;             ///< the axis value (a noise sweep's σ)
    int count = 0;            ///< runs that finished and went into the statistics
    double trainRmseMean = NaN, trainRmseStd = NaN;
    double testRmseMean = NaN, testRmseStd = NaN;
};

} // namespace tb
