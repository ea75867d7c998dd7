#pragma once
/// @file ShippedFolders.h
/// Where the workbench finds the files it ships (example experiments, the new-experiment default,
/// the user guide): the installed folder beside the executable first, then the source tree's,
/// so a build runs from its tree and an installed package from its prefix.

#include <QString>
#include <QStringList>

namespace tb::gui {

/// @p installed (relative to the executable's folder, e.g. "../share/trainbench/experiments"),
/// then @p inTree (relative to the source tree's resources/ folder, e.g. "experiments" or
/// "../docs") when this build knows its source tree; both cleaned, neither checked to exist.
QStringList shippedFolders(const QString& installed, const QString& inTree);

} // namespace tb::gui
