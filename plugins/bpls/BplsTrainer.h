#pragma once
/// @file BplsTrainer.h
/// One BPLS run: Algorithm 1 (bpls.regress) or Algorithm 2 with refinement (bpls.classify).

#include "BplsConfig.h"
#include <training/DesignMatrix.h>

#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/NetworkTrainer.h>

#include <numerics/LeastSquares.h>
#include <numerics/Mlp.h>

#include <QJsonArray>

#include <vector>

namespace tb::bpls {

/// Trains a num::Mlp with back-propagating least squares (Tomić et al. 2024; ALGORITHMS.md §1).
///
/// Each layer costs ONE Gram matrix and ONE factorisation with one right-hand side per
/// neuron (core LeastSquares, parallel over row blocks in the run's arena). Checkpoints: after
/// the first backward sweep (epoch 1) and after every refinement iteration (epoch 1 + τ).
/// predict() is NetworkTrainer's: the network folded back to raw inputs. fit() does not run in
/// the training library's TrainingLoop: its first sweep and its refinement iterations are one algorithm
/// whose steps, checkpoints and kept weights are decided together (docs/plugin-guide.md).
/// Not thread-safe (one run per instance, as the Trainer contract says).
class BplsTrainer final : public NetworkTrainer {
public:
    explicit BplsTrainer(BplsConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<BplsTrainer>(config()); }

    /// Throws std::invalid_argument for non-finite data (naming row and column), an empty
    /// set, or classification data with fewer than 2 classes for bpls.classify.
    void fit(const DatasetView& data, RunContext& ctx) override;
    /// Flops of the deterministic part (first sweep and its forward passes), per step, plus
    /// the flops per misclassified row of one refinement iteration; bpls.classify states that
    /// the prediction covers the first sweep ("scope"), measured as first_sweep_measured_seconds;
    /// "memory_bytes": workingMemoryBytes(), for the whole fit (refinements included).
    QJsonObject predictCost(const ProblemShape& shape) const override;

    const BplsConfig& config() const { return m_config; }

    /// What the last fit() did, for tests and benchmarks.
    struct History {
        std::vector<double> trainAccuracy; ///< classify: per epoch (after each checkpointed iterate)
        std::vector<Eigen::Index> misses;  ///< classify: misclassified training rows per epoch
        std::vector<double> blendRatio;    ///< classify: r chosen at each refinement iteration
        int bestEpoch = 0;                 ///< classify: epoch of the weights kept
        int epochs = 0;                    ///< checkpoints emitted
        int fallbacks = 0;                 ///< solves that left the Cholesky path
        double gramSeconds = 0;            ///< first-layer Gram + cross products
        double hiddenSeconds = 0;          ///< hidden-layer normal equations, targets, solves
        double solveSeconds = 0;           ///< factorisations and solves (all layers)
        double forwardSeconds = 0;         ///< first-layer products and forward evaluations
        double inputSeconds = 0;           ///< input copy / standardisation / NaN check, targets
        double gatherSeconds = 0;          ///< classify: gathering the misclassified rows
        double blendSeconds = 0;           ///< classify: blending weights and first-layer products
        Eigen::Index gramRowsUpdated = 0;  ///< classify: rows added to / removed from miss Grams
        Eigen::Index gramRowsDirect = 0;   ///< rows of Gram matrices computed from scratch
        double totalSeconds = 0;           ///< the whole fit() (checkpoints included)
        double predictedSeconds = 0;       ///< first sweep and its forwards: flops / calibrated GEMM rate
        std::vector<double> refinementPredictedSeconds; ///< classify: per iteration, once its miss set is known
        std::vector<double> refinementMeasuredSeconds;  ///< classify: per iteration, measured
        double predictedFlops = 0;
        bool stopped = false;              ///< fit() returned early on a stop request
    };
    const History& history() const { return m_history; }

