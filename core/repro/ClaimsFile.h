#pragma once
/// @file ClaimsFile.h
/// A paper's claims file (resources/claims/<paper>.json): its readings and its claims, parsed and
/// checked so that every problem names the file, the key path and the value at fault.

#include "Claim.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace tb::repro {

/// A parsed claims file. Format: docs/reproductions/README.md. Keys: "paper" (the report's file
/// name: letters, digits and '-'), "title", "citation" (optional), "readings" [{id, text}],
/// "claims" [{id, quote, where, figure {value, unit}, experiment (a path relative to this file,
/// or an object), overrides, statistic {kind, algorithm, against, metric, seconds, target,
/// tie_band, x, from, sigma, dataset}, n, n_reason, verdict {rule, fraction}, readings [ids],
/// data, note, quick (false, true, or {n, overrides, note})}].
class ClaimsFile {
public:
    QString path;  ///< absolute path of the file
    QString paper; ///< e.g. "bpls"
    QString title;
    QString citation;
    QList<Reading> readings;
    QList<Claim> claims;

    /// Reads and checks @p path. On failure returns nullopt and appends every problem found to
    /// @p problems, each "FILE: key.path: message, got VALUE" (JSON syntax errors
    /// "FILE:LINE:COL: message"). Checks: required keys present and typed; no unknown keys;
    /// unique claim and reading ids; every reading a claim names exists; a known statistic with
    /// the keys it needs and a known metric; a known verdict rule that fits the statistic; n ≥ 5
    /// or an "n_reason"; an experiment file that exists; override keys known
    /// (ClaimExperiment::overrideKeys()). Does not load the experiment's data. Reentrant.
    static std::optional<ClaimsFile> fromFile(const QString& path, QStringList* problems);
    /// As fromFile() for text already read; @p path names it in messages and relative experiment
    /// paths resolve against its folder.
    static std::optional<ClaimsFile> fromJson(const QByteArray& json, const QString& path,
                                              QStringList* problems);

    /// The reading @p id, or nullptr.
    const Reading* reading(const QString& id) const;

    /// The statistics a claim may name ("final", "at_time", …: ClaimStatistic::kind).
    static QStringList statisticKinds();
    /// The verdict rules (VerdictRule::rule).
    static QStringList verdictRules();
    /// Whether @p rule decides a count of wins ("wins_at_least", "wins_at_most"), not an interval.
    static bool isCountRule(const QString& rule);
};

} // namespace tb::repro
