#include "LibraryFacts.h"

namespace tb::wrap {

void LibraryFacts::record(RunContext& ctx, const QString& who, const LibraryVersions& versions) const
{
    if (versions.loaded != versions.built)
        ctx.log(QStringLiteral("%1: built against %2 %3, running with %4 %5")
                    .arg(who, QLatin1String(versions.builtName))
                    .arg(versions.built)
                    .arg(QLatin1String(versions.loadedName))
                    .arg(versions.loaded));
    ctx.record("plugin_version", versions.plugin);
    ctx.record("library_version", versions.built);
    ctx.record("library_loaded_version", versions.loaded);
    ctx.record("nonzeros", double(nonzeros));
    ctx.record("problem_bytes", double(problemBytes));
    ctx.record("conversion_seconds", conversionSeconds);
    ctx.record("library_seconds", librarySeconds);
    ctx.record("library_cpu_seconds", libraryCpuSeconds);
}

QJsonObject LibraryFacts::rung() const
{
    return QJsonObject{{"tolerance", tolerance},
                       {"conversion_seconds", conversionSeconds},
                       {"library_seconds", librarySeconds},
                       {"library_cpu_seconds", libraryCpuSeconds}};
}

} // namespace tb::wrap
