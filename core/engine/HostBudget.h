#pragma once
/// @file HostBudget.h
/// The host's time budget as experiment files and algorithm parameters write it:
/// "time_budget_s" (seconds > 0) and "time_budget_clock" ("wall", the default, or "cpu") —
/// on the experiment (every run), on an algorithm entry (its runs), or among an algorithm's
/// parameters, where older plugins' own time limits arrive upgraded (bld's "time_limit") and the
/// host takes them out before the schema sees the rest.

#include <trainbench/RunBudget.h>

#include <QJsonObject>
#include <QString>
#include <QVariantMap>
#include <optional>

namespace tb {

/// Stateless readers and writers of budgets. Thread-safe.
class HostBudget {
public:
    /// What went wrong, for a message: the key at fault and why.
    struct Error {
        QString key;
        QString message;
    };

    /// The budget written in @p o (an experiment file's top level or an algorithm entry), or
    /// nullopt when @p o has neither key. On a bad value returns nullopt with @p error set: a
    /// budget ≤ 0 or not finite, a clock other than "wall" and "cpu", a clock without seconds.
    static std::optional<RunBudget> fromJson(const QJsonObject& o, Error* error);
    /// Takes the budget keys out of @p params (an algorithm's parameters) and returns the budget
    /// they gave, or nullopt when they give none. On a bad value the keys stay in @p params and
    /// @p error says why (as fromJson()).
    static std::optional<RunBudget> takeFromParams(QVariantMap& params, Error* error);
    /// Writes @p b's keys into @p o (nothing for no budget; the clock only when it is "cpu").
    static void toJson(const RunBudget& b, QJsonObject& o);
    /// {"seconds", "clock"}: the fact "time_budget" of a run (the host adds "used").
    static QJsonObject fact(const RunBudget& b);
    /// The budget a run's fact "time_budget" records, nullopt without one.
    static std::optional<RunBudget> fromFact(const QJsonObject& fact);
    /// The clock of a run's checkpoint times, from its facts @p info: its budget's clock (a run
    /// with a cpu budget is timed on the CPU clock), the wall (training) clock without a budget.
    static ClockKind timesClock(const QJsonObject& info);
    /// The same for a run that has not started: the budget it will run with (nullopt: none).
    static ClockKind timesClock(const std::optional<RunBudget>& budget);
    /// "30 s of CPU time", "2.5 s wall" for logs and notes.
    static QString describe(const RunBudget& b);
    /// The value of stopped_by for a run that its budget ended: "time budget (cpu)" / "(wall)".
    static QString stoppedBy(const RunBudget& b);

private:
    static std::optional<RunBudget> parse(const QVariant& seconds, const QVariant& clock, bool hasSeconds,
                                          bool hasClock, Error* error);
};

} // namespace tb
