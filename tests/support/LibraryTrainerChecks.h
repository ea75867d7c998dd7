#pragma once
/// @file LibraryTrainerChecks.h
/// What the tests of the library-wrapping plugins (liblinear, libsvm) share besides their sparse
/// inputs (SparseTrainerChecks.h): a trainer made from its schema, the facts every wrapper
/// records, the library kept off stdout, Stop during the library call, the libraries' own tools
/// run as processes, and the comparison of two models' numbers. Checks return their first failure
/// as a message ("" when everything holds), for the test to QVERIFY2.

#include "LabelledSets.h"
#include "StopMeter.h"

#include <trainbench/ParamSchema.h>
#include <trainbench/SparseTrainer.h>
#include <trainbench/Trainer.h>
#include <trainbench/testing/TestRunContext.h>

#include <Eigen/Core>
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <functional>

namespace tb::testsupport {

/// A trainer @p T of configuration @p C (C::schema(regression), C::fromParams(regression, …))
/// with @p overrides normalised by the schema; a bad override ends the test program (qFatal),
/// since it is the test's own mistake.
template <class T, class C> T configuredTrainer(bool regression, const QVariantMap& overrides)
{
    QString err;
    const auto p = C::schema(regression).normalise(overrides, &err);
    if (!p)
        qFatal("bad test parameters: %s", qPrintable(err));
    return T(C::fromParams(regression, *p));
}

/// The largest |a − b| over two matrices of the same shape, relative to the largest |a| (at least
/// 1); infinity when the shapes differ.
double relativeDifference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b);

/// After a fit in @p ctx: "library_version" is @p built, "library_loaded_version" @p loaded,
/// "plugin_version" is not empty, the "library_cpu_seconds" are within [0, "library_seconds" +
/// 1 ms] (one thread's CPU time cannot exceed the wall time it ran for); and the trainer's @p cost
/// of that training set predicts "memory_bytes" and "problem_bytes_upper_bound" of at least the
/// recorded "problem_bytes", and no "flops" (the passes depend on the data).
QString checkLibraryFacts(const testing::TestRunContext& ctx, const QJsonObject& cost, int built, int loaded);

/// What this process wrote to its standard output (file descriptor 1) while @p call ran, captured
/// in a temporary file. Throws std::runtime_error when the descriptor cannot be redirected;
/// exceptions of @p call propagate, with stdout restored.
QByteArray stdoutDuring(const std::function<void()>& call);

/// What fitThenStop() saw.
struct StoppedFit {
    bool endedBeforeStop = false; ///< fit() returned before Stop (which then proves nothing)
    WorkAfterStop after;          ///< the work of fit()'s thread after Stop
};

/// Runs fit(@p data) in an arena of @p threads threads on a thread of its own, requests Stop through
/// @p ctx once the process has used @p cpuMs of CPU time (so that Stop lands inside the library
/// call however busy the machine is), right after @p beforeStop (when given), and measures the work
/// of fit()'s thread from Stop to its return (StopMeter of one thread: a library call abandoned on
/// a thread of its own goes on by design). Exceptions of fit() propagate once its thread ended.
StoppedFit fitThenStop(Trainer& t, const DatasetView& data, testing::TestRunContext& ctx, int threads,
                       double cpuMs, const std::function<void()>& beforeStop = {});

/// What compareForms() found.
struct FormsCompared {
    QString failure;        ///< the first check that failed; "" when all held
    double predictions = 0; ///< largest relative difference (relativeDifference()) of the two probe scores
    Eigen::MatrixXd dense;  ///< the dense-fitted model's scores of the probe's dense rows
    Eigen::MatrixXd sparse; ///< the sparse-fitted model's scores of the probe's sparse rows
};

/// Fits @p onDense on @p p.dense in @p denseCtx and @p onSparse on @p p.sparse in @p sparseCtx
/// (arenas of @p threads threads) — the same data in either form, by trainers of the same
/// parameters — and checks what every wrapper must show of that: as many checkpoints, the sparse
/// set's "nonzeros" recorded, the same "problem_bytes" (the same rows); the two models' probe scores
/// within 1e-12 relative; and each model's scores the same to the bit from either form of the probe
/// (one model, the same nodes). The test compares the models' own numbers besides.
FormsCompared compareForms(SparseTrainer& onDense, SparseTrainer& onSparse, const DenseSparsePair& p,
                           testing::TestRunContext& denseCtx, testing::TestRunContext& sparseCtx,
                           int threads);

/// Runs the command-line tool @p tool with @p args for at most a minute: "" when it exits 0, else
/// what went wrong (its standard error).
QString runTool(const QString& tool, const QStringList& args);

} // namespace tb::testsupport
