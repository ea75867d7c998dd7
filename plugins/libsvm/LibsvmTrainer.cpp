#include "LibsvmTrainer.h"

#include <wrapping/DetachedCall.h>
#include <wrapping/LibraryClock.h>
#include <wrapping/LibraryJob.h>
#include <wrapping/LibraryScores.h>
#include <wrapping/ToleranceLadder.h>

#include <libsvm/svm.h>

#include <QJsonArray>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#ifndef TB_LIBSVM_PLUGIN_VERSION
#error "TB_LIBSVM_PLUGIN_VERSION is set from libsvm.json by CMake"
#endif

namespace tb::libsvm {
namespace {

using Rows = wrap::SparseRows<svm_node>;

// A progress line: only the marks the solvers print while they iterate.
bool isProgress(const QString& line)
{
    return wrap::isProgressLine(line, u".*");
}

} // namespace

// A LIBSVM model and the support vectors its SV pointers point to.
struct LibsvmTrainer::Model {
    svm_model* model = nullptr;
    std::vector<svm_node> nodes;

    explicit Model(svm_model* m) : model(m) {}
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;
    ~Model()
    {
        // free_sv is 0 for models from svm_train(): the library frees its arrays, not the nodes.
        if (model)
            svm_free_and_destroy_model(&model);
    }

    // svm_train() leaves SV[i] pointing into the training problem; copy those rows here so the
    // problem can go. Returns the bytes now held.
    std::size_t keepSupportVectors()
    {
        std::size_t count = 0;
        for (int i = 0; i < model->l; ++i) {
            const svm_node* p = model->SV[i];
            while (p->index != -1)
                ++p;
            count += std::size_t(p - model->SV[i]) + 1;
        }
        nodes.resize(count);
        std::size_t at = 0;
        for (int i = 0; i < model->l; ++i) {
            svm_node* start = nodes.data() + at;
            for (const svm_node* p = model->SV[i];; ++p) {
                nodes[at++] = *p;
                if (p->index == -1)
                    break;
            }
            model->SV[i] = start;
        }
        model->free_sv = 0;
        return count * sizeof(svm_node);
    }
};

// The library call's job (wrap::LibraryJob) and LIBSVM's problem and parameters pointing into it.
struct LibsvmTrainer::Job : wrap::LibraryJob<svm_node, std::unique_ptr<Model>> {
    svm_problem prob{};
    svm_parameter param{};
};

LibsvmTrainer::LibsvmTrainer(LibsvmConfig config) : m_config(std::move(config))
{
    installPrintHook();
}

LibsvmTrainer::~LibsvmTrainer() = default;

void LibsvmTrainer::installPrintHook()
{
    static std::once_flag once;
    std::call_once(once, [] { svm_set_print_string_function(&wrap::DetachedCall::print); });
}

const svm_model* LibsvmTrainer::libraryModel(std::size_t output) const
{
    return output < m_models.size() ? m_models[output]->model : nullptr;
}

void LibsvmTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    m_models.clear();
    m_inputs = data.inputs();
    m_outputs = data.outputs();
    // One solve, or a ladder of complete solves from scratch: each rung is what a run with that
    // tolerance alone would do, conversion and γ included, and its checkpoint restarts the host's
    // clock so that its point is timed alone. A Stop during a rung keeps the previous rung's model.
    wrap::ToleranceLadder::runEach(ctx, m_config, [&](const LibsvmConfig& config, QJsonObject& rung) {
        return solve(data, ctx, config, rung);
    });
}

