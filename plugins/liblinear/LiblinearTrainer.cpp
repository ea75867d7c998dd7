#include "LiblinearTrainer.h"

#include <DetachedCall.h>
#include <LibraryClock.h>
#include <LibraryLabels.h>
#include <SeededRand.h>
#include <SparseRows.h>
#include <ToleranceLadder.h>

#include <linear.h>

#include <QJsonArray>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <optional>
#include <stdexcept>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#ifndef TB_LIBLINEAR_PLUGIN_VERSION
#error "TB_LIBLINEAR_PLUGIN_VERSION is set from liblinear.json by CMake"
#endif

namespace tb::liblinear {
namespace {

using wrap::Clock;
using wrap::secondsSince;
using wrap::threadCpuSeconds;
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

// Everything the library call touches, owned by the call's thread as much as by fit(): after a
// Stop, fit() lets go and the call frees it when it ends.
struct LiblinearTrainer::Job {
    Rows rows;
    std::vector<double> y;   // the labels, or the current output's targets
    Eigen::MatrixXd targets; // regression: every output
    problem prob{};
    parameter param{};
    bool randomised = false;
    unsigned seed = 1;
    std::vector<ModelPtr> models;
    double librarySeconds = 0;
    double libraryCpuSeconds = 0;
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
    wrap::ToleranceLadder::run(ctx, m_config.solveTolerances(), !m_config.toleranceLadder.empty(),
                               [&](double tolerance, QJsonObject& rung) {
                                   LiblinearConfig config = m_config;
                                   config.tolerance = tolerance;
                                   return solve(data, ctx, config, rung);
                               });
}

bool LiblinearTrainer::solve(const DatasetView& data, RunContext& ctx, const LiblinearConfig& config,
                             QJsonObject& rung)
{
    const std::string who = "liblinear";
    const Eigen::Index n = data.rows(), d = data.inputs(), k = data.outputs();
    wrap::requireTask(data, config.regression, who,
                      config.regression ? "liblinear.regress" : "liblinear.classify");
    Rows::requireFinite(data.y, who, "training target");

    const auto t0 = Clock::now();
    auto job = std::make_shared<Job>();
    if (config.regression) {
        job->targets = data.y;
        job->y.assign(std::size_t(n), 0.0);
    } else {
        // Labels are the class indices; LIBLINEAR groups them itself (one-vs-rest or Crammer–Singer).
        job->y = wrap::classLabels(data, who);
    }
    // Both forms go through the same node rule: the same data gives the same rows and model.
    if (data.isSparse()) {
        job->rows = Rows(*data.xSparse, config.bias, who); // checks entries and columns, naming them
    } else {
        job->rows = Rows(data.x, config.bias, who); // checks x is finite, naming the entry
    }
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
    const double conversionSeconds = secondsSince(t0);
    const std::size_t nonzeros = job->rows.nonzeros(), problemBytes = job->rows.bytes();

    const int outputs = config.regression ? int(k) : 1;
    auto work = [job, outputs] {
        // glibc's rand() is one stream per process, shared with the other library wrappers:
        // randomised calls hold it whole, so that the run's seed alone decides their draws.
        std::optional<wrap::SeededRand> seeded;
        if (job->randomised)
            seeded.emplace(job->seed);
        const auto start = Clock::now();
        const double cpuStart = threadCpuSeconds();
        for (int o = 0; o < outputs; ++o) {
            wrap::DetachedCall::throwIfAbandoned();
            if (job->targets.size() > 0)
                for (Eigen::Index i = 0; i < job->targets.rows(); ++i)
                    job->y[std::size_t(i)] = job->targets(i, o);
            model* m = train(&job->prob, &job->param);
            if (!m)
                throw std::runtime_error("liblinear: train() returned no model");
            job->models.emplace_back(m);
        }
        job->librarySeconds = secondsSince(start);
        job->libraryCpuSeconds = threadCpuSeconds() - cpuStart;
    };

    ctx.log(QStringLiteral("liblinear: %1 (liblinear-train %2), %3 rows, %4 non-zeros")
                .arg(QLatin1String(config.solver->name), config.commandLineOptions())
                .arg(n)
                .arg(nonzeros));
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
    const double librarySeconds = job->librarySeconds, libraryCpuSeconds = job->libraryCpuSeconds;
    job.reset();

    if (liblinear_version != LIBLINEAR_VERSION)
        ctx.log(
            QStringLiteral("liblinear: built against LIBLINEAR_VERSION %1, running with liblinear_version %2")
                .arg(LIBLINEAR_VERSION)
                .arg(liblinear_version));
    ctx.record("plugin_version", QStringLiteral(TB_LIBLINEAR_PLUGIN_VERSION));
    ctx.record("library_version", LIBLINEAR_VERSION);
    ctx.record("library_loaded_version", liblinear_version);
    ctx.record("solver",
               QStringLiteral("%1 (-s %2)").arg(QLatin1String(config.solver->name)).arg(config.solver->type));
    ctx.record("command_line", QStringLiteral("liblinear-train ") + config.commandLineOptions());
    ctx.record("tolerance", config.tolerance);
    ctx.record("nonzeros", double(nonzeros));
    ctx.record("problem_bytes", double(problemBytes));
    ctx.record("conversion_seconds", conversionSeconds);
    ctx.record("library_seconds", librarySeconds);
    ctx.record("library_cpu_seconds", libraryCpuSeconds);
    if (!config.regression)
        ctx.record("classes_in_model", m_models.front()->nr_class);
    rung = QJsonObject{{"tolerance", config.tolerance},
                       {"conversion_seconds", conversionSeconds},
                       {"library_seconds", librarySeconds},
                       {"library_cpu_seconds", libraryCpuSeconds}};
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
            if (m->nr_class < k) {
                // Classes the training set did not have: below every class the model knows.
                Eigen::VectorXi known = Eigen::VectorXi::Zero(k);
                for (int c = 0; c < m->nr_class; ++c)
                    known(m->label[c]) = 1;
                for (Eigen::Index c = 0; c < k; ++c)
                    if (!known(c))
                        out(i, c) = lowest - 1.0;
            }
            Eigen::Index best = 0;
            out.row(i).maxCoeff(&best);
            if (best != chosen && std::isfinite(out(i, best)))
                out(i, chosen) = std::nextafter(out(i, best), std::numeric_limits<double>::infinity());
        }
    });
    return out;
}

