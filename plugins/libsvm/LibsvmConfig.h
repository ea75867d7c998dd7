#pragma once
/// @file LibsvmConfig.h
/// The parameters of the LIBSVM plugin: kernels, schemas, and the checked settings of a run.

#include <trainbench/Trainbench.h>

#include <Eigen/Core>
#include <QString>
#include <vector>

struct svm_parameter; // LIBSVM's (libsvm/svm.h), kept out of this header

namespace tb::libsvm {

/// How γ is chosen for the polynomial, RBF and sigmoid kernels.
enum class GammaRule {
    InverseFeatures, ///< 1 / d, svm-train's default ("1/num_features")
    Scale,           ///< 1 / (d · Var(x)) over every entry of the training inputs (scikit-learn's "scale")
    Value            ///< the "gamma" parameter
};

/// The complete, checked parameters of one run (build with fromParams()).
///
/// Two algorithm ids, one per SVM type: "libsvm.classify" (C-SVC) and "libsvm.regress" (ε-SVR),
/// named by task as every plugin names its task-split ids (plugin 1.1.0; before: "libsvm.c_svc"
/// and "libsvm.epsilon_svr", still accepted), each with the kernel as a parameter, as svm-train takes
/// -s and -t: one experiment entry is one command line, and the task flags stay true.
struct LibsvmConfig {
    bool regression = false;
    int kernel = 2; ///< LIBSVM's kernel_type: LINEAR 0, POLY 1, RBF 2, SIGMOID 3
    QString kernelName = QStringLiteral("gaussian");
    double c = 1.0; ///< C > 0
    GammaRule gammaRule = GammaRule::InverseFeatures;
    double gamma = 1.0;       ///< GammaRule::Value only
    int degree = 3;           ///< polynomial kernel
    double coef0 = 0.0;       ///< polynomial and sigmoid kernels
    double cacheMib = 100.0;  ///< kernel cache, MiB
    double tolerance = 0.001; ///< stopping tolerance (svm-train -e)
    bool shrinking = true;
    bool probability = false;
    double svrEpsilon = 0.1; ///< ε-SVR only: the ε-insensitive zone (svm-train -p)
    /// "tolerance_ladder": tolerances in strictly decreasing order, one complete solve from
    /// scratch each (tb::wrap::ToleranceLadder); empty = one solve at @ref tolerance.
    std::vector<double> toleranceLadder;

    /// The "tolerance" parameter's default (svm-train's -e default).
    static constexpr double kDefaultTolerance = 0.001;
    /// Range of the tolerances, of "tolerance" and of a ladder's alike.
    static constexpr double kToleranceMin = 1e-16;
    static constexpr double kToleranceMax = 10.0;

    static const QString classifyId; ///< "libsvm.classify" (C-SVC)
    static const QString regressId;  ///< "libsvm.regress" (ε-SVR)

    /// The parameter schema of libsvm.classify (@p regression false) or libsvm.regress.
    static ParamSchema schema(bool regression);
    /// Reads parameters normalised by schema(regression). Throws std::invalid_argument naming
    /// the parameter for an unknown kernel, for a tolerance ladder that is not strictly
    /// decreasing, too long or out of range, and for a ladder given with a "tolerance" other than
    /// its default (the ladder replaces it).
    static LibsvmConfig fromParams(bool regression, const QVariantMap& params);
    /// The one check of the combinations the schema cannot express (fromParams() calls it): a
    /// ladder with a "tolerance" other than its default. Throws std::invalid_argument naming
    /// the parameter and value.
    void check() const;

    /// The tolerance of every solve of a run, in order: the ladder, or {tolerance}.
    std::vector<double> solveTolerances() const;

    /// γ for training inputs @p x under gammaRule: 1/d, 1/(d·Var(x)) (1/d when Var(x) = 0, as
    /// scikit-learn does), or gamma. 0 for d = 0.
    double effectiveGamma(const Eigen::Ref<const Eigen::MatrixXd>& x) const;
    /// The same for sparse training inputs @p x, from its stored entries alone: Var over all n·d
    /// entries, the zeros counted as (n·d − stored) entries equal to 0, summed in another order
    /// than the dense form (so the two agree to rounding, not bit for bit). O(non-zeros).
    double effectiveGamma(const SparseMatrix& x) const;

    /// LIBSVM's parameter struct for these settings with γ = @p gamma (no class weights).
    svm_parameter libraryParameter(double gamma) const;

    /// The svm-train options that train the same model from a file of the same data, e.g.
    /// "-s 0 -t 2 -c 1 -g 0.5 -d 3 -r 0 -e 0.001 -m 100 -h 1 -b 0" (numbers in full precision).
    QString commandLineOptions(double gamma) const;
};

} // namespace tb::libsvm
