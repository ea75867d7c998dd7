#pragma once
/// @file LiveSuiteSet.h
/// One data set of a suite as the workbench follows it while the suite runs (Suite.h): its
/// experiment, what it lacks and its learning curves so far.

#include <charts/LearningCurveChart.h>
#include <engine/ExperimentSpec.h>

#include <QList>
#include <QString>
#include <QStringList>

namespace tb::gui {

/// A set of a running suite (ExperimentController::suiteSets()). A value type.
struct LiveSuiteSet {
    QString name;                ///< the set's name in the suite (SuiteSet::name)
    ExperimentSpec spec;         ///< its experiment (Suite::setSpec())
    QStringList gaps;            ///< algorithms that cannot take the set, named
    QString absent;              ///< a catalogue set not downloaded: the command that fetches it (skipped)
    qint64 resumedFrom = -1;     ///< the stored experiment it resumes, −1 when it runs afresh
    bool started = false;        ///< its experiment has begun
    /// One entry per configuration of the set's experiment (ExperimentKind::configurations()), in
    /// its order, with the checkpoints so far; labels as the runner labels its jobs ("BPLS").
    QList<charts::CurveSeriesData> curves;
};

} // namespace tb::gui
