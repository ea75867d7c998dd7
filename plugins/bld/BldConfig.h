#pragma once
/// @file BldConfig.h
/// The parameters of the block-layer decomposition plugin's algorithms (Palagi & Seccia 2019):
/// schemas, parsing, the network and the objective's regularisation. The paper's time limits
/// are the host's budget (time_budget_s on a wall or cpu clock), polled through
/// RunContext::budgetSpent().

#include <numerics/Activation.h>
#include <numerics/Mlp.h>
#include <training/StoppingRules.h>
#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/LbfgsParams.h>
#include <trainbench/toolkit/OptimizerParams.h>
#include <trainbench/toolkit/StoppingParams.h>

#include <QString>
#include <optional>
#include <vector>

namespace tb::bld {

/// The four algorithms of the plugin.
enum class Algorithm {
    B2ld,   ///< "bld.b2ld": batch block-layer decomposition, L-BFGS per layer (Algorithm 3)
    Lbfgs,  ///< "bld.lbfgs": L-BFGS on all weights at once, the paper's batch baseline
    Bling,  ///< "bld.bling": block-layer incremental gradient (Algorithm 5)
    Ig      ///< "bld.ig": incremental gradient, the paper's minibatch baseline
};

/// Order in which a sweep (B2LD) or a minibatch (BLInG) visits the layers.
enum class BlockOrder {
    Backward,  ///< output layer first (the paper's choice)
    Forward,   ///< input layer first
    Random     ///< a new random permutation every sweep (B2LD only), seeded from the run
};

/// Stream indices for tb::deriveSeed(run seed, index).
enum SeedStream : std::uint64_t {
    kSeedWeights = 0,    ///< initial weights
    kSeedOrder = 1,      ///< B2LD's random block order, sweep after sweep
    kSeedPartition = 2   ///< BLInG/IG's minibatch partition (drawn once)
};

/// The complete, checked parameters of one run. Build with fromParams().
struct BldConfig {
    Algorithm algorithm = Algorithm::B2ld;

    // Network and objective (every algorithm).
    NetworkSpec network;
    std::vector<Eigen::Index> hidden{50};
    num::Activation activation = num::Activation::Sigmoid;
    num::Activation output = num::Activation::Identity;
    /// ρ of f(w) = (1/P)Σ‖y_p − net(x_p)‖² + ρ‖w‖²: relativeRidge ("mean_square_ridge") /
    /// (number of weights) when relativeRidge > 0 (the paper: 1e-3/n), else ridge.
    double ridge = 0.0;
    double relativeRidge = 1e-3;

    /// The shared stopping block as read (StoppingParams.h); the fields below repeat its values.
    train::StoppingRules stopping;

    // Batch methods (B2LD and L-BFGS): the L-BFGS block and the stopping block.
    int memory = 10;                  ///< L-BFGS correction pairs
    bool strongWolfe = true;          ///< else Armijo backtracking inside L-BFGS
    double gradientTolerance = 1e-3;  ///< criterion i: the gradient test with this tolerance
    train::GradientTest gradientTest = train::GradientTest::Absolute; ///< the paper's: ‖∇f‖₂ ≤ tolerance
    double relativeDecrease = 1e-4;   ///< criterion ii: (f_old − f_new)/max(f_old, 1) ≤ this

    // B2LD.
    int sweeps = 1000;
    BlockOrder order = BlockOrder::Backward;
    int blockIterations = 30;        ///< L-BFGS iterations per block solve at most
    double blockTolerance = 1e-2;    ///< ε₀: a block solve ends when ‖∇_l f‖₂ ≤ ε
    double toleranceDecay = 0.5;     ///< δ: ε ← δε after every sweep
    bool closedFormOutput = false;   ///< solve the output layer as ridge least squares
    double armijoStep = 1.0;         ///< a: the Armijo search's first step along −∇_l f
    double armijoGamma = 1e-4;       ///< γ: Armijo's sufficient-decrease constant

    // L-BFGS baseline.
    int iterations = 10000;
    int decreaseWindow = 1;          ///< criterion ii is checked over this many iterations
    int checkpointEvery = 1;         ///< iterations between checkpoints

    // BLInG and IG.
    int epochs = 100;
    Eigen::Index batchSize = 128;
    double initialStep = 0.0;        ///< α₀ ("lr"); 0 = the paper's (IG 0.5, BLInG 0.5/max(1, L−2))
    double stepDecay = 5e-3;         ///< ε of α ← α(1 − εα) ("diminishing_decay")
    double normFloor = 1e-3;         ///< step = α·d / max(floor, min(ceiling, ‖d‖))
    double normCeiling = 1e6;

    /// "bld.b2ld", "bld.lbfgs", "bld.bling", "bld.ig".
    static QStringList algorithmIds();
    static std::optional<Algorithm> algorithmFromId(const QString& id);
    static QString idOf(Algorithm a);

    /// The parameter schema of an algorithm: every default, range and help text; the shared
    /// network, L-BFGS, stopping and optimizer (step size) blocks. Plugin 1.1.0's own time limit
    /// ("time_limit", "time_clock") is upgraded to the host's budget ("time_budget_s",
    /// "time_budget_clock"), which the host takes out of the parameters.
    static ParamSchema schema(Algorithm a);

    /// Reads parameters normalised by schema(a). Throws std::invalid_argument naming the
    /// parameters for combinations the schema cannot express (init_low > init_high,
    /// closed_form_output with a non-identity output, norm_floor > norm_ceiling,
    /// diminishing_decay·lr ≥ 1).
    static BldConfig fromParams(Algorithm a, const QVariantMap& params);
    /// The one check of the combinations the schema cannot express (fromParams() calls it):
    /// closed_form with a non-identity output (b2ld), norm_floor > norm_ceiling and
    /// lr·diminishing_decay ≥ 1 (bling, ig). Throws std::invalid_argument naming the parameters
    /// and values.
    void check() const;

    /// The network for @p inputs → @p outputs (the paper: sigmoid hidden layers, identity
    /// output, a bias on the input layer only), weights drawn from @p seed.
    num::Mlp makeNetwork(Eigen::Index inputs, Eigen::Index outputs, std::uint64_t seed) const;
    /// Number of weights of that network.
    double weightCount(Eigen::Index inputs, Eigen::Index outputs) const;
    /// ρ for a network of @p weights weights.
    double rho(double weights) const;
    /// Criterion i for a gradient of norm @p gradientNorm at weights @p w (gradientTest).
    bool gradientConverged(double gradientNorm, const Eigen::VectorXd& w) const
    {
        return stopping.gradientConverged(gradientNorm, gradientTest == train::GradientTest::Scaled ? w.norm() : 0.0);
    }
    /// α₀ of BLInG/IG for a network of @p layers weight layers.
    double firstStep(int layers) const;
};

} // namespace tb::bld
