#pragma once
/// @file Ridge.h
/// The one "ridge" of every plugin (docs/parameters.md, "Regularisation"): r of the objective
///     F(w) = (1/n)·Σᵢ ℓ(f(xᵢ), yᵢ) + r·‖w‖²,   ℓ = ½‖f(x) − y‖² for the squared loss,
/// and how each kind of solver turns it into its own constant. Part of the SDK's toolkit
/// (header-only, for plugins): a plugin that takes a ridge declares it with ridgeParam() and, if
/// its key meant something else before parameter format 2, the format change that converts it.

#include <trainbench/ParamSchema.h>
#include <trainbench/ParamSpec.h>

#include <QString>

#include <stdexcept>
#include <string>

namespace tb::toolkit {

/// The "ridge" key: r ≥ 0 of F, with @p how saying what the plugin does with it ("λ = 2r on every
/// gradient").
inline ParamSpec ridgeParam(const QString& how)
{
    return ParamSpec::real(QStringLiteral("ridge"), QStringLiteral("Ridge r"), 0.0, 0.0, 1e8,
                           QStringLiteral("r of the objective mean loss + r·‖w‖² (the same penalty in every "
                                          "algorithm, docs/parameters.md): ") +
                               how,
                           true);
}

/// For a plugin whose "ridge" was, before parameter format 2, the λ of mean loss + (λ/2)·‖w‖² (or a
/// penalty twice as strong on a loss twice as large): the value then is 2r, so it is halved.
inline ParamSchema::FormatChange ridgeWasTwice(const QString& then)
{
    return ParamSchema::FormatChange{2, QStringLiteral("ridge"), QStringLiteral("ridge"), 0.5, then};
}

/// The "gram_ridge" key: λ added to the diagonal of the Gram matrix XᵀX of a sum-of-squares
/// problem ½‖Xw − y‖² + (λ/2)‖w‖² — what "ridge" meant for these solvers before format 2, kept
/// so old files re-run bit for bit. For n rows it is the ridge r = λ/(2n).
inline ParamSpec gramRidgeParam(const QString& ignoredWhen)
{
    return ParamSpec::real(QStringLiteral("gram_ridge"), QStringLiteral("Gram-diagonal ridge λ"), 0.0, 0.0, 1e8,
                           QStringLiteral("λ added to the Gram diagonal of ½‖Xw − y‖² + (λ/2)‖w‖², the same as "
                                          "ridge = λ/(2n) for n training rows (so it depends on n). Give it or "
                                          "ridge, not both. ") +
                               ignoredWhen,
                           true);
}

/// A file's "ridge" of format 1 for a Gram-diagonal solver is its "gram_ridge" now.
inline ParamSchema::FormatChange ridgeWasGram()
{
    return ParamSchema::FormatChange{2, QStringLiteral("ridge"), QStringLiteral("gram_ridge"), 1.0,
                                     QStringLiteral("λ added to the Gram diagonal")};
}

/// Throws std::invalid_argument "<family>: parameters "ridge" and "gram_ridge": two ridges given
/// (0.1 and 2); give one: …" when both are > 0 (the same penalty, written twice).
inline void requireOneRidge(double ridge, double gramRidge, const char* family)
{
    if (ridge > 0 && gramRidge > 0)
        throw std::invalid_argument(std::string(family) + ": parameters \"ridge\" and \"gram_ridge\": two ridges given (" +
                                    QString::number(ridge).toStdString() + " and " +
                                    QString::number(gramRidge).toStdString() +
                                    "); give one: ridge = gram_ridge/(2n) for n training rows");
}

/// The Gram-diagonal λ of a least-squares solve over @p rows rows: @p gramRidge when it is given
/// (> 0), else 2·rows·@p ridge — the minimiser of (1/rows)·½‖Xw − y‖² + ridge·‖w‖².
inline double gramDiagonal(double ridge, double gramRidge, double rows)
{
    return gramRidge > 0 ? gramRidge : 2.0 * rows * ridge;
}

} // namespace tb::toolkit
