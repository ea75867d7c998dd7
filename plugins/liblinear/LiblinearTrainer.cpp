#include "LiblinearTrainer.h"

#include <wrapping/DetachedCall.h>
#include <wrapping/LibraryClock.h>
#include <wrapping/LibraryJob.h>
#include <wrapping/LibraryScores.h>
#include <wrapping/ToleranceLadder.h>

#include <linear.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#ifndef TB_LIBLINEAR_PLUGIN_VERSION
#error "TB_LIBLINEAR_PLUGIN_VERSION is set from liblinear.json by CMake"
#endif

namespace tb::liblinear {
namespace {

using Rows = wrap::SparseRows<feature_node>;

// A progress line: only the marks the solvers print while they iterate.
bool isProgress(const QString& line)
{
    return wrap::isProgressLine(line, u".*#");
}

// Upper bound of the working memory of train() beyond the problem itself, from linear.cpp 2.3:
// the class grouping (perm, the permuted row pointers, the sub-problem's pointers and labels),
// the model, and the solver's own arrays.
double solverBytes(int type, double n, double d1, double classes, double problemBytes)
{
    const double grouping = n * (4 + 8 + 8 + 8);
    const double weights = d1 * std::max(1.0, classes) * 8;
    double solver = 0;
    switch (type) {
    case L2R_LR:
    case L2R_L2LOSS_SVC:
    case L2R_L2LOSS_SVR:
        solver = n * (8 + 8 + 4) + d1 * 8 * 6; // z, D, index set; TRON's s, r, g, w_new, …
        break;
    case L2R_L2LOSS_SVC_DUAL:
    case L2R_L1LOSS_SVC_DUAL:
    case L2R_LR_DUAL:
    case L2R_L2LOSS_SVR_DUAL:
    case L2R_L1LOSS_SVR_DUAL:
        solver = n * (8 * 3 + 4 + 1); // alpha (2n for the LR dual), QD, index, y
        break;
    case MCSVM_CS:
        solver = n * std::max(1.0, classes) * (8 + 4) + n * (8 + 4 + 4); // alpha, alpha_index, QD, …
        break;
    case L1R_L2LOSS_SVC:
    case L1R_LR:
        solver = problemBytes + n * 8 * 4 + d1 * 8 * 4; // a column-major copy of the problem, b, …
        break;
    default:
        break;
    }
    return grouping + weights + solver;
}

} // namespace

// The library call's job (wrap::LibraryJob) and LIBLINEAR's problem and parameters pointing into it.
struct LiblinearTrainer::Job : wrap::LibraryJob<feature_node, ModelPtr> {
    problem prob{};
    parameter param{};
};

void LiblinearTrainer::ModelDeleter::operator()(model* m) const
{
    free_and_destroy_model(&m);
}

LiblinearTrainer::LiblinearTrainer(LiblinearConfig config) : m_config(std::move(config))
{
    installPrintHook();
}

LiblinearTrainer::~LiblinearTrainer() = default;

void LiblinearTrainer::installPrintHook()
{
    static std::once_flag once;
    std::call_once(once, [] { set_print_string_function(&wrap::DetachedCall::print); });
}

void LiblinearTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    m_models.clear();
    m_inputs = data.inputs();
    m_outputs = data.outputs();
    // One solve, or a ladder of complete solves from scratch: each rung is what a run with that
    // tolerance alone would do, conversion included, and its checkpoint restarts the host's
    // clock so that its point is timed alone. A Stop during a rung keeps the previous rung's model.
    wrap::ToleranceLadder::runEach(ctx, m_config, [&](const LiblinearConfig& config, QJsonObject& rung) {
        return solve(data, ctx, config, rung);
    });
}

