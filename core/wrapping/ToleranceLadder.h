#pragma once
/// @file ToleranceLadder.h
/// The "tolerance_ladder" parameter LIBLINEAR's and LIBSVM's plugins share: an anytime curve for a
/// library that solves once, to a stopping tolerance.

#include <trainbench/ParamSchema.h>
#include <trainbench/RunContext.h>

#include <QJsonArray>
#include <QJsonObject>

#include <QLocale>
#include <QStringList>
#include <stdexcept>
#include <vector>

namespace tb::wrap {

/// A list of stopping tolerances, loosest first: the trainer solves the whole problem once per
/// tolerance, each time from scratch with the library's own tolerance (LIBLINEAR's and LIBSVM's
/// eps), and checkpoints after each solve with Checkpoint::restartClock set, so each point of the
/// run's curve is a complete single-shot model timed alone. Empty: one solve at the algorithm's
/// "tolerance", as without the ladder.
///
/// Why from scratch rather than warm-started: a warm-started solve's time depends on the rungs
/// before it, so a point's time would not be what that tolerance costs by itself — the figure a
/// time-to-target comparison needs.
///
/// Pure functions; thread-safe.
class ToleranceLadder {
public:
    /// The parameter's key.
    static QString key() { return QStringLiteral("tolerance_ladder"); }

    /// Most rungs: the run costs the sum of its solves, and tolerances half a decade apart from
    /// 1 down to 1e-9 need 19; more rungs would add time rather than resolution.
    static constexpr int maxRungs = 20;

    /// The schema entry: 0 to maxRungs tolerances, each in [@p lo, @p hi] (@p lo > 0: a
    /// tolerance of 0 or less never stops); @p tool names the library's option, e.g.
    /// "liblinear-train -e".
    static ParamSpec spec(const QString& tool, double lo, double hi)
    {
        return ParamSpec::realList(
            key(), QStringLiteral("Tolerance ladder"), {}, 0, maxRungs, lo, hi,
            QStringLiteral("An anytime curve: one complete solve from scratch per tolerance (%1), in "
                           "strictly decreasing order, each a checkpoint timed alone; replaces \"tolerance\". "
                           "Empty = one solve at \"tolerance\".")
                .arg(tool));
    }

    /// The ladder of @p params (normalised by a schema holding spec(); a missing key is an empty
    /// ladder). Throws std::invalid_argument naming the parameter when it has more than maxRungs
    /// values, a value outside [@p lo, @p hi] or not finite, or is not strictly decreasing (a
    /// repeated tolerance would be the same solve twice).
    static std::vector<double> fromParams(const QVariantMap& params, double lo, double hi)
    {
        const QVariantList given = params.value(key()).toList();
        const auto shown = [&] {
            QStringList parts;
            for (const QVariant& v : given)
                parts << QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest);
            return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
        };
        auto fail = [&](const QString& why) {
            return std::invalid_argument(
                QStringLiteral("parameter \"%1\": %2 %3").arg(key(), shown(), why).toStdString());
        };
        if (given.size() > maxRungs)
            throw fail(QStringLiteral("has %1 tolerances, at most %2").arg(given.size()).arg(maxRungs));
        std::vector<double> ladder;
        for (const QVariant& v : given) {
            bool ok = false;
            const double t = v.toDouble(&ok);
            if (!ok || !(t >= lo && t <= hi))
                throw fail(QStringLiteral("holds %1, outside [%2, %3]").arg(v.toString()).arg(lo).arg(hi));
            if (!ladder.empty() && !(t < ladder.back()))
                throw fail(QStringLiteral("is not strictly decreasing (loosest tolerance first): %1 follows %2")
                               .arg(t)
                               .arg(ladder.back()));
            ladder.push_back(t);
        }
        return ladder;
    }

    /// Runs the ladder: for each of @p tolerances (loosest first; one entry for a run without a
    /// ladder), @p solve(tolerance, rung) — a complete solve from scratch that fills @p rung with
    /// its report and returns false when it ended the run (Stop, failure) — then a checkpoint that
    /// restarts the host's clock when @p ladder is set, so that each point is that solve alone.
    /// The rungs' reports are recorded as the fact "ladder". A Stop between rungs keeps the
    /// previous rung's model.
    template <class Solve>
    static void run(RunContext& ctx, const std::vector<double>& tolerances, bool ladder, Solve&& solve)
    {
        QJsonArray rungs;
        for (std::size_t r = 0; r < tolerances.size(); ++r) {
            if (r > 0 && ctx.stopRequested())
                return;
            QJsonObject rung;
            if (!solve(tolerances[r], rung))
                return;
            if (ladder) {
                rungs.append(rung);
                ctx.record(QStringLiteral("ladder"), rungs);
            }
            Checkpoint done;
            done.epoch = double(r + 1);
            done.restartClock = ladder;
            if (ctx.checkpoint(done) == CheckpointAction::Stop)
                return;
        }
    }

    /// run() for a wrapper's configuration: one solve per tolerance of @p config
    /// (Config::solveTolerances(); a ladder when Config::toleranceLadder is not empty), each
    /// @p solve(c, rung) on a copy c of @p config whose Config::tolerance is that rung's — what a
    /// run with that tolerance alone would do.
    template <class Config, class Solve>
    static void runEach(RunContext& ctx, const Config& config, Solve&& solve)
    {
        run(ctx, config.solveTolerances(), !config.toleranceLadder.empty(),
            [&](double tolerance, QJsonObject& rung) {
                Config c = config;
                c.tolerance = tolerance;
                return solve(c, rung);
            });
    }
};

} // namespace tb::wrap
