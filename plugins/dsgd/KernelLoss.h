#pragma once
/// @file KernelLoss.h
/// The losses of the kernel machines: l(f(x), y) and its derivative in f, for a batch of rows.

#include <trainbench/DatasetView.h>

#include <Eigen/Core>
#include <QString>

namespace tb::dsgd {

/// The convex losses of Dai et al. (2014), §3–4:
/// - Squared:     l = ½‖f − y‖² (kernel ridge regression; with one-hot targets, kernel ridge
///                classification), one model output per target column;
/// - Hinge:       l = max(0, 1 − t·f), t = ±1 (SVM), one model output, two classes only;
/// - Logistic:    l = log(1 + exp(−t·f)), t = ±1, one model output, two classes only;
/// - Multinomial: l = log Σ_c exp(f_c) − f_y (multi-class logistic), one output per class.
enum class LossKind { Squared, Hinge, Logistic, Multinomial };

/// A loss bound to a data set's task and width. Plain data; const methods are thread-safe.
class KernelLoss {
public:
    /// Checks that @p kind fits the data: hinge and logistic need a classification set with two
    /// classes, multinomial a classification set. Throws std::invalid_argument naming the
    /// parameter "loss", the task and the number of classes otherwise. @p outputs is the
    /// number of target columns (classes for classification).
    KernelLoss(LossKind kind, Task task, Eigen::Index outputs, const QStringList& classNames = {});

    /// "squared", "hinge", "logistic", "cross_entropy" (the parameter's choices).
    static const char* name(LossKind kind);

    LossKind kind() const { return m_kind; }
    /// Outputs of the kernel machine f: 1 for hinge and logistic, else the target columns.
    Eigen::Index modelOutputs() const { return m_modelOutputs; }
    /// Target columns the host expects from predict() (the data's y columns).
    Eigen::Index hostOutputs() const { return m_hostOutputs; }

    /// The targets t the loss compares f with, one row per row of @p y (n × modelOutputs()):
    /// y itself (squared, multinomial), or +1 for the second class and −1 for the first
    /// (hinge, logistic; y is one-hot).
    Eigen::MatrixXd targets(const Eigen::Ref<const Eigen::MatrixXd>& y) const;

    /// Σ_rows l(f_i, t_i) for @p f and @p t (rows × modelOutputs()); writes ∂l/∂f_i to @p dl
    /// (same shape; a subgradient for the hinge: −t where t·f < 1, else 0). The sum is NaN or
    /// infinite when f is.
    double evaluate(const Eigen::Ref<const Eigen::MatrixXd>& f, const Eigen::Ref<const Eigen::MatrixXd>& t,
                    Eigen::MatrixXd& dl) const;

    /// What predict() returns for model outputs @p f (rows × modelOutputs()), rows × hostOutputs():
    /// squared: f; hinge: [−f, f] (the host's arg-max picks the second class where f > 0);
    /// logistic: [1 − σ(f), σ(f)]; multinomial: softmax(f) by rows.
    Eigen::MatrixXd scores(const Eigen::Ref<const Eigen::MatrixXd>& f) const;

private:
    LossKind m_kind;
    Eigen::Index m_modelOutputs = 1;
    Eigen::Index m_hostOutputs = 1;
};

} // namespace tb::dsgd
