#pragma once
/// @file CglsOperator.h
/// The two products CGLS takes from its matrix, for CglsRecurrence. No Qt here.

#include <Eigen/Core>

namespace tb::num {

/// A matrix A (n×d) as CGLS sees it: only through A·P and Aᵀ·R. CglsRecurrence runs the
/// recurrence once for every storage; an implementation supplies the products and decides how
/// they are split, in which order partial sums are joined (the bits of the result) and how
/// often Stop is polled.
///
/// Thread-safety is the implementation's; CglsRecurrence calls one product at a time.
class CglsOperator {
public:
    virtual ~CglsOperator() = default;

    /// Sets @p out (resized to n×k) to A·@p p for @p p d×k. Returns false when the stop token
    /// fired during the product (then @p out is meaningless).
    virtual bool times(const Eigen::MatrixXd& p, Eigen::MatrixXd& out) = 0;
    /// Sets @p out (resized to d×k) to Aᵀ·@p r for @p r n×k. Returns false when the stop token
    /// fired during the product (then @p out is meaningless).
    virtual bool transposeTimes(const Eigen::MatrixXd& r, Eigen::MatrixXd& out) = 0;

protected:
    CglsOperator() = default;
    CglsOperator(const CglsOperator&) = default;
    CglsOperator& operator=(const CglsOperator&) = default;
};

} // namespace tb::num
