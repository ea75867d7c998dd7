#include "RunTypes.h"

namespace tb {

QString runStatusName(RunStatus s)
{
    switch (s) {
    case RunStatus::Running: return QStringLiteral("running");
    case RunStatus::Finished: return QStringLiteral("finished");
    case RunStatus::Cancelled: return QStringLiteral("cancelled");
    case RunStatus::Failed: return QStringLiteral("failed");
    case RunStatus::Diverged: return QStringLiteral("diverged");
    case RunStatus::Interrupted: return QStringLiteral("interrupted");
    }
    return QStringLiteral("failed");
}

RunStatus runStatusFromName(const QString& name)
{
    for (auto s : {RunStatus::Running, RunStatus::Finished, RunStatus::Cancelled, RunStatus::Failed,
                   RunStatus::Diverged, RunStatus::Interrupted})
        if (runStatusName(s) == name)
            return s;
    return RunStatus::Failed;
}

QStringList RunRecord::splitTags(const QString& text)
{
    QStringList out;
    for (const QString& t : text.split(QLatin1Char(','))) {
        const QString tag = t.trimmed();
        if (!tag.isEmpty() && !out.contains(tag))
            out << tag;
    }
    return out;
}

} // namespace tb
