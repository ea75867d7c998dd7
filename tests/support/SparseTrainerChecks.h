#pragma once
/// @file SparseTrainerChecks.h
/// What every SparseTrainer of a library-wrapping plugin (liblinear, libsvm) must show, checked
/// the same way for each: the plugin module declares its sparse-input algorithms, bad sparse
/// input is refused with a clear message, and a problem far too wide to densify trains in
/// memory of the non-zeros' size. Each check returns its first failure as a message ("" when
/// everything holds), for the test to QVERIFY2; the plugin's own figures stay in its test.

#include "LabelledSets.h"

#include <trainbench/SparseTrainer.h>

#include <Eigen/Core>
#include <QString>
#include <QStringList>
#include <functional>

namespace tb::testsupport {

/// 2000 training and 1000 test rows × 1,000,000 columns, 20 non-zeros a row (plantedSparse:
/// 10 of the 500 common columns and 10 rare ones, weights drawn from seed 5, rows from 101 and
/// 102): 40,000 non-zeros, 0.7 MB as a plugin's rows, 16 GB as a dense copy.
struct WideSparseProblem {
    static constexpr Eigen::Index rows = 2000, columns = 1000000, perRow = 20;
    SparseLabelledSet train, test;
};

/// The problem above (a few MB, well under a second).
WideSparseProblem wideSparseProblem();

/// On @p p: @p t predicts under 100 MB for the sparse shape and over 16 GB for the same shape
/// dense; a fit in an arena of @p threads threads makes one checkpoint and records "nonzeros"
/// (40,000) and "problem_bytes" = @p problemBytes; predictSparse() gives a training accuracy of
/// at least 0.99 (2000 rows in 1M dimensions are separable) and a held-out one of at least 0.75
/// (the held-out rows share only the common columns' weights with them); the whole test process
/// never held 2 GB (peak resident set). Prints the figures after @p label.
QString checkTrainsWideSparse(SparseTrainer& t, const WideSparseProblem& p, double problemBytes,
                              const QString& label, int threads);

/// With @p ok a valid set (≥ 41 rows, row 9 of ≥ 2 non-zeros, two rows with non-zeros from row 4
/// on): fit() refuses @p ok with a NaN and with an infinite entry ("training input [row r, column
/// c] is nan", "… is inf": the first entry of the first such row and of the next), with row 9's
/// first two columns swapped ("row 9 has column … strictly increasing") and with its inputs cut
/// to 40 rows ("the sparse inputs have 40 rows, the targets N"); then, fitted on @p ok,
/// predictSparse() refuses d − 1, d + 1 and 1,000,000 columns and the unsorted rows, and gives no
/// rows for no rows. Fits in arenas of @p threads threads.
QString checkRefusesBadSparseInput(SparseTrainer& t, const SparseLabelledSet& ok, int threads);

/// The plugin module at @p modulePath loads, is a TrainerFactory and a SparseInputFactory whose
/// sparseInputAlgorithms() are exactly @p ids, and every algorithm it offers is among them and
/// creates, with its default parameters, a SparseTrainer. Creating the module's trainers routes the
/// library's output (one print hook per process) to the module's own copy of wrap::DetachedCall,
/// which knows nothing of the test binary's calls: @p restoreHook (when given) runs afterwards to
/// route it back — else a later Stop test's abandoned call would never unwind at a progress message.
QString checkDeclaresSparseInput(const QString& modulePath, const QStringList& ids,
                                 const std::function<void()>& restoreHook = {});

} // namespace tb::testsupport
