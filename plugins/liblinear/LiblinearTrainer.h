#pragma once
/// @file LiblinearTrainer.h
/// One run of LIBLINEAR (Debian's liblinear 2.3) on the workbench's data.

#include "LiblinearConfig.h"

#include <trainbench/Trainbench.h>

#include <memory>
#include <vector>

struct model; // LIBLINEAR's (linear.h)

namespace tb::liblinear {

/// Trains with LIBLINEAR's own train() and predicts with its predict_values(); nothing of the
/// library is re-implemented.
///
/// fit(): the training inputs become LIBLINEAR's sparse rows directly (tb::wrap::SparseRows,
/// built once in the run's arena, freed when train() returns) — from a dense matrix or, for
/// sparse data (DatasetView::xSparse), from its compressed rows as they are, without a dense
/// copy; the same data gives the same rows, hence the same model, either way. Classification labels are the
/// class indices, so the library's multi-class handling (one-vs-rest, or Crammer–Singer for
/// mcsvm_cs) applies unchanged. Regression trains one model per output column. train() runs on
/// a thread of its own (tb::wrap::DetachedCall): Stop returns within 200 ms, the abandoned
/// call unwinds at its next progress message. The library's output reaches the run's log, never
/// stdout. One checkpoint, at epoch 1, when the model is ready.
///
/// Anytime curve ("tolerance_ladder", LiblinearConfig::toleranceLadder): one complete solve per
/// tolerance, loosest first, each from scratch exactly as a run with that tolerance alone
/// (conversion, library call, facts), and a checkpoint after each — epoch r for rung r (1-based),
/// with Checkpoint::restartClock set, so the host times every point as its own solve. Each rung's
/// model is bit for bit the one a run at that tolerance trains. A Stop during a rung leaves the
/// model of the rung before it.
///
/// Randomness: the dual and L1 solvers visit coordinates in rand() order. glibc's rand() is one
/// stream per process, so those calls hold the process's one lock on it (tb::wrap::SeededRand,
/// shared with the LIBSVM plugin: one at a time per process) and seed it with srand() from the
/// run's seed: the same seed gives the same model, whatever else trains.
///
/// Facts recorded: "plugin_version", "library_version" (LIBLINEAR_VERSION compiled against)
/// and "library_loaded_version" (liblinear_version of the loaded library), "solver",
/// "command_line" (the equivalent liblinear-train options), "tolerance", "nonzeros",
/// "problem_bytes", "conversion_seconds", "library_seconds" (wall), "library_cpu_seconds" (the
/// library thread's CPU time), "classes_in_model" — of the last solve; with a ladder also
/// "ladder": per rung done, {"tolerance", "conversion_seconds", "library_seconds",
/// "library_cpu_seconds", "newton_iterations" (TRON and newGLMNET only)}.
///
/// Sparse inputs: a SparseTrainer. Memory is the non-zeros' nodes plus LIBLINEAR's per-row and
/// per-feature arrays (O(n + d), e.g. the weights): a 2,000 × 1,000,000 problem of 40,000
/// non-zeros trains in under 100 MB (-s 2: most of it TRON's vectors of size d) where a dense
/// copy would take 16 GB.
///
/// Not thread-safe (one run, one thread), as Trainer requires; predict() and predictSparse() are
/// const and may be called concurrently with other const calls.
class LiblinearTrainer final : public SparseTrainer {
public:
    explicit LiblinearTrainer(LiblinearConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<LiblinearTrainer>(config()); }
    ~LiblinearTrainer() override;

    /// Takes dense or sparse inputs (DatasetView::xSparse). Throws std::invalid_argument for
    /// non-finite inputs or targets (naming row and column), sparse rows whose columns are out
    /// of range or not strictly increasing (naming the row), sparse inputs with another number of
    /// rows than the targets, a classification set with fewer than two classes, shapes beyond
    /// LIBLINEAR's int indices, and parameters LIBLINEAR's check_parameter() refuses.
    void fit(const DatasetView& data, RunContext& ctx) override;