bool LiblinearTrainer::solve(const DatasetView& data, RunContext& ctx, const LiblinearConfig& config,
                             QJsonObject& rung)
{
    const std::string who = "liblinear";
    const Eigen::Index n = data.rows(), d = data.inputs();
    wrap::requireTask(data, config.regression, who,
                      config.regression ? "liblinear.regress" : "liblinear.classify");
    Rows::requireFinite(data.y, who, "training target");

    // Labels are the class indices: LIBLINEAR groups them itself (one-vs-rest or Crammer–Singer).
    auto job = std::make_shared<Job>();
    job->convert(data, config.regression, config.bias, who);
    job->prob.l = int(n);
    job->prob.n = int(d) + (config.bias >= 0 ? 1 : 0);
    job->prob.x = job->rows.rows();
    job->prob.y = job->y.data();
    job->prob.bias = config.bias;
    job->param = config.libraryParameter();
    job->randomised = config.solver->randomised;
    job->seed = unsigned(deriveSeed(ctx.seed(), 0));
    if (const char* err = check_parameter(&job->prob, &job->param))
        throw std::invalid_argument(who + ": LIBLINEAR refuses the parameters (" +
                                    config.commandLineOptions().toStdString() + "): " + err);
    job->conversionDone();
    auto work = [job] {
        job->trainEach([&job] {
            model* m = train(&job->prob, &job->param);
            if (!m)
                throw std::runtime_error("liblinear: train() returned no model");
            return ModelPtr(m);
        });
    };

    ctx.log(QStringLiteral("liblinear: %1 (liblinear-train %2), %3 rows, %4 non-zeros")
                .arg(QLatin1String(config.solver->name), config.commandLineOptions())
                .arg(n)
                .arg(job->rows.nonzeros()));
    int newtonLines = 0;
    auto onLine = [&](const QString& raw) {
        const QString line = raw.trimmed();
        if (isProgress(line))
            return;
        // TRON's and newGLMNET's per-iteration lines would flood the run's log; count them.
        if (line.startsWith(QLatin1String("iter ")) ||
            line == QLatin1String("cg reaches trust region boundary")) {
            newtonLines += line.startsWith(QLatin1String("iter ")) ? 1 : 0;
            return;
        }
        ctx.log(QStringLiteral("liblinear: ") + line);
    };
    const auto abandon = config.solver->columnCopy ? wrap::DetachedCall::Abandon::RunToEnd
                                                   : wrap::DetachedCall::Abandon::Unwind;
    if (wrap::DetachedCall::run(work, ctx.stopToken(), onLine, abandon) ==
        wrap::DetachedCall::Outcome::Abandoned) {
        ctx.log(config.solver->columnCopy
                    ? QStringLiteral("liblinear: stopped; train() is left to finish in the background (an L1 "
                                     "solver holds a column copy of the problem), its result discarded")
                    : QStringLiteral("liblinear: stopped; train() was left to unwind at its next progress "
                                     "message, its result discarded"));
        return false;
    }
    if (newtonLines > 0)
        ctx.log(
            QStringLiteral("liblinear: %1 Newton iterations (one log line each, not kept)").arg(newtonLines));
    m_models = std::move(job->models);
    const wrap::LibraryFacts facts = job->facts(config.tolerance);
    job.reset();

    facts.record(ctx, QStringLiteral("liblinear"),
                 {QStringLiteral(TB_LIBLINEAR_PLUGIN_VERSION), "LIBLINEAR_VERSION", LIBLINEAR_VERSION,
                  "liblinear_version", liblinear_version});
    ctx.record("solver",
               QStringLiteral("%1 (-s %2)").arg(QLatin1String(config.solver->name)).arg(config.solver->type));
    ctx.record("command_line", QStringLiteral("liblinear-train ") + config.commandLineOptions());
    ctx.record("tolerance", config.tolerance);
    if (!config.regression)
        ctx.record("classes_in_model", m_models.front()->nr_class);
    rung = facts.rung();
    if (newtonLines > 0)
        rung.insert("newton_iterations", newtonLines);
    return true;
}