    /// The solves of the latest backward sweep (the first one, then each refinement
    /// iteration's), in the order they ran (output layer first). Each entry:
    /// {"layer": l (0 = first), "phase": "initial solve" | "re-solve from desired values" |
    /// "first layer", "method": "cholesky" | "eigen-pinv", "rank", "dimension",
    /// "cond": condition estimate of AᵀA + λI (≥ 1; null when infinite, i.e. rank-deficient),
    /// "ridge": λ used, "fallback": bool, "reason": why Cholesky was rejected (empty if not),
    /// "residual": ‖AW − B‖_F / ‖B‖_F computed from G = AᵀA, C = AᵀB and ‖B‖²_F without a pass
    /// over A, so it resolves about √ε ≈ 1e-8 (double Gram) or √ε_float ≈ 3e-4 (mixed first-layer
    /// Gram); 0 when B = 0}.
    /// Recorded as the run fact "layer_solves" before every checkpoint.
    const QJsonArray& layerSolves() const { return m_layerSolves; }

    /// Relative residual ‖AW − B‖_F / ‖B‖_F of @p w from the normal equations alone:
    /// ‖AW − B‖² = ‖B‖² − 2⟨W, C⟩ + ⟨W, GW⟩, clamped at 0 (rounding can make it negative).
    /// @p g = AᵀA (full), @p c = AᵀB, @p targetNorm2 = ‖B‖²_F. Returns 0 when ‖B‖ = 0. Pure.
    static double relativeResidual(const Eigen::MatrixXd& g, const Eigen::MatrixXd& c, double targetNorm2,
                                   const Eigen::MatrixXd& w);

    /// Flops of one backward sweep over @p rows rows for a network of @p sizes.
    static double sweepFlops(const BplsConfig& c, double rows, const std::vector<Eigen::Index>& sizes);
    /// Flops of one forward pass over @p rows rows.
    static double forwardFlops(const BplsConfig& c, double rows, const std::vector<Eigen::Index>& sizes);
    /// Upper bound of the peak working memory, in bytes, of a fit on @p rows rows of a network of
    /// @p sizes in an arena of @p threads, with the host's evaluation (see predictCost()).
    /// @p designCopy: the design [X 1] is copied (mixed precision stores floats, a standardised
    /// double design doubles) or only referenced (double, not standardised).
    static double workingMemoryBytes(double rows, const std::vector<Eigen::Index>& sizes, int threads,
                                     train::Precision precision, bool designCopy);

    /// Desired values N̂ of a hidden layer with values @p n (rows × h), given the weights @p w
    /// of the next layer (h [+1 bias row] × o) and that layer's pre-activation targets @p b
    /// (rows × o); see TargetRule. Not clipped. Pure function.
    static Eigen::MatrixXd desiredValues(TargetRule rule, const Eigen::Ref<const Eigen::MatrixXd>& n,
                                         const Eigen::MatrixXd& w, const Eigen::Ref<const Eigen::MatrixXd>& b,
                                         bool bias);

private:
    struct Evaluation;
    struct Timer;
    struct Problem;    ///< what every step of a fit reads (BplsTrainer.cpp)
    struct Refinement; ///< the state of the refinement iterations (BplsTrainer.cpp)

