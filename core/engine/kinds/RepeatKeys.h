#pragma once
/// @file RepeatKeys.h
/// The "repeats" and "first_repeat" keys of the kinds whose cells are repeated runs (learning
/// curves, param sweeps): repeat r runs with seed deriveSeed(seed, r).

#include <trainbench/ParamSchema.h>

namespace tb::kindkeys {

inline ParamSchema repeats()
{
    ParamSchema s;
    s.add(ParamSpec::integer(QStringLiteral("repeats"), QStringLiteral("Repeats"), 1, 1, 1000,
                             QStringLiteral("Runs of every configuration, repeat r with seed deriveSeed(seed, r).")));
    s.add(ParamSpec::integer(QStringLiteral("first_repeat"), QStringLiteral("First repeat"), 0, 0, 1000000,
                             QStringLiteral("Number of the first repeat, so one stored run can be re-run exactly.")));
    return s;
}

} // namespace tb::kindkeys