template <class FillRow>
Eigen::MatrixXd LiblinearTrainer::scoreRows(Eigen::Index n, const FillRow& fillRow) const
{
    const Eigen::Index k = m_outputs;
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(n, k);
    if (m_models.empty())
        return out;
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, n, 256), [&](const auto& r) {
        std::vector<feature_node> row;
        std::vector<double> dec(std::size_t(std::max<Eigen::Index>(k, 2)));
        for (Eigen::Index i = r.begin(); i < r.end(); ++i) {
            fillRow(i, row);
            if (m_config.regression) {
                for (Eigen::Index o = 0; o < k; ++o)
                    out(i, o) = predict_values(m_models[std::size_t(o)].get(), row.data(), dec.data());
                continue;
            }
            const model* m = m_models.front().get();
            const int chosen = int(predict_values(m, row.data(), dec.data()));
            const bool single = m->nr_class == 2 && m->param.solver_type != MCSVM_CS;
            double lowest = std::numeric_limits<double>::infinity();
            for (int c = 0; c < m->nr_class; ++c) {
                const double s = single ? (c == 0 ? dec[0] : -dec[0]) : dec[std::size_t(c)];
                out(i, m->label[c]) = s;
                lowest = std::min(lowest, s);
            }
            wrap::finishClassRow(out, i, m->label, m->nr_class, chosen, lowest);
        }
    });
    return out;
}

Eigen::MatrixXd LiblinearTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    return wrap::predictRows<feature_node>("liblinear", fitted(), m_inputs, x, m_config.bias, scorer());
}

Eigen::MatrixXd LiblinearTrainer::predictSparse(const SparseMatrix& x) const
{
    return wrap::predictRows<feature_node>("liblinear", fitted(), m_inputs, x, m_config.bias, scorer());
}

QJsonObject LiblinearTrainer::predictCost(const ProblemShape& s) const
{
    const double n = double(s.rows), d1 = double(s.inputs) + (m_config.bias >= 0 ? 1 : 0);
    const double k = double(std::max<Eigen::Index>(s.outputs, 1));
    // Sparse inputs: the nodes of the non-zeros, bias and terminators; nothing of size n·d.
    const double problem = s.isSparse()
                               ? Rows::sparseBytesUpperBound(n, double(s.nonZeros), m_config.bias >= 0)
                               : Rows::bytesUpperBound(n, double(s.inputs), m_config.bias >= 0);
    const double entries = s.isSparse() ? double(s.nonZeros) + (m_config.bias >= 0 ? n : 0) : n * d1;
    const double targets = m_config.regression ? n * k * 8 * 2 : n * 8;
    const double classes = m_config.regression ? 1 : k;
    // With a ladder the previous rung's model stays while the next one trains.
    const bool ladder = !m_config.toleranceLadder.empty();
    const double models = d1 * (m_config.regression ? k : classes) * 8 * (ladder ? 2 : 1);
    const double memory =
        problem + targets + solverBytes(m_config.solver->type, n, d1, classes, problem) + models;
    const int maxPasses = m_config.solver->type == MCSVM_CS ? 100000 : 1000;
    QJsonObject cost{
        {"memory_bytes", memory},
        {"problem_bytes_upper_bound", problem},
        {"pass_flops", 2 * entries},
        {"max_passes", maxPasses},
        {"note", QStringLiteral("LIBLINEAR is single-threaded; %1 makes up to %2 passes per %3")
                     .arg(QLatin1String(m_config.solver->name))
                     .arg(maxPasses)
                     .arg(m_config.regression                 ? QStringLiteral("output")
                          : m_config.solver->type == MCSVM_CS ? QStringLiteral("run")
                                                              : QStringLiteral("class (one-vs-rest)"))},
    };
    if (ladder)
        cost.insert("solves", int(m_config.toleranceLadder.size()));
    return cost;
}

Eigen::MatrixXd LiblinearTrainer::decisionFunctions() const
{
    if (m_models.empty())
        return {};
    const Eigen::Index d = m_inputs;
    Eigen::MatrixXd w = Eigen::MatrixXd::Zero(d + 1, m_outputs);
    for (std::size_t o = 0; o < m_models.size(); ++o) {
        const model* m = m_models[o].get();
        const int functions = m_config.regression ? 1 : m->nr_class;
        for (int f = 0; f < functions; ++f) {
            const Eigen::Index col = m_config.regression ? Eigen::Index(o) : m->label[f];
            for (Eigen::Index j = 0; j < d; ++j)
                w(j, col) = get_decfun_coef(m, int(j + 1), f);
            w(d, col) = get_decfun_bias(m, f);
        }
    }
    return w;
}

} // namespace tb::liblinear