    // The steps of fit(), in order (ALGORITHMS.md §1): the checks, the network, the labels, the
    // predicted cost, the first sweep and its checkpoint, the refinement iterations (classify),
    // the facts.
    void checkTrainingSet(const DatasetView& data) const;
    void initNetwork(const std::vector<Eigen::Index>& sizes, std::uint64_t seed);
    void setLabels(const Eigen::Ref<const Eigen::MatrixXd>& y);
    /// Records the first sweep's predicted cost; returns the calibrated GEMM rate (0: none).
    double recordPrediction(RunContext& ctx, double rows, const std::vector<Eigen::Index>& sizes);
    /// False when stopped (the caller marks the history).
    bool firstSweep(const Problem& p, Evaluation& cur, RunContext& ctx);
    CheckpointAction checkpointFirstSweep(const Evaluation& cur, Eigen::Index n, RunContext& ctx);
    void refine(const Problem& p, Evaluation& cur, CheckpointAction action, RunContext& ctx);
    /// Refinement iteration @p tau (epoch 1 + τ): the misclassified rows, their Gram, a sweep over
    /// them, the best blend of its weights with the current ones, a checkpoint. False when the
    /// refinement ends (no misses, Stop, no gain with stop_when_no_gain, the host's Stop).
    bool refineOnce(const Problem& p, int tau, Evaluation& cur, Refinement& r, RunContext& ctx);
    /// The misclassified rows of @p cur into r.miss and r.sub, their output targets and hidden
    /// values; false when there are none.
    bool gatherMisses(const Problem& p, const Evaluation& cur, Refinement& r, Eigen::MatrixXd& subTargets,
                      std::vector<Eigen::MatrixXd>& subHidden);
    void updateMissGram(const train::DesignMatrix& in, Refinement& r);
    /// The predicted seconds of the iteration over @p m missed rows, once its Gram rows are known.
    double iterationSeconds(const Problem& p, Eigen::Index m, Eigen::Index gramRowsBefore) const;
    /// The blend (1 − r)·current + r·@p wMiss of the config's ratios with the most correct rows
    /// (r.best; ties keep the smaller ratio), its ratio in @p ratio.
    std::vector<Eigen::MatrixXd> blendBest(const Problem& p, const Evaluation& cur,
                                           const std::vector<Eigen::MatrixXd>& wMiss, Eigen::Index m,
                                           Refinement& r, double& ratio);
    /// The best iterate's weights back, with a checkpoint unless the run was stopped.
    void restoreBest(const Problem& p, const Refinement& r, RunContext& ctx);
    void recordTotals(RunContext& ctx, double firstSeconds);
    void firstProduct(const train::DesignMatrix& in, const Eigen::MatrixXd& w0, Eigen::MatrixXd& z);

    bool sweep(const train::DesignMatrix& in, const Eigen::MatrixXd& targets, const std::vector<Eigen::MatrixXd>& hidden,
               std::vector<Eigen::MatrixXd>& w, RunContext& ctx, const Eigen::MatrixXd* firstGram = nullptr);
    /// With @p factor (G + λI already factorised, e.g. on another thread), only its solve runs;
    /// the result is the same as without it (solveNormalEquations() is factorise() then solve()).
    Eigen::MatrixXd solve(const Eigen::MatrixXd& g, const Eigen::MatrixXd& c, double targetNorm2, int layer, bool bias,
                          const char* phase, RunContext& ctx, const num::NormalEquationsFactor* factor = nullptr);
    num::LeastSquaresOptions solveOptions(RunContext& ctx) const;
    double m_gramRidge = 0;  ///< the Gram-diagonal λ of this fit's rows (fit() sets it)
    Eigen::MatrixXd outputTargets(const Eigen::Ref<const Eigen::MatrixXd>& y) const;
    void evaluate(Evaluation& ev, const std::vector<Eigen::MatrixXd>& w, const Eigen::Ref<const Eigen::MatrixXd>& y,
                  const Eigen::MatrixXd* blendFrom = nullptr, const Eigen::MatrixXd* blendTo = nullptr,
                  double ratio = 0.0);
    bool layerBias(int layer) const;
    void publish(const train::DesignMatrix& in);

    BplsConfig m_config;
    num::Mlp m_work;  ///< weights in the (possibly standardised) training domain; m_net: folded back to raw inputs
    std::vector<int> m_labels;
    History m_history;
    QJsonArray m_layerSolves; ///< the current sweep's solves, see layerSolves()
    StopToken m_stop;         ///< the current fit()'s, for the loops that poll it (evaluate())
};

} // namespace tb::bpls
