#include "SparseTrainerChecks.h"

#include "FitIn.h"

#include <trainbench/TrainerFactory.h>
#include <trainbench/testing/TestRunContext.h>

#include <QJsonObject>
#include <QPluginLoader>
#include <functional>
#include <limits>
#include <stdexcept>
#include <sys/resource.h>
#include <tuple>
#include <utility>

namespace tb::testsupport {

namespace {

// checkDeclaresSparseInput() but for the print hook.
QString declaredSparseInput(const QString& modulePath, const QStringList& ids)
{
    QPluginLoader loader(modulePath);
    QObject* root = loader.instance();
    if (!root)
        return loader.errorString();
    auto* factory = qobject_cast<TrainerFactory*>(root);
    auto* sparse = qobject_cast<SparseInputFactory*>(root);
    if (!factory || !sparse)
        return modulePath + " is not both a TrainerFactory and a SparseInputFactory";
    if (sparse->sparseInputAlgorithms() != ids)
        return "sparse-input algorithms " + sparse->sparseInputAlgorithms().join(", ") + ", not " +
               ids.join(", ");
    for (const auto& a : factory->algorithms()) {
        if (!ids.contains(a.id))
            return a.id + " is not declared a sparse-input algorithm";
        QString err;
        const auto params = a.schema.normalise({}, &err);
        if (!params)
            return a.id + ": " + err;
        const auto trainer = factory->create(a.id, *params);
        if (!dynamic_cast<const SparseTrainer*>(trainer.get()))
            return a.id + " does not create a SparseTrainer";
    }
    return {};
}

} // namespace

WideSparseProblem wideSparseProblem()
{
    using P = WideSparseProblem;
    return P{plantedSparse(P::rows, int(P::columns), int(P::perRow), 5, 101),
             plantedSparse(1000, int(P::columns), int(P::perRow), 5, 102)};
}

QString checkTrainsWideSparse(SparseTrainer& t, const WideSparseProblem& p, double problemBytes,
                              const QString& label, int threads)
{
    const Eigen::Index n = p.train.x.rows(), d = p.train.x.cols(), nonZeros = n * WideSparseProblem::perRow;
    if (p.train.x.nonZeros() != nonZeros)
        return QString("the training rows hold %1 non-zeros, not %2").arg(p.train.x.nonZeros()).arg(nonZeros);
    const QJsonObject cost = t.predictCost(ProblemShape{n, d, 2, Task::Classification, nonZeros});
    // O(nnz + d), nowhere near the dense shape's n·d (the same shape dense: > 16 GB).
    const double memory = cost.value("memory_bytes").toDouble();
    if (!(memory < 100e6))
        return QString("predicted memory %1 bytes for the sparse shape, not under 100 MB").arg(memory);
    const double dense = t.predictCost(ProblemShape{n, d, 2, Task::Classification}).value("memory_bytes").toDouble();
    if (!(dense > 16e9))
        return QString("predicted memory %1 bytes for the shape dense, not over 16 GB").arg(dense);
    testing::TestRunContext ctx;
    fitIn(t, p.train.view(), ctx, threads);
    if (ctx.checkpoints.size() != 1u)
        return QString("%1 checkpoints, not 1").arg(ctx.checkpoints.size());
    if (ctx.records.value("nonzeros").toDouble() != double(nonZeros))
        return QString("recorded nonzeros %1, not %2").arg(ctx.records.value("nonzeros").toDouble()).arg(nonZeros);
    if (ctx.records.value("problem_bytes").toDouble() != problemBytes)
        return QString("recorded problem_bytes %1, not %2")
            .arg(ctx.records.value("problem_bytes").toDouble())
            .arg(problemBytes);
    const double trainAccuracy = accuracy(t.predictSparse(p.train.x), p.train.y);
    const double testAccuracy = accuracy(t.predictSparse(p.test.x), p.test.y);
    // The whole process, every test before this one included, never held a fraction of the
    // dense copy's 16 GB.
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    qInfo("2000 × 1,000,000, %s: training accuracy %.4f, held-out accuracy %.4f (chance 0.5); "
          "predicted memory %.1f MB; peak resident set of the test process %.1f MB",
          qPrintable(label), trainAccuracy, testAccuracy, memory / 1e6, double(usage.ru_maxrss) / 1024);
    // 2000 rows in 1M dimensions are separable; the held-out rows share only the 500 common
    // columns' weights with them, which 20,000 common entries (40 a column) teach well above
    // chance.
    if (!(trainAccuracy >= 0.99))
        return QString("training accuracy %1, not at least 0.99").arg(trainAccuracy);
    if (!(testAccuracy >= 0.75))
        return QString("held-out accuracy %1, not at least 0.75").arg(testAccuracy);
    if (!(double(usage.ru_maxrss) * 1024 < 2e9))
        return QString("peak resident set %1 kB, not under 2 GB").arg(usage.ru_maxrss);
    return {};
}

QString checkRefusesBadSparseInput(SparseTrainer& t, const SparseLabelledSet& ok, int threads)
{
    const Eigen::Index n = ok.x.rows(), d = ok.x.cols();
    if (n <= 40 || ok.x.outerIndexPtr()[10] - ok.x.outerIndexPtr()[9] < 2)
        return "the valid set needs more than 40 rows and 2 non-zeros in row 9";

    // A non-finite entry, named by its row and column: NaN in the first stored row from row 4 on,
    // +inf in the next stored row after it.
    auto storedFrom = [&](Eigen::Index from) {
        Eigen::Index i = from;
        while (i < n && ok.x.outerIndexPtr()[i + 1] == ok.x.outerIndexPtr()[i])
            ++i;
        return i;
    };
    const Eigen::Index nanRow = storedFrom(4), infRow = storedFrom(nanRow + 1);
    if (infRow >= n)
        return "the valid set needs two stored rows from row 4 on";
    for (const auto& [row, value, shown] :
         {std::tuple{nanRow, std::numeric_limits<double>::quiet_NaN(), "nan"},
          std::tuple{infRow, std::numeric_limits<double>::infinity(), "inf"}}) {
        SparseLabelledSet bad = ok;
        const int at = bad.x.outerIndexPtr()[row];
        bad.x.valuePtr()[at] = value;
        const QString err = fitError(t, bad.view(), threads);
        const QString expected = QString("training input [row %1, column %2] is %3")
                                     .arg(row)
                                     .arg(bad.x.innerIndexPtr()[at])
                                     .arg(QLatin1String(shown));
        if (!err.contains(expected))
            return QString("a %1 entry: \"%2\", not \"%3\"").arg(QLatin1String(shown), err, expected);
    }

    // Columns out of order: a library that merges rows by index would miscount silently.
    SparseLabelledSet unsorted = ok;
    int* inner = unsorted.x.innerIndexPtr() + unsorted.x.outerIndexPtr()[9];
    std::swap(inner[0], inner[1]);
    QString err = fitError(t, unsorted.view(), threads);
    if (!err.contains("row 9 has column") || !err.contains("strictly increasing"))
        return "unsorted columns: " + err;

    SparseLabelledSet fewer = ok;
    fewer.x = ok.x.topRows(40);
    err = fitError(t, fewer.view(), threads);
    if (!err.contains(QString("the sparse inputs have 40 rows, the targets %1").arg(n)))
        return "fewer rows: " + err;

    testing::TestRunContext ctx;
    fitIn(t, ok.view(), ctx, threads);
    for (const Eigen::Index width : {d - 1, d + 1, Eigen::Index(1000000)}) {
        try {
            t.predictSparse(SparseMatrix(3, width));
            return QString("predictSparse() accepted %1 columns for a %2-input model").arg(width).arg(d);
        } catch (const std::invalid_argument& e) {
            if (!QString(e.what()).contains(
                    QString("predictSparse() got a sparse matrix of %1 columns, the model has %2 inputs")
                        .arg(width)
                        .arg(d)))
                return e.what();
        }
    }
    try {
        t.predictSparse(unsorted.x);
        return "predictSparse() accepted a row with unsorted columns";
    } catch (const std::invalid_argument& e) {
        if (!QString(e.what()).contains("predictSparse() input row 9 has column"))
            return e.what();
    }
    if (t.predictSparse(SparseMatrix(0, d)).rows() != 0) // no rows: no scores, no error
        return "predictSparse() gave scores for no rows";
    return {};
}

QString checkDeclaresSparseInput(const QString& modulePath, const QStringList& ids,
                                 const std::function<void()>& restoreHook)
{
    const QString failure = declaredSparseInput(modulePath, ids);
    if (restoreHook)
        restoreHook();
    return failure;
}

} // namespace tb::testsupport
