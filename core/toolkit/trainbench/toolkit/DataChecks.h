#pragma once
/// @file DataChecks.h
/// The training-data check the plugins share: the first NaN or Inf of a matrix, named by where it
/// is, so that the user can find it in the file. Part of the SDK's toolkit (header-only, for plugins).

#include <Eigen/Core>

#include <cmath>
#include <stdexcept>
#include <string>

namespace tb::toolkit {

/// Throws std::invalid_argument "<family>: the training <what> contain NaN at row r, column c;
/// remove or impute it first" for the first non-finite entry of @p m (column by column; rows and
/// columns counted from 0, as the data set's); returns when every entry is finite.
inline void requireFinite(const Eigen::Ref<const Eigen::MatrixXd>& m, const std::string& family, const char* what)
{
    if (m.allFinite())
        return;
    for (Eigen::Index j = 0; j < m.cols(); ++j)
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            if (!std::isfinite(m(i, j)))
                throw std::invalid_argument(family + ": the training " + what + " contain " +
                                            (std::isnan(m(i, j)) ? "NaN" : "Inf") + " at row " + std::to_string(i) +
                                            ", column " + std::to_string(j) + "; remove or impute it first");
}

} // namespace tb::toolkit