    /// Classification: n × k class scores — LIBLINEAR's decision values per class (a binary
    /// model's single value w·x for its first label and −w·x for the other); classes absent from
    /// the training set score below every present class; where scores tie, the class LIBLINEAR's
    /// predict_values() picks is raised by one ulp, so the arg-max is always the library's
    /// prediction. Regression: n × k predicted values. Before a model exists (a run stopped
    /// before train() returned): zeros, the library's starting point w = 0. Parallel over rows
    /// in the caller's arena. Throws std::invalid_argument when x has the wrong number of columns.
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override;

    /// predict() for sparse rows: each row's nodes are built from its stored entries by the rule
    /// fit() uses (one row at a time, a buffer of the row's size per block of rows, in parallel
    /// as predict()), so the same rows give the same scores dense or sparse. Throws
    /// std::invalid_argument naming both widths when x's number of columns is not the model's,
    /// and for rows whose columns are out of range or not strictly increasing.
    Eigen::MatrixXd predictSparse(const SparseMatrix& x) const override;

    /// {"memory_bytes": predicted peak working memory (sparse copy at its upper bound, the
    /// labels or targets, LIBLINEAR's per-row and per-feature working arrays, the model),
    /// "problem_bytes_upper_bound", "pass_flops": 2·n·(d + 1), the flops of one pass over the
    /// rows, "max_passes": the solver's iteration cap, "note"; with a tolerance ladder "solves":
    /// its rungs, and the memory of one more model, the previous rung's, kept while the next
    /// solves}. No "flops": the number of passes depends on the data and the tolerance. For a
    /// sparse shape (ProblemShape::nonZeros > 0) the copy is (nnz + 2n) nodes and a pass
    /// 2·(nnz + n) flops: nothing grows with n·d.
    QJsonObject predictCost(const ProblemShape& shape) const override;

    const LiblinearConfig& config() const { return m_config; }
    bool isTrained() const { return !m_models.empty(); }

    /// The learnt decision functions, (d + 1) × m: row j < d the weight of input j, row d the
    /// intercept (bias × its weight, 0 without a bias feature), as LIBLINEAR's get_decfun_coef()
    /// and get_decfun_bias() give them. Columns: classification — one per class index (a binary
    /// model's w for its first label, −w for the other; zero for a class absent from training);
    /// regression — one per output. Empty before training.
    Eigen::MatrixXd decisionFunctions() const;

    /// LIBLINEAR's own model for output @p output (classification: 0 only), e.g. for
    /// save_model() or the library's predict(); nullptr before training or out of range.
    /// Owned by the trainer.
    const model* libraryModel(std::size_t output = 0) const
    {
        return output < m_models.size() ? m_models[output].get() : nullptr;
    }

    /// Routes LIBLINEAR's output to tb::wrap::DetachedCall::print (idempotent, thread-safe):
    /// the library never writes to stdout from this process.
    static void installPrintHook();

private:
    struct ModelDeleter {
        void operator()(model* m) const;
    };
    using ModelPtr = std::unique_ptr<model, ModelDeleter>;
    struct Job;

    /// One complete solve with @p config (its tolerance): the conversion, check_parameter(),
    /// the library call on its own thread, the facts. On success sets m_models, fills @p rung
    /// with the solve's figures and returns true; false when Stop abandoned the call (m_models
    /// untouched).
    bool solve(const DatasetView& data, RunContext& ctx, const LiblinearConfig& config, QJsonObject& rung);

    /// The n × k scores of predict() for n rows whose nodes @p fillRow(i, buffer) writes into a
    /// buffer it may grow (one buffer per block of rows); shared by predict() and predictSparse().
    template <class FillRow> Eigen::MatrixXd scoreRows(Eigen::Index n, const FillRow& fillRow) const;
    /// scoreRows() as the score function of wrap::predictRows().
    auto scorer() const
    {
        return [this](Eigen::Index n, const auto& fillRow) { return scoreRows(n, fillRow); };
    }
    /// fit() has seen a training set (a model may still be missing: a run stopped early).
    bool fitted() const { return m_inputs != 0 || m_outputs != 0; }

    LiblinearConfig m_config;
    std::vector<ModelPtr> m_models; ///< classification: one; regression: one per output
    Eigen::Index m_inputs = 0;
    Eigen::Index m_outputs = 0;
};

} // namespace tb::liblinear
