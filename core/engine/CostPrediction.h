#pragma once
/// @file CostPrediction.h
/// A trainer's predicted cost (Trainer::predictCost), read in the host's terms and set
/// against what a run measured: what `trainbench-cli list`, `run` and `runs` show.

#include <trainbench/Trainer.h>

#include <QJsonObject>
#include <QString>
#include <QVariantMap>

namespace tb {

class PluginRegistry;
namespace data {
struct Dataset;
}

/// Wraps the JSON object a trainer's predictCost() returned. The host reads the keys that
/// Trainer::predictCost() documents ("flops", "predicted_seconds", "scope",
/// "scope_measured_key"), "memory_bytes", the predicted peak working memory, and "checkpoints",
/// how many checkpoints fit() makes at most (their points are held by the host), set against
/// the measured fact "peak_memory_bytes" (PeakMemory); every other key is kept and stored as
/// it is. A value type; thread-safe as a const object.
class CostPrediction {
public:
    /// An empty prediction (the trainer states none).
    CostPrediction() = default;
    /// Wraps @p cost as returned by Trainer::predictCost().
    explicit CostPrediction(QJsonObject cost);

    /// Creates a trainer of @p algorithmId with @p params (completed with the schema's
    /// defaults) and asks it for the cost of a problem of @p shape. Empty when the algorithm
    /// is unknown, the parameters are invalid, the plugin throws or states no cost; @p error
    /// then says why (empty when the trainer simply states none). Call it inside the TBB
    /// arena the run would use: trainers that calibrate a rate (BPLS) measure that arena.
    /// Thread-safe once the registry has been scanned.
    static CostPrediction forAlgorithm(const PluginRegistry& registry, const QString& algorithmId,
                                       const QVariantMap& params, const ProblemShape& shape,
                                       QString* error = nullptr);

    /// The prediction stored with a run: the "predicted_cost" fact of @p info
    /// (RunResult::info, RunRecord::info). Empty when the run has none.
    static CostPrediction fromRunInfo(const QJsonObject& info);

    /// The shape `trainbench-cli list` predicts for: Fashion-MNIST's training set, 60000 rows
    /// of 784 inputs, 10 outputs (one-hot classes, or 10 regression targets for algorithms
    /// that only regress).
    static ProblemShape referenceShape(Task task);
    /// The shape a trainer sees for training set @p train: rows, inputs, outputs, task.
    static ProblemShape shapeOf(const data::Dataset& train);
    /// "60000×784 → 10 classes" / "… → 10 outputs".
    static QString describeShape(const ProblemShape& shape);

    bool isEmpty() const { return m_json.isEmpty(); }
    /// Whether the host has something to show: flops or seconds.
    bool isShowable() const;
    /// Predicted floating-point operations; NaN when not stated.
    double flops() const;
    /// Predicted training seconds; NaN when not stated.
    double seconds() const;
    /// What the host holds per checkpoint while a run trains: its point in RunResult::points
    /// (sizeof(MetricPoint), 80 bytes) in a vector that doubles as it grows, so up to three times
    /// that while it reallocates; rounded up.
    static constexpr double kBytesPerCheckpoint = 256;

    /// Predicted peak working memory of the run in bytes: the trainer's "memory_bytes" plus the
    /// host's points of the checkpoints it states it will make ("checkpoints" ×
    /// kBytesPerCheckpoint; none when it states no count); NaN when "memory_bytes" is not stated.
    double memoryBytes() const;
    /// The checkpoints the trainer states fit() makes at most ("checkpoints"); 0 when not stated.
    double checkpoints() const;
    /// The measured peak working memory of a run: the fact "peak_memory_bytes" of @p info
    /// (RunResult::info, RunRecord::info); NaN when the run has none.
    static double measuredMemoryBytes(const QJsonObject& info);
    /// What the prediction covers when it is not the whole training, e.g. "first sweep";
    /// empty for the whole of fit().
    QString scope() const;
    /// The run fact holding the measured seconds of what the prediction covers:
    /// "scope_measured_key" if the trainer named one, else "measured_seconds" (the training
    /// clock of the whole fit(), which the runner records).
    QString measuredKey() const;
    /// The measured seconds of what the prediction covers, from a run's facts; NaN if absent.
    double measuredSeconds(const QJsonObject& info) const;
    /// The whole object as the trainer returned it.
    const QJsonObject& json() const { return m_json; }

    /// Before a run: "7.41 GFLOP, 0.42 s (first sweep)", with ", 120 MiB memory" when the
    /// trainer predicts memory; empty when there is nothing to show.
    QString describe() const;
    /// After a run: "predicted 0.42 s, measured 0.61 s (first sweep)", or, without predicted
    /// seconds, "predicted 7.41 GFLOP, measured 2.3 s = 3.2 GFLOP/s"; empty when not showable.
    QString compare(const QJsonObject& info) const;

    /// After a run: "memory predicted 64 MiB, measured 66.1 MiB", or "peak memory 66.1 MiB"
    /// without a prediction; empty when the run has no measurement and there is no prediction.
    QString compareMemory(const QJsonObject& info) const;

    /// "66.1 MiB", "512 KiB", "2.05 GiB": bytes with a binary prefix, 3 significant digits.
    static QString formatBytes(double bytes);
    /// "7.41 GFLOP", "512 kFLOP": flops with an SI prefix, 3 significant digits.
    static QString formatFlops(double flops);
    /// "0.423 s", "12.3 s", "0.0012 s": 3 significant digits; whole seconds from 100 s ("2000 s").
    static QString formatSeconds(double seconds);

private:
    QJsonObject m_json;
};

} // namespace tb
