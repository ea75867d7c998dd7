#pragma once
/// @file LibraryFacts.h
/// The facts every wrapped library's run records — its versions and the figures of its last
/// solve — and the report of one rung of a tolerance ladder.

#include <trainbench/RunContext.h>

#include <QJsonObject>
#include <QString>
#include <cstddef>

namespace tb::wrap {

/// The versions a wrapper states: its own and the library's, built against and loaded.
struct LibraryVersions {
    QString plugin;              ///< the plugin's version (from its metadata)
    const char* builtName = "";  ///< the header's macro, e.g. "LIBLINEAR_VERSION"
    int built = 0;               ///< its value
    const char* loadedName = ""; ///< the loaded library's variable, e.g. "liblinear_version"
    int loaded = 0;              ///< its value
};

/// The figures of one complete solve (LibraryJob::facts()). A plain value type.
struct LibraryFacts {
    double tolerance = 0;         ///< the stopping tolerance of the solve
    std::size_t nonzeros = 0;     ///< stored input entries of the problem
    std::size_t problemBytes = 0; ///< the problem's rows in memory
    double conversionSeconds = 0; ///< the rows, targets and parameter check
    double librarySeconds = 0;    ///< wall time of the library calls
    double libraryCpuSeconds = 0; ///< the library thread's CPU time

    /// Records "plugin_version", "library_version", "library_loaded_version" (from @p versions)
    /// and "nonzeros", "problem_bytes", "conversion_seconds", "library_seconds",
    /// "library_cpu_seconds"; logs "<who>: built against <builtName> N, running with <loadedName> M"
    /// when the two library versions differ. The tolerance is the caller's to record (a fact of
    /// some wrappers only).
    void record(RunContext& ctx, const QString& who, const LibraryVersions& versions) const;

    /// A tolerance ladder's rung: {"tolerance", "conversion_seconds", "library_seconds",
    /// "library_cpu_seconds"}; the wrapper adds its own figures.
    QJsonObject rung() const;
};

} // namespace tb::wrap
