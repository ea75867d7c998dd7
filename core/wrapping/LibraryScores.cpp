#include "LibraryScores.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace tb::wrap {

void requireDenseWidth(const std::string& who, bool fitted, Eigen::Index columns, Eigen::Index inputs)
{
    if (!fitted)
        throw std::logic_error(who + ": predict() before fit()");
    if (columns != inputs)
        throw std::invalid_argument(who + ": predict() got " + std::to_string(columns) +
                                    " inputs, the model has " + std::to_string(inputs));
}

void requireSparseWidth(const std::string& who, bool fitted, Eigen::Index columns, Eigen::Index inputs)
{
    if (!fitted)
        throw std::logic_error(who + ": predictSparse() before fit()");
    if (columns != inputs)
        throw std::invalid_argument(who + ": predictSparse() got a sparse matrix of " +
                                    std::to_string(columns) + " columns, the model has " +
                                    std::to_string(inputs) + " inputs");
}

void finishClassRow(Eigen::MatrixXd& out, Eigen::Index i, const int* labels, int classes, int chosen,
                    double lowest)
{
    const Eigen::Index k = out.cols();
    if (classes < k) {
        Eigen::VectorXi known = Eigen::VectorXi::Zero(k);
        for (int c = 0; c < classes; ++c)
            known(labels[c]) = 1;
        for (Eigen::Index c = 0; c < k; ++c)
            if (!known(c))
                out(i, c) = lowest - 1.0;
    }
    Eigen::Index best = 0;
    out.row(i).maxCoeff(&best);
    if (best != chosen && std::isfinite(out(i, best)))
        out(i, chosen) = std::nextafter(out(i, best), std::numeric_limits<double>::infinity());
}

} // namespace tb::wrap