Eigen::MatrixXd LiblinearTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (m_inputs == 0 && m_outputs == 0)
        throw std::logic_error("liblinear: predict() before fit()");
    if (x.cols() != m_inputs)
        throw std::invalid_argument("liblinear: predict() got " + std::to_string(x.cols()) +
                                    " inputs, the model has " + std::to_string(m_inputs));
    const double bias = m_config.bias;
    const std::size_t width = std::size_t(m_inputs) + 2;
    return scoreRows(x.rows(), [&](Eigen::Index i, std::vector<feature_node>& row) {
        if (row.size() < width)
            row.resize(width);
        Rows::fillRow(x, i, bias, row.data());
    });
}

Eigen::MatrixXd LiblinearTrainer::predictSparse(const SparseMatrix& x) const
{
    if (m_inputs == 0 && m_outputs == 0)
        throw std::logic_error("liblinear: predictSparse() before fit()");
    if (x.cols() != m_inputs)
        throw std::invalid_argument("liblinear: predictSparse() got a sparse matrix of " +
                                    std::to_string(x.cols()) + " columns, the model has " +
                                    std::to_string(m_inputs) + " inputs");
    Rows::requireValid(x, "liblinear", "predictSparse() input");
    const double bias = m_config.bias;
    // Each row's own nodes only: the buffer grows to the longest row of its block, never to d.
    return scoreRows(x.rows(), [&](Eigen::Index i, std::vector<feature_node>& row) {
        const std::size_t need = std::size_t(Rows::storedInRow(x, i)) + 2;
        if (row.size() < need)
            row.resize(need);
        Rows::fillRow(x, i, bias, row.data());
    });
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