bool LibsvmTrainer::solve(const DatasetView& data, RunContext& ctx, const LibsvmConfig& config, QJsonObject& rung)
{
    const std::string who = "libsvm";
    const Eigen::Index n = data.rows();
    wrap::requireTask(data, config.regression, who, config.regression ? "libsvm.regress" : "libsvm.classify");
    Rows::requireFinite(data.y, who, "training target");

    // Labels are the class indices: LIBSVM groups them itself (one-vs-one).
    auto job = std::make_shared<Job>();
    job->convert(data, config.regression, -1.0, who);
    m_gamma = data.isSparse() ? config.effectiveGamma(*data.xSparse) : config.effectiveGamma(data.x);
    job->prob.l = int(n);
    job->prob.x = job->rows.rows();
    job->prob.y = job->y.data();
    job->param = config.libraryParameter(m_gamma);
    job->randomised = config.probability;
    job->seed = unsigned(deriveSeed(ctx.seed(), 0));
    const QString options = config.commandLineOptions(m_gamma);
    if (const char* err = svm_check_parameter(&job->prob, &job->param))
        throw std::invalid_argument(who + ": LIBSVM refuses the parameters (" + options.toStdString() +
                                    "): " + err);
    job->conversionDone();
    auto work = [job] {
        job->trainEach([&job] {
            svm_model* m = svm_train(&job->prob, &job->param);
            if (!m)
                throw std::runtime_error("libsvm: svm_train() returned no model");
            return std::make_unique<Model>(m);
        });
    };

    ctx.log(QStringLiteral("libsvm: %1 %2 kernel (svm-train %3), %4 rows, %5 non-zeros")
                .arg(config.regression ? QStringLiteral("ε-SVR") : QStringLiteral("C-SVC"), config.kernelName,
                     options)
                .arg(n)
                .arg(job->rows.nonzeros()));
    // Each binary problem prints four lines; with ten classes that is 180 lines, so they are
    // summed up instead of kept.
    static const QRegularExpression finished(QStringLiteral("^optimization finished, #iter = (\\d+)$"));
    long long problems = 0, iterations = 0;
    auto onLine = [&](const QString& raw) {
        const QString line = raw.trimmed();
        if (isProgress(line))
            return;
        if (const auto m = finished.match(line); m.hasMatch()) {
            ++problems;
            iterations += m.captured(1).toLongLong();
            return;
        }
        if (line.startsWith(QLatin1String("obj = ")) || line.startsWith(QLatin1String("nSV = ")) ||
            line.startsWith(QLatin1String("nu = ")))
            return;
        ctx.log(QStringLiteral("libsvm: ") + line);
    };
    if (wrap::DetachedCall::run(work, ctx.stopToken(), onLine) == wrap::DetachedCall::Outcome::Abandoned) {
        ctx.log(
            QStringLiteral("libsvm: stopped; svm_train() was left to unwind at its next progress message, "
                           "its result discarded"));
        return false;
    }
    ctx.log(QStringLiteral("libsvm: %1 SMO problem(s) solved, %2 iterations in total")
                .arg(problems)
                .arg(iterations));
    std::size_t supportBytes = 0;
    QJsonArray supportVectors;
    for (auto& m : job->models) {
        supportBytes += m->keepSupportVectors();
        supportVectors.append(m->model->l);
    }
    m_models = std::move(job->models);
    const wrap::LibraryFacts facts = job->facts(config.tolerance);
    job.reset(); // the problem's rows go; the models keep their own support vectors

    facts.record(ctx, QStringLiteral("libsvm"),
                 {QStringLiteral(TB_LIBSVM_PLUGIN_VERSION), "LIBSVM_VERSION", LIBSVM_VERSION,
                  "libsvm_version", libsvm_version});
    ctx.record("kernel", config.kernelName);
    ctx.record("gamma", m_gamma);
    ctx.record("command_line", QStringLiteral("svm-train ") + options);
    ctx.record("support_vectors", supportVectors);
    ctx.record("support_vector_bytes", double(supportBytes));
    rung = facts.rung();
    rung.insert("smo_iterations", double(iterations));
    rung.insert("support_vectors", supportVectors);
    return true;
}

