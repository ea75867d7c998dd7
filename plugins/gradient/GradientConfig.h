#pragma once
/// @file GradientConfig.h
/// The parameters of the gradient plugin's algorithms: schemas, parsing, the learning-rate
/// schedule and the network they describe.

#include <training/LbfgsDriver.h>
#include <training/LearningRateSchedule.h>
#include <training/Optimizer.h>
#include <training/StoppingRules.h>

#include <numerics/Activation.h>
#include <numerics/Mlp.h>
#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/LbfgsParams.h>
#include <trainbench/toolkit/OptimizerParams.h>
#include <trainbench/toolkit/StoppingParams.h>

#include <QString>
#include <optional>
#include <string>
#include <vector>

namespace tb::gradient {

using train::Method;
using train::Optimizer;
using train::OptimizerSettings;

/// Stream indices for tb::deriveSeed(run seed, index): every random stream of a run.
enum SeedStream : std::uint64_t {
    kSeedWeights = 0,  ///< initial weights
    kSeedShuffle = 1,  ///< minibatch order, drawn epoch after epoch
    kSeedSplit = 2     ///< early-stopping validation rows
};

/// What an algorithm id stands for: one of the first-order methods, or full-batch L-BFGS.
struct AlgorithmKind {
    bool lbfgs = false;
    Method method = Method::Sgd;  ///< when !lbfgs
};

/// The arithmetic of a first-order run (parameter "precision"): Double, the default, is every
/// number as it always was; Float32 runs the forward/backward products, the gradients, the
/// weights being trained and the optimiser's state in single precision, with every loss summed
/// in double, and publishes the weights as the house's double network at every checkpoint.
enum class Precision { Double, Float32 };

/// The loss asked for; Auto = cross-entropy for classification, squared error for regression.
enum class LossChoice { Auto, CrossEntropy, SquaredError };

/// The complete, checked parameters of one run. Build with fromParams().
struct GradientConfig {
    AlgorithmKind kind;

    // Every value lives once: in the shared blocks' structs (network, stopping, optimizer,
    // schedule, lbfgs) or in a field of its own below.

    /// The network block: hidden widths (empty = a linear model), hidden activation, initial
    /// weights (U[init_low, init_high] or Glorot), biases.
    NetworkSpec network;
    std::optional<num::Activation> output;                  ///< nullopt = auto (softmax / identity)
    LossChoice loss = LossChoice::Auto;
    double weightDecay = 0.0;                               ///< λ = 2·"ridge": penalty λ/2·‖w‖² on all weights
    /// The stopping block: epochs and early stopping (first-order methods), iterations and the
    /// gradient test (L-BFGS).
    train::StoppingRules stopping;

    // First-order methods.
    OptimizerSettings optimizer;                            ///< its weightDecay is weightDecay's
    /// η(e) for e completed epochs (constant within an epoch): the optimizer block's "lr",
    /// "schedule", "step_epochs", "step_factor" and "inverse_decay".
    train::LearningRateSchedule schedule;
    Eigen::Index batchSize = 32;                            ///< clamped to the training rows
    bool shuffle = true;
    int checkpointEvery = 0;                                ///< minibatches; 0 = epoch ends only
    Precision precision = Precision::Double;                ///< "precision": "double" or "float32"

    // L-BFGS: the L-BFGS block (memory, line search) with the stopping block's iterations and
    // gradient tolerance and test (maxIterations = the stopping block's "iterations").
    train::LbfgsSettings lbfgs;

    /// Epochs of a first-order run (the stopping block's "epochs").
    int epochs() const { return int(stopping.epochs); }
    /// The hidden widths, as the network takes them.
    std::vector<Eigen::Index> hiddenWidths() const;
    /// The hidden activation (network.activation, checked by check()).
    num::Activation hiddenActivation() const;

    /// The algorithm ids of the plugin: "gradient.sgd", "gradient.momentum", "gradient.nag",
    /// "gradient.adagrad", "gradient.rmsprop", "gradient.adam", "gradient.lbfgs".
    static QStringList algorithmIds();
    /// The kind behind an id; nullopt for an unknown id.
    static std::optional<AlgorithmKind> kindFromId(const QString& id);

    /// The parameter schema of an algorithm (every default, range and help text): the shared
    /// optimizer, stopping, L-BFGS and network blocks (trainbench/toolkit/, NetworkParams.h).
    static ParamSchema schema(const AlgorithmKind& kind);
    /// The optimizer block of a first-order method (its rule fixed by the id).
    static OptimizerDefaults optimizerDefaults(const AlgorithmKind& kind);
    /// The stopping block: epochs and early stopping, or L-BFGS's iterations and tolerance.
    static StoppingDefaults stoppingDefaults(const AlgorithmKind& kind);

    /// Reads parameters normalised by schema(kind), then check()s them. Throws
    /// std::invalid_argument naming the parameters (init_low > init_high, from the shared
    /// network block's parse, and whatever check() refuses).
    static GradientConfig fromParams(const AlgorithmKind& kind, const QVariantMap& params);
    /// The one check of the combinations the schema cannot express: loss "cross_entropy" with
    /// an output other than softmax; values a normalised map cannot hold (a non-positive rate,
    /// batch or epoch count, an unknown activation), which mean the map was not normalised by
    /// schema(kind). Throws std::invalid_argument naming the parameters and values.
    void check() const;

    /// Learning rate during epoch @p epoch (0-based, = epochs completed).
    double learningRateAt(int epoch) const;

    /// The network and loss for a problem with @p inputs inputs and @p outputs outputs of
    /// @p task, weights initialised from @p seed. Throws std::invalid_argument when the loss
    /// does not fit the task (cross-entropy needs classification).
    num::Mlp makeNetwork(Eigen::Index inputs, Eigen::Index outputs, Task task, std::uint64_t seed) const;
    num::MlpLoss resolveLoss(Task task) const;
    /// Number of weights (biases included) of that network.
    double weightCount(Eigen::Index inputs, Eigen::Index outputs) const;
    /// Upper bound of the peak working memory, in bytes, of a fit on @p rows × @p inputs →
    /// @p outputs in an arena of @p threads, with the host's evaluation of the model (predict()
    /// on the training and test sets): the weights held at once (network, gradient, the
    /// optimiser's state, early stopping's best weights; L-BFGS: its correction pairs), the
    /// gradient engine's chunk buffers, the transposed inputs, and predict()'s per-thread blocks.
    /// The hidden widths decide it for any sizeable network.
    double workingMemoryBytes(Eigen::Index inputs, Eigen::Index outputs, Eigen::Index rows, int threads) const;
};

/// The error of a minibatch run whose loss became non-finite at step @p stepInEpoch of epoch
/// @p epoch (0-based) of @p batches: GradientTrainer and its lock-step replicas say it alike.
std::string minibatchDivergenceMessage(long long epoch, long long stepInEpoch, Eigen::Index batches, double loss);

} // namespace tb::gradient
