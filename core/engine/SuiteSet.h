#pragma once
/// @file SuiteSet.h
/// The data sets of a suite and a per-set experiment's place in it (Suite.h), as ExperimentSpec
/// holds them.

#include <QJsonObject>
#include <QString>

namespace tb {

/// One data set of a suite.
struct SuiteSet {
    QString name;          ///< unique in the suite; the entry's "name", else the data set's description
    QJsonObject dataset;   ///< a complete "dataset" object
    QString origin;        ///< where it was written, for messages: "suites/teaching.json: sets[2]"
};

/// Where a per-set experiment sits in its suite (its file's "suite_set").
struct SuitePlace {
    QString suite;         ///< the suite's name
    QString set;           ///< the set's name
    int index = 0;         ///< 0-based
    int sets = 0;          ///< how many sets the suite has
    bool isSet() const { return sets > 0; }
};

} // namespace tb
