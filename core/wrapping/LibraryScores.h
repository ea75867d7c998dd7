#pragma once
/// @file LibraryScores.h
/// What predict() and predictSparse() of LIBLINEAR's and LIBSVM's trainers share: the checks of
/// the inputs, each row's nodes built by fit()'s rule, and class scores completed from the
/// library's labels so that their arg-max is the library's prediction.

#include "SparseRows.h"

#include <trainbench/SparseMatrix.h>

#include <Eigen/Core>
#include <string>
#include <vector>

namespace tb::wrap {

/// Throws std::logic_error "<who>: predict() before fit()" unless @p fitted, and
/// std::invalid_argument "<who>: predict() got C inputs, the model has I" when @p columns is not
/// the model's @p inputs.
void requireDenseWidth(const std::string& who, bool fitted, Eigen::Index columns, Eigen::Index inputs);

/// The same for predictSparse(): "<who>: predictSparse() before fit()", and "<who>:
/// predictSparse() got a sparse matrix of C columns, the model has I inputs".
void requireSparseWidth(const std::string& who, bool fitted, Eigen::Index columns, Eigen::Index inputs);

/// predict() of a wrapper: checks @p x (requireDenseWidth()), then returns @p score(n, fill),
/// where fill(i, buffer) writes row i's nodes with @p bias into a buffer it grows to x.cols() + 2
/// nodes — the score function's one buffer per block of rows.
template <class Node, class Score>
Eigen::MatrixXd predictRows(const std::string& who, bool fitted, Eigen::Index inputs,
                            const Eigen::Ref<const Eigen::MatrixXd>& x, double bias, const Score& score)
{
    requireDenseWidth(who, fitted, x.cols(), inputs);
    const std::size_t width = std::size_t(x.cols()) + 2;
    return score(x.rows(), [&](Eigen::Index i, std::vector<Node>& row) {
        if (row.size() < width)
            row.resize(width);
        SparseRows<Node>::fillRow(x, i, bias, row.data());
    });
}

/// predictSparse() of a wrapper: checks @p x (requireSparseWidth(), then its rows:
/// SparseRows::requireValid()), then returns @p score(n, fill) as predictRows() does, fill writing
/// each row's own nodes only — the buffer grows to the longest row of its block, never to d.
template <class Node, class Score>
Eigen::MatrixXd predictRows(const std::string& who, bool fitted, Eigen::Index inputs, const SparseMatrix& x,
                            double bias, const Score& score)
{
    requireSparseWidth(who, fitted, x.cols(), inputs);
    SparseRows<Node>::requireValid(x, who, "predictSparse() input");
    return score(x.rows(), [&](Eigen::Index i, std::vector<Node>& row) {
        const std::size_t need = std::size_t(SparseRows<Node>::storedInRow(x, i)) + 2;
        if (row.size() < need)
            row.resize(need);
        SparseRows<Node>::fillRow(x, i, bias, row.data());
    });
}

/// Completes row @p i of the class scores @p out (n × k) of a model that knows @p classes classes,
/// its class c scoring in column @p labels[c], after the library chose column @p chosen and
/// @p lowest was the lowest score written: the columns of classes the training set did not have
/// score one below @p lowest (below every class the model knows), and where the arg-max is another
/// column than @p chosen (a tie), @p chosen is raised one ulp above it — so that the arg-max of the
/// scores is always the library's prediction.
void finishClassRow(Eigen::MatrixXd& out, Eigen::Index i, const int* labels, int classes, int chosen,
                    double lowest);

} // namespace tb::wrap
