#include "HostBudget.h"

#include <trainbench/ParamSchema.h>

#include <cmath>

namespace tb {

std::optional<RunBudget> HostBudget::parse(const QVariant& seconds, const QVariant& clock, bool hasSeconds,
                                           bool hasClock, Error* error)
{
    const QString secondsKey = QString::fromLatin1(kBudgetSecondsKey);
    const QString clockKey = QString::fromLatin1(kBudgetClockKey);
    auto fail = [&](const QString& key, const QString& message) -> std::optional<RunBudget> {
        if (error)
            *error = Error{key, message};
        return std::nullopt;
    };
    if (!hasSeconds && !hasClock)
        return std::nullopt;
    if (!hasSeconds)
        return fail(clockKey, QStringLiteral("a clock without a budget: give %1 too (seconds > 0)").arg(secondsKey));
    RunBudget b;
    bool ok = false;
    const double s = seconds.toDouble(&ok);
    const bool number = ok && seconds.typeId() != QMetaType::Bool && seconds.typeId() != QMetaType::QString;
    if (!number || !std::isfinite(s) || !(s > 0))
        return fail(secondsKey, QStringLiteral("expected seconds > 0 (leave the key out for no budget), got %1")
                                    .arg(ParamSchema::describe(seconds)));
    b.seconds = s;
    if (hasClock) {
        const QString c = clock.toString();
        if (clock.typeId() != QMetaType::QString || (c != QLatin1String("wall") && c != QLatin1String("cpu")))
            return fail(clockKey, QStringLiteral("expected \"wall\" or \"cpu\", got %1").arg(ParamSchema::describe(clock)));
        b.clock = c == QLatin1String("cpu") ? ClockKind::Cpu : ClockKind::Wall;
    }
    return b;
}

std::optional<RunBudget> HostBudget::fromJson(const QJsonObject& o, Error* error)
{
    if (error)
        *error = Error{};
    const QString s = QString::fromLatin1(kBudgetSecondsKey), c = QString::fromLatin1(kBudgetClockKey);
    return parse(o.value(s).toVariant(), o.value(c).toVariant(), o.contains(s), o.contains(c), error);
}

std::optional<RunBudget> HostBudget::takeFromParams(QVariantMap& params, Error* error)
{
    if (error)
        *error = Error{};
    const QString s = QString::fromLatin1(kBudgetSecondsKey), c = QString::fromLatin1(kBudgetClockKey);
    Error e;
    const auto b = parse(params.value(s), params.value(c), params.contains(s), params.contains(c), &e);
    if (!e.key.isEmpty()) {
        if (error)
            *error = e;
        return std::nullopt;
    }
    params.remove(s);
    params.remove(c);
    return b;
}

void HostBudget::toJson(const RunBudget& b, QJsonObject& o)
{
    if (!b.isSet())
        return;
    o.insert(QString::fromLatin1(kBudgetSecondsKey), b.seconds);
    if (b.clock == ClockKind::Cpu)
        o.insert(QString::fromLatin1(kBudgetClockKey), QStringLiteral("cpu"));
}

QJsonObject HostBudget::fact(const RunBudget& b)
{
    return QJsonObject{{"seconds", b.seconds}, {"clock", QString::fromLatin1(clockName(b.clock))}};
}

std::optional<RunBudget> HostBudget::fromFact(const QJsonObject& fact)
{
    const double s = fact.value(QStringLiteral("seconds")).toDouble(0);
    if (!(s > 0) || !std::isfinite(s))
        return std::nullopt;
    RunBudget b;
    b.seconds = s;
    b.clock = fact.value(QStringLiteral("clock")).toString() == QLatin1String("cpu") ? ClockKind::Cpu : ClockKind::Wall;
    return b;
}

ClockKind HostBudget::timesClock(const QJsonObject& info)
{
    return timesClock(fromFact(info.value(QStringLiteral("time_budget")).toObject()));
}

ClockKind HostBudget::timesClock(const std::optional<RunBudget>& budget)
{
    return budget && budget->isSet() ? budget->clock : ClockKind::Wall;
}

QString HostBudget::describe(const RunBudget& b)
{
    return b.clock == ClockKind::Cpu ? QStringLiteral("%1 s of CPU time").arg(b.seconds)
                                     : QStringLiteral("%1 s wall").arg(b.seconds);
}

QString HostBudget::stoppedBy(const RunBudget& b)
{
    return QStringLiteral("time budget (%1)").arg(QLatin1String(clockName(b.clock)));
}

} // namespace tb
