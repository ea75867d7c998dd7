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
/// "scope_measured_key"); every other key is kept and stored as it is. A value type;
/// thread-safe as a const object.
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
    /// What the prediction covers when it is not the whole training, e.g. "first sweep";
    /// empty for the whole of fit().
    QString scope() const;
    /// The run fact holding the measured seconds of what the prediction covers:
    /// "scope_measured_key" if the trainer named one, else "measured_seconds" (the training
    /// clock of the whole fit(), which the runner records).
    QString measuredKey() const;
    /// The measured seconds of what the prediction covers, from a run's facts; NaN if absent.
    double measuredSeconds(const QJsonObject& info) const;
    /// Predicted peak working memory in bytes ("memory_bytes"); NaN when not stated.
    double memoryBytes() const;
    /// Predicted size of the stored model in bytes ("model_bytes"); NaN when not stated.
    double modelBytes() const;
    /// The whole object as the trainer returned it.
    const QJsonObject& json() const { return m_json; }

    /// Before a run: "7.41 GFLOP, 0.42 s (first sweep)", followed, when the trainer states
    /// memory, by "; memory: working 302 MiB, model 1.24 MiB"; empty when not showable.
    QString describe() const;
    /// After a run: "predicted 0.42 s, measured 0.61 s (first sweep)", or, without predicted
    /// seconds, "predicted 7.41 GFLOP, measured 2.3 s = 3.2 GFLOP/s"; then, when stated,
    /// "; memory: working 302 MiB (measured 298 MiB), model 1.24 MiB, process peak 410 MiB"
    /// (measured: the trainer's fact "working_memory_bytes"; process peak: the host's
    /// "peak_memory_bytes"); empty when not showable.
    QString compare(const QJsonObject& info) const;

    /// "7.41 GFLOP", "512 kFLOP": flops with an SI prefix, 3 significant digits.
    static QString formatFlops(double flops);
    /// "302 MiB", "512 B": bytes in binary units, 3 significant digits.
    static QString formatBytes(double bytes);
    /// "0.423 s", "12.3 s", "0.0012 s": 3 significant digits; whole seconds from 100 s ("2000 s").
    static QString formatSeconds(double seconds);

private:
    /// "memory: …" of describe() (@p info null) and compare(); empty when nothing is stated.
    QString describeMemory(const QJsonObject* info) const;

    QJsonObject m_json;
};

} // namespace tb
