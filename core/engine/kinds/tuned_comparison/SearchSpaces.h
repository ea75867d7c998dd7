#pragma once
/// @file SearchSpaces.h
/// A tuned comparison's search spaces: read from an algorithm entry's "search" (or the plugin's
/// defaults, ParamSpec::search), checked against the parameter's schema, and drawn from.

#include "TuningSection.h"

#include <trainbench/ParamSchema.h>

#include <QJsonValue>
#include <QStringList>
#include <QVariantMap>
#include <vector>

namespace tb {

/// Pure functions; thread-safe.
class SearchSpaces {
public:
    /// Reads an algorithm entry's "search" object @p v — {"lr": {"log_uniform": [1e-4, 0.1]},
    /// "batch_size": {"choice": [32, 128]}} — into @p axes (keys in alphabetical order). False with
    /// @p key (e.g. "algorithms[0].search.lr") and @p message on the first problem of its form: not
    /// an object, an unknown kind, bounds that are not two finite numbers low ≤ high, a log bound
    /// ≤ 0, integer bounds that are not integers, an empty choice. @p path is the entry's path.
    static bool parse(const QJsonValue& v, const QString& path, QList<SearchAxis>* axes, QString* key, QString* message);

    /// The axes an algorithm is searched on: @p override when the entry has a "search", else
    /// every parameter of @p schema with a default space (ParamSpec::search) that @p fixed (the
    /// entry's params, upgraded) does not set. Alphabetical.
    static QList<SearchAxis> resolve(const ParamSchema& schema, const QList<SearchAxis>& override, bool overridden,
                                     const QVariantMap& fixed);

    /// Problems of @p axes against @p schema, each "PATH.search.KEY: message": a key the algorithm
    /// does not have, a key also fixed in @p fixed, a bound or choice the schema refuses (its
    /// normalise() message names the range). @p path names the entry ("algorithms[0]").
    static QStringList check(const ParamSchema& schema, const QList<SearchAxis>& axes, const QVariantMap& fixed,
                             const QString& path);

    /// The value of @p space at @p u in [0, 1): uniform and log-uniform in [low, high], integers
    /// uniform (or log-uniform) in low … high inclusive, the ⌊u·k⌋-th of k choices.
    static QVariant value(const SearchSpace& space, double u);

    /// Trial @p trial's point in [0, 1)^@p dims: independent uniforms (Random: SplitMix64 of
    /// (seed, trial, dimension), the same on every platform) or the trial-th point of the Sobol
    /// sequence (Joe–Kuo direction numbers) with a random digital shift by @p seed. Both depend on
    /// the trial and dimension only, so algorithms with the same space get the same draws.
    static std::vector<double> unitPoint(TrialSearch search, std::uint64_t seed, int trial, int dims);
    /// The Sobol sequence's dimensions this build has direction numbers for; the dimensions of a
    /// larger space beyond them are drawn at random.
    static constexpr int maxSobolDims = 16;

    /// "log_uniform [0.0001, 0.1]", "choice [32, 128]": a space for people.
    static QString text(const SearchSpace& space);

    /// Trial @p trial's drawn values of @p axes.
    static QVariantMap draw(const QList<SearchAxis>& axes, TrialSearch search, std::uint64_t seed, int trial);
};

} // namespace tb