template <class FillRow>
Eigen::MatrixXd LibsvmTrainer::scoreRows(Eigen::Index n, const FillRow& fillRow) const
{
    const Eigen::Index k = m_outputs;
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(n, k);
    if (m_models.empty())
        return out;
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, n, 64), [&](const auto& r) {
        std::vector<svm_node> row;
        const svm_model* first = m_models.front()->model;
        const int classes = m_config.regression ? 2 : first->nr_class;
        std::vector<double> values(std::size_t(std::max(classes * (classes - 1) / 2, classes)));
        std::vector<int> votes(static_cast<std::size_t>(classes));
        for (Eigen::Index i = r.begin(); i < r.end(); ++i) {
            fillRow(i, row);
            if (m_config.regression) {
                for (Eigen::Index o = 0; o < k; ++o)
                    out(i, o) =
                        svm_predict_values(m_models[std::size_t(o)]->model, row.data(), values.data());
                continue;
            }
            int chosen = 0;
            double lowest = std::numeric_limits<double>::infinity();
            auto put = [&](int labelIndex, double score) {
                out(i, first->label[labelIndex]) = score;
                lowest = std::min(lowest, score);
            };
            if (m_config.probability) {
                chosen = int(svm_predict_probability(first, row.data(), values.data()));
                for (int c = 0; c < classes; ++c)
                    put(c, values[std::size_t(c)]);
            } else {
                chosen = int(svm_predict_values(first, row.data(), values.data()));
                if (classes == 2) {
                    put(0, values[0]);
                    put(1, -values[0]);
                } else {
                    // The one-vs-one vote, pair by pair as svm_predict_values() counts it.
                    std::fill(votes.begin(), votes.end(), 0);
                    std::size_t p = 0;
                    for (int a = 0; a < classes; ++a)
                        for (int b = a + 1; b < classes; ++b)
                            ++votes[std::size_t(values[p++] > 0 ? a : b)];
                    for (int c = 0; c < classes; ++c)
                        put(c, double(votes[std::size_t(c)]));
                }
            }
            wrap::finishClassRow(out, i, first->label, classes, chosen, lowest);
        }
    });
    return out;
}

Eigen::MatrixXd LibsvmTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    return wrap::predictRows<svm_node>("libsvm", fitted(), m_inputs, x, -1.0, scorer());
}

Eigen::MatrixXd LibsvmTrainer::predictSparse(const SparseMatrix& x) const
{
    return wrap::predictRows<svm_node>("libsvm", fitted(), m_inputs, x, -1.0, scorer());
}

QJsonObject LibsvmTrainer::predictCost(const ProblemShape& s) const
{
    const double n = double(s.rows), d = double(s.inputs), k = double(std::max<Eigen::Index>(s.outputs, 1));
    // Sparse inputs: the nodes of the non-zeros and terminators; nothing of size n·d.
    const double problem = s.isSparse() ? Rows::sparseBytesUpperBound(n, double(s.nonZeros), false)
                                        : Rows::bytesUpperBound(n, d, false);
    const double kernelRowFlops = s.isSparse() ? 3 * double(s.nonZeros) : 3 * n * d;
    // The largest SMO problem: all rows for two classes or regression (2n variables for ε-SVR),
    // about 2n/k rows for k balanced classes (one-vs-one).
    const double rows = m_config.regression || k <= 2 ? n : 2 * n / k;
    const double variables = m_config.regression ? 2 * n : rows;
    const double cache = std::min(m_config.cacheMib * 1048576.0, rows * variables * 4.0);
    // Solver::Solve: alpha, G, G_bar, p, QD (8 bytes each), y, alpha_status (1), active_set (4);
    // the kernel's row pointers and squared norms.
    const double solver = variables * (5 * 8 + 1 + 1 + 4) + rows * (8 + 8);
    // svm_train: labels, permutation, row pointers, the pairwise coefficients, the model's
    // coefficients and support-vector pointers.
    const double train =
        n * (8 + 4 + 8 + 1) + (m_config.regression ? 2 * n * 8 : (k - 1) * n * 8 * 2 + n * 8);
    // With a ladder the previous rung's support vectors stay while the next one trains.
    const bool ladder = !m_config.toleranceLadder.empty();
    const double supportVectors = problem * (m_config.regression ? k : 1) * (ladder ? 2 : 1);
    const double memory = problem + n * 8 + cache + solver + train + supportVectors;
    QJsonObject cost{
        {"memory_bytes", memory},
        {"problem_bytes_upper_bound", problem},
        {"cache_bytes", cache},
        {"kernel_row_flops", kernelRowFlops},
        {"note",
         QStringLiteral("LIBSVM is single-threaded; SMO computes kernel rows as it needs them, cached "
                        "up to cache_mib%1")
             .arg(m_config.probability ? QStringLiteral("; probability estimates train 5 more models")
                                       : QString())},
    };
    if (ladder)
        cost.insert("solves", int(m_config.toleranceLadder.size()));
    return cost;
}

} // namespace tb::libsvm
