#pragma once
/// @file ParamSweepSpec.h
/// The "sweep" object of a param-sweep experiment, as parsed (see ParamSweep for its cells).

#include <engine/KindSection.h>

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QVariantList>
#include <QVariantMap>

namespace tb {

/// One swept parameter of a grid.
struct SweepAxis {
    QString key;          ///< parameter key, e.g. "lr"
    QJsonValue source;    ///< as written: [values…] or {"from", "to", "count", "scale"}
    QVariantList values;  ///< the values, ranges expanded (1..1000 of them)
};

/// A param-sweep's "sweep" object (docs/experiments.md), its kind section:
/// {"grid": {key: [values] | {"from": a, "to": b, "count": n, "scale": "log"|"linear"}},
///  or "list": [{key: value, …}, …],
///  "datasets": [{…dataset keys…}, …] (optional), "cells_at_once": n (optional, default 1)}.
struct ParamSweepSpec : KindSection {
    QList<SweepAxis> grid;       ///< cartesian product; axes in key order, the last varies fastest
    QList<QVariantMap> list;     ///< explicit points, instead of a grid
    /// Data-set options: each is merged over the experiment's "dataset" (its keys replace the
    /// base's; an option with "source" replaces the whole object). Empty: the dataset alone.
    QList<QJsonObject> datasets;
    /// Cells trained at the same time in the experiment's arena, 1..threads (default 1: each
    /// cell has every thread, so training times compare and peak memory is measured).
    int cellsAtOnce = 1;
    /// Swept keys of an earlier parameter format that no one conversion fits (they changed
    /// meaning differently for two of the algorithms), "key: why"; validate() reports them.
    QStringList formatProblems;
};

} // namespace tb
