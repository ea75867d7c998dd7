#pragma once
/// @file Objective.h
/// A differentiable function of one parameter block, separate from the method that minimises
/// it (as in ensmallen): the L-BFGS driver, the Armijo search and the update rules take any
/// Objective. No Qt.

#include <Eigen/Core>

namespace tb::train {

/// f: ℝᵖ → ℝ with its gradient, p = dimension(). An implementation may evaluate a network on
/// a data set, a least-squares residual, a logistic loss over random features …
///
/// Interruption: an evaluation that polls a stop token and cuts its work short returns a
/// meaningless value and makes interrupted() true until the next evaluation; minimisers then
/// return at once with the last accepted point.
///
/// Not thread-safe: one caller at a time (an evaluation may itself run in parallel).
class Objective {
public:
    virtual ~Objective() = default;

    /// p, the number of parameters of the block.
    virtual Eigen::Index dimension() const = 0;

    /// f(w); writes ∇f(w) into @p grad (resized to dimension() if needed).
    virtual double evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& grad) = 0;

    /// f(w) alone. The default evaluates the gradient too, into a scratch vector.
    virtual double value(const Eigen::VectorXd& w)
    {
        m_scratch.resize(dimension());
        return evaluate(w, m_scratch);
    }

    /// True when the last evaluation was cut short by a stop request.
    virtual bool interrupted() const { return false; }

private:
    Eigen::VectorXd m_scratch;
};

} // namespace tb::train
