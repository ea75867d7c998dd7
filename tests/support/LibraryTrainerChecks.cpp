#include "LibraryTrainerChecks.h"

#include "CpuTime.h"
#include "FitIn.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <atomic>
#include <cstdio>
#include <exception>
#include <fcntl.h>
#include <limits>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace tb::testsupport {

double relativeDifference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numeric_limits<double>::infinity();
    return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, a.cwiseAbs().maxCoeff());
}

QString checkLibraryFacts(const testing::TestRunContext& ctx, const QJsonObject& cost, int built, int loaded)
{
    const QJsonObject& r = ctx.records;
    if (r.value("library_version").toInt() != built)
        return QString("library_version %1, not %2").arg(r.value("library_version").toInt()).arg(built);
    if (r.value("library_loaded_version").toInt() != loaded)
        return QString("library_loaded_version %1, not %2")
            .arg(r.value("library_loaded_version").toInt())
            .arg(loaded);
    if (r.value("plugin_version").toString().isEmpty())
        return "no plugin_version";
    const double cpu = r.value("library_cpu_seconds").toDouble(),
                 wall = r.value("library_seconds").toDouble();
    if (!(cpu >= 0 && cpu <= wall + 1e-3))
        return QString("library_cpu_seconds %1 outside [0, library_seconds %2 + 1 ms]").arg(cpu).arg(wall);
    const double problem = r.value("problem_bytes").toDouble();
    for (const char* key : {"memory_bytes", "problem_bytes_upper_bound"})
        if (!(cost.value(key).toDouble() >= problem))
            return QString("predicted %1 %2 < the recorded problem_bytes %3")
                .arg(key)
                .arg(cost.value(key).toDouble())
                .arg(problem);
    if (cost.contains("flops"))
        return "the cost predicts flops";
    return {};
}

QByteArray stdoutDuring(const std::function<void()>& call)
{
    QTemporaryDir dir;
    const QByteArray path = dir.filePath("stdout").toLocal8Bit();
    std::fflush(stdout);
    const int saved = dup(1);
    const int fd = open(path.constData(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    if (saved < 0 || fd < 0 || dup2(fd, 1) < 0) {
        if (saved >= 0)
            close(saved);
        if (fd >= 0)
            close(fd);
        throw std::runtime_error("stdoutDuring(): cannot redirect stdout to " + path.toStdString());
    }
    auto restore = [&] {
        std::fflush(stdout);
        dup2(saved, 1);
        close(fd);
        close(saved);
    };
    try {
        call();
    } catch (...) {
        restore();
        throw;
    }
    restore();
    QFile out(QString::fromLocal8Bit(path));
    if (!out.open(QIODevice::ReadOnly))
        throw std::runtime_error("stdoutDuring(): cannot read " + path.toStdString());
    return out.readAll();
}

StoppedFit fitThenStop(Trainer& t, const DatasetView& data, testing::TestRunContext& ctx, int threads,
                       double cpuMs, const std::function<void()>& beforeStop)
{
    ThreadMark returned;
    std::atomic<bool> done{false};
    std::atomic<int> tid{0};
    std::exception_ptr failure;
    const double cpu0 = processCpuMs();
    std::thread run([&] {
        tid = currentThreadId();
        try {
            fitIn(t, data, ctx, threads);
        } catch (...) {
            failure = std::current_exception();
        }
        returned = ThreadMark::now();
        done = true;
    });
    waitForCpu(cpu0, cpuMs, [&] { return done.load(); });
    StoppedFit out;
    out.endedBeforeStop = done;
    if (!out.endedBeforeStop) {
        if (beforeStop)
            beforeStop();
        const StopMeter meter(tid);
        ctx.requestStop();
        run.join();
        out.after = meter.finish(returned);
    } else {
        run.join();
    }
    if (failure)
        std::rethrow_exception(failure);
    return out;
}

FormsCompared compareForms(SparseTrainer& onDense, SparseTrainer& onSparse, const DenseSparsePair& p,
                           testing::TestRunContext& denseCtx, testing::TestRunContext& sparseCtx, int threads)
{
    FormsCompared c;
    fitIn(onDense, p.dense.view(), denseCtx, threads);
    fitIn(onSparse, p.sparse.view(), sparseCtx, threads);
    if (sparseCtx.checkpoints.size() != denseCtx.checkpoints.size())
        c.failure = QString("%1 checkpoints sparse, %2 dense")
                        .arg(sparseCtx.checkpoints.size())
                        .arg(denseCtx.checkpoints.size());
    else if (sparseCtx.records.value("nonzeros").toDouble() != double(p.sparse.x.nonZeros()))
        c.failure = QString("nonzeros %1 recorded, the sparse set has %2")
                        .arg(sparseCtx.records.value("nonzeros").toDouble())
                        .arg(p.sparse.x.nonZeros());
    else if (sparseCtx.records.value("problem_bytes") != denseCtx.records.value("problem_bytes"))
        c.failure = QString("problem_bytes %1 sparse, %2 dense")
                        .arg(sparseCtx.records.value("problem_bytes").toDouble())
                        .arg(denseCtx.records.value("problem_bytes").toDouble());
    if (!c.failure.isEmpty())
        return c;
    c.dense = predictIn(onDense, p.probe.x, threads);
    c.sparse = onSparse.predictSparse(p.probeSparse.x);
    c.predictions = relativeDifference(c.dense, c.sparse);
    if (!(c.predictions <= 1e-12))
        c.failure = QString("the probe's scores differ by %1 (relative)").arg(c.predictions);
    else if (predictIn(onSparse, p.probe.x, threads) != c.sparse)
        c.failure = "the sparse-fitted model scores the probe's dense rows otherwise than its sparse ones";
    else if (onDense.predictSparse(p.probeSparse.x) != c.dense)
        c.failure = "the dense-fitted model scores the probe's sparse rows otherwise than its dense ones";
    return c;
}

QString runTool(const QString& tool, const QStringList& args)
{
    QProcess p;
    p.start(tool, args);
    if (!p.waitForFinished(60000))
        return tool + " did not finish within a minute: " + p.errorString();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QString::fromLocal8Bit(p.readAllStandardError());
    return {};
}

} // namespace tb::testsupport
