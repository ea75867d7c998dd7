#pragma once
/// @file Suite.h
/// An experiment over several data sets: the file's "datasets" (an array) or "suite" (a suite file,
/// resources/suites/*.json) instead of one "dataset". Each set runs as an experiment of its own —
/// the file's kind, algorithms, seeds and budgets on that set, with that set's own seeded splits,
/// tuned on that set when the kind is a tuned comparison — stored as an ordinary experiment that
/// names its place in the suite ("suite_set"), so that resume, MPI cells, Stop and re-runs work
/// per set as for any experiment. AcrossSets compares the sets' results.

#include "ExperimentSpec.h"
#include "SuiteSet.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace tb {

class PluginRegistry;

/// Pure functions; thread-safe.
class Suite {
public:
    /// The sets of a suite file at @p path (relative paths of its data sets resolved against the
    /// suite file's folder). False with @p error naming the file and entry on the first problem.
    static bool readFile(const QString& path, QString* suiteName, QList<SuiteSet>* sets, QString* error);
    /// The sets of an inline "datasets" array, written in @p sourceName; entries are data-set
    /// objects or {"name": ..., "dataset": {...}}. False with @p key and @p message set.
    static bool readArray(const QJsonValue& array, const QString& origin, QList<SuiteSet>* sets, QString* key,
                          QString* message);
    /// The problems of @p sets as a suite (fewer than 1 set, two sets with one name, a data set
    /// written twice), each "origin: message".
    static QStringList problems(const QList<SuiteSet>& sets);

    /// Whether the data set of @p set is absent here and can be fetched (a catalogue set not yet
    /// downloaded): then the command that fetches it, else empty.
    static QString absentBecause(const SuiteSet& set);

    /// The experiment of set @p index of @p suite (ExperimentSpec::suite non-empty): the file's
    /// kind, algorithms and settings on that set, named "SET — NAME", with its place. Algorithms
    /// that cannot take the set's task are left out, each named in @p gaps ("LIBLINEAR on friedman1:
    /// regression, and it only classifies"); the spec keeps the other entries' labels, so that a
    /// configuration has one name on every set.
    static ExperimentSpec setSpec(const ExperimentSpec& suite, int index, const PluginRegistry& registry,
                                  QStringList* gaps = nullptr);

    /// What validate() finds in a suite: each set's experiment's problems (a problem every set
    /// has once, the others under their set's name), a set no algorithm can take, and the
    /// suite's own problems().
    static QStringList validate(const ExperimentSpec& suite, const PluginRegistry& registry);

    /// The "suite_set" object of @p place, and back (false with @p message on a malformed one).
    static QJsonObject placeToJson(const SuitePlace& place);
    static bool placeFromJson(const QJsonValue& v, SuitePlace* place, QString* message);
};

} // namespace tb
