#pragma once
/// @file LiblinearConfig.h
/// The parameters of the LIBLINEAR plugin: solvers, schemas, and the checked settings of a run.

#include <trainbench/Trainbench.h>

#include <QString>
#include <QStringList>
#include <vector>

struct parameter; // LIBLINEAR's (linear.h), kept out of this header

namespace tb::liblinear {

/// One LIBLINEAR solver as the plugin offers it.
struct Solver {
    const char* name;        ///< the "solver" choice, e.g. "l2r_lr_primal"
    int type;                ///< LIBLINEAR's solver_type, liblinear-train's -s
    double defaultTolerance; ///< liblinear-train's -e default for this solver
    bool regression;         ///< a regression (SVR) solver, else a classifier
    bool randomised;         ///< visits coordinates in rand() order (the dual and L1 solvers)
    /// train() copies the problem column by column with raw new[] (the L1 solvers): unwinding
    /// an abandoned call would lose that copy, so it is left to finish instead.
    bool columnCopy;
    const char* what; ///< what it minimises, for the help text
};

/// The complete, checked parameters of one run (build with fromParams()).
///
/// Why two algorithm ids with a solver choice rather than one id per solver: LIBLINEAR is one
/// trainer with a solver switch (liblinear-train -s, Weka's LibLINEAR "SVMType"), so an
/// experiment entry maps one to one onto a command line and a parameter sweep over solvers is a
/// sweep over one parameter; C, tolerance and bias_value mean the same for every solver. The split by
/// task keeps each id's regression/classification flags true, so that the workbench offers
/// only what the solver can do: "liblinear.classify" has the classification solvers,
/// "liblinear.regress" the three SVR solvers and their ε.
struct LiblinearConfig {
    bool regression = false;
    const Solver* solver = nullptr;
    double c = 1.0;          ///< C > 0
    double tolerance = 0.1;  ///< the stopping tolerance in effect (the solver's default for 0)
    double givenTolerance = 0; ///< "tolerance" as given (0 = the solver's default)
    double bias = 1.0;       ///< the bias feature's value ("bias_value"); < 0 = no bias feature
    double svrEpsilon = 0.1; ///< SVR only: the ε-insensitive zone (liblinear-train -p)
    /// "tolerance_ladder": tolerances in strictly decreasing order, one complete solve from
    /// scratch each (tb::wrap::ToleranceLadder); empty = one solve at @ref tolerance.
    std::vector<double> toleranceLadder;

    /// Range of a ladder's tolerances: positive (0 would mean the solver's default, a ladder says
    /// every rung), at most the "tolerance" parameter's maximum.
    static constexpr double kLadderMin = 1e-16;
    static constexpr double kLadderMax = 100.0;

    static const QString classifyId; ///< "liblinear.classify"
    static const QString regressId;  ///< "liblinear.regress"

    /// Every solver, classification ones first, in liblinear-train's -s order.
    static const std::vector<Solver>& solvers();
    /// The solver called @p name, or nullptr.
    static const Solver* solverNamed(const QString& name);

    /// The parameter schema of liblinear.classify (@p regression false) or liblinear.regress.
    static ParamSchema schema(bool regression);

    /// Reads parameters normalised by schema(regression). Throws std::invalid_argument naming
    /// the parameter for a solver of the other task (the schema's choices exclude it; this
    /// guards direct use), for a tolerance ladder that is not strictly decreasing, too long or
    /// out of range, and for a ladder given with a "tolerance" other than 0 (which it replaces).
    static LiblinearConfig fromParams(bool regression, const QVariantMap& params);
    /// The one check of the combinations the schema cannot express (fromParams() calls it):
    /// a solver of the other task, a ladder with a "tolerance" other than 0. Throws
    /// std::invalid_argument naming the parameter and value.
    void check() const;

    /// The tolerance of every solve of a run, in order: the ladder, or {tolerance}.
    std::vector<double> solveTolerances() const;

    /// LIBLINEAR's parameter struct for these settings at @ref tolerance (no class weights, no
    /// initial solution).
    parameter libraryParameter() const;

    /// The liblinear-train options that train the same model from a file of the same data,
    /// e.g. "-s 0 -c 1 -e 0.01 -B 1" (numbers in full precision).
    QString commandLineOptions() const;
};

} // namespace tb::liblinear
