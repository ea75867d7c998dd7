#pragma once
/// @file LibsvmTrainer.h
/// One run of LIBSVM (Debian's libsvm 3.24) on the workbench's data.

#include "LibsvmConfig.h"

#include <trainbench/Trainbench.h>

#include <memory>
#include <vector>

struct svm_model; // LIBSVM's (libsvm/svm.h)
struct svm_node;

namespace tb::libsvm {

/// Trains with LIBSVM's own svm_train() and predicts with its svm_predict_values() or
/// svm_predict_probability(); nothing of the library is re-implemented.
///
/// fit(): the training inputs become LIBSVM's sparse rows directly (tb::wrap::SparseRows, built
/// once in the run's arena) — from a dense matrix or, for sparse data (DatasetView::xSparse),
/// from its compressed rows as they are, without a dense copy; the same data gives the same rows,
/// hence the same model, either way. Classification labels are the class indices, so the library's
/// one-vs-one multi-class scheme applies unchanged. Regression trains one model per output
/// column. When svm_train() returns, each model's support vectors are copied out of the problem
/// (LIBSVM's model points into it) and the problem is freed: the trainer keeps the support
/// vectors only. svm_train() runs on a thread of its own (tb::wrap::DetachedCall): Stop returns
/// within 200 ms and the abandoned call unwinds at its next progress message (every 1000 SMO
/// iterations). The library's output reaches the run's log, never stdout. One checkpoint, at
/// epoch 1, when the models are ready.
///
/// Anytime curve ("tolerance_ladder", LibsvmConfig::toleranceLadder): one complete solve per
/// tolerance, loosest first, each from scratch exactly as a run with that tolerance alone
/// (conversion, γ, library call, support-vector copy, facts), and a checkpoint after each — epoch
/// r for rung r (1-based), with Checkpoint::restartClock set, so the host times every point as
/// its own solve. Each rung's model is bit for bit the one a run at that tolerance trains. A Stop
/// during a rung leaves the model of the rung before it.
///
/// Randomness: only the probability model (an internal 5-fold cross-validation) draws from
/// glibc's rand(), one stream per process: those calls hold the process's one lock on it
/// (tb::wrap::SeededRand, shared with the LIBLINEAR plugin) and seed it with srand() from the
/// run's seed, so a LIBLINEAR run training at the same time cannot change the model.
///
/// Facts recorded: "plugin_version", "library_version" (LIBSVM_VERSION compiled against),
/// "library_loaded_version" (libsvm_version of the loaded library), "kernel", "gamma" (the γ
/// used), "command_line" (the equivalent svm-train options), "support_vectors" (per model),
/// "nonzeros", "problem_bytes", "support_vector_bytes", "conversion_seconds", "library_seconds"
/// (wall), "library_cpu_seconds" (the library thread's CPU time) — of the last solve; with a
/// ladder also "ladder": per rung done, {"tolerance", "conversion_seconds", "library_seconds",
/// "library_cpu_seconds", "smo_iterations", "support_vectors"}.
///
/// Sparse inputs: a SparseTrainer. Memory is the non-zeros' nodes, the kernel cache (at most
/// cache_mib) and SMO's per-variable arrays, never n·d; LIBSVM's kernels work on the sparse rows
/// themselves. gamma_rule "scale" takes the variance over every entry, zeros included, from the
/// non-zeros alone (LibsvmConfig::effectiveGamma).
///
/// Not thread-safe (one run, one thread), as Trainer requires; predict() and predictSparse() are
/// const and may be called concurrently with other const calls.
class LibsvmTrainer final : public SparseTrainer {
public:
    explicit LibsvmTrainer(LibsvmConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<LibsvmTrainer>(config()); }
    ~LibsvmTrainer() override;

    /// Takes dense or sparse inputs (DatasetView::xSparse). Throws std::invalid_argument for
    /// non-finite inputs or targets (naming row and column), sparse rows whose columns are out
    /// of range or not strictly increasing (naming the row), sparse inputs with another number of
    /// rows than the targets, a classification set with fewer than two classes, shapes beyond
    /// LIBSVM's int indices, and parameters LIBSVM's svm_check_parameter() refuses.
    void fit(const DatasetView& data, RunContext& ctx) override;

    /// Classification: n × k class scores. Without probability estimates: a binary model's
    /// decision value f(x) for its first label and −f(x) for the other; with three or more
    /// classes, the one-vs-one votes. With probability estimates: the class probabilities.
    /// Classes absent from the training set score below every present class; where scores tie,
    /// the class LIBSVM picks is raised by one ulp, so the arg-max is always the library's
    /// prediction. Regression: n × k predicted values. Before a model exists (a run stopped
    /// before svm_train() returned): zeros. Parallel over rows in the caller's arena (each row
    /// costs a kernel evaluation per support vector). Throws std::invalid_argument when x has
    /// the wrong number of columns.
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override;

    /// predict() for sparse rows: each row's nodes are built from its stored entries by the rule
    /// fit() uses (one row at a time, a buffer of the row's size per block of rows, in parallel
    /// as predict()), so the same rows give the same scores dense or sparse. Throws
    /// std::invalid_argument naming both widths when x's number of columns is not the model's,
    /// and for rows whose columns are out of range or not strictly increasing.
    Eigen::MatrixXd predictSparse(const SparseMatrix& x) const override;

    /// {"memory_bytes": predicted peak working memory (sparse copy at its upper bound, the
    /// kernel cache up to cache_mib, the solver's per-variable arrays, the one-vs-one
    /// coefficients, the support vectors kept at their upper bound), "problem_bytes_upper_bound",
    /// "cache_bytes", "kernel_row_flops": 3·n·d, the flops of one kernel row, "note"; with a
    /// tolerance ladder "solves": its rungs, and the support vectors of the previous rung's
    /// models, kept while the next solves}. No "flops": the number of kernel rows SMO needs
    /// depends on the data. For a sparse shape (ProblemShape::nonZeros > 0) the copy is
    /// (nnz + n) nodes and a kernel row 3·nnz flops (n sparse dot products, each a merge of two
    /// rows): nothing grows with n·d.
    QJsonObject predictCost(const ProblemShape& shape) const override;

    const LibsvmConfig& config() const { return m_config; }
    bool isTrained() const { return !m_models.empty(); }
    /// The γ used by the last fit() (0 before).
    double gammaUsed() const { return m_gamma; }

    /// LIBSVM's own model for output @p output (classification: 0 only), e.g. for
    /// svm_save_model() or the library's svm_predict(); nullptr before training or out of range.
    /// Owned by the trainer; its support vectors live in the trainer.
    const svm_model* libraryModel(std::size_t output = 0) const;

    /// Routes LIBSVM's output to tb::wrap::DetachedCall::print (idempotent, thread-safe): the
    /// library never writes to stdout from this process.
    static void installPrintHook();

private:
    struct Model; // a LIBSVM model and the support vectors it points to
    struct Job;

    /// One complete solve with @p config (its tolerance): the conversion, γ, svm_check_parameter(),
    /// the library call on its own thread, the support-vector copy, the facts. On success sets
    /// m_models, fills @p rung with the solve's figures and returns true; false when Stop
    /// abandoned the call (m_models untouched).
    bool solve(const DatasetView& data, RunContext& ctx, const LibsvmConfig& config, QJsonObject& rung);

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

    LibsvmConfig m_config;
    std::vector<std::unique_ptr<Model>> m_models; ///< classification: one; regression: one per output
    Eigen::Index m_inputs = 0;
    Eigen::Index m_outputs = 0;
    double m_gamma = 0;
};

} // namespace tb::libsvm
