#include "ExperimentKind.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <shared_mutex>

namespace tb {
namespace {

struct State {
    std::shared_mutex mutex;
    std::deque<std::shared_ptr<const ExperimentKind>> kinds;
};

State& state()
{
    static State s;
    return s;
}

} // namespace

bool ExperimentKinds::add(std::shared_ptr<const ExperimentKind> kind)
{
    State& s = state();
    std::unique_lock lock(s.mutex);
    for (const auto& k : s.kinds)
        if (k->id() == kind->id()) {
            std::fprintf(stderr, "trainbench: experiment kind \"%s\" registered twice\n", qPrintable(kind->id()));
            std::abort();
        }
    s.kinds.push_back(std::move(kind));
    return true;
}

const ExperimentKind* ExperimentKinds::find(const QString& id)
{
    State& s = state();
    std::shared_lock lock(s.mutex);
    for (const auto& k : s.kinds)
        if (k->id() == id)
            return k.get();
    return nullptr;
}

QList<const ExperimentKind*> ExperimentKinds::all()
{
    State& s = state();
    QList<const ExperimentKind*> out;
    {
        std::shared_lock lock(s.mutex);
        for (const auto& k : s.kinds)
            out << k.get();
    }
    std::sort(out.begin(), out.end(), [](const ExperimentKind* a, const ExperimentKind* b) {
        return a->order() != b->order() ? a->order() < b->order() : a->id() < b->id();
    });
    return out;
}

QStringList ExperimentKinds::ids()
{
    QStringList out;
    for (const ExperimentKind* k : all())
        out << k->id();
    return out;
}

QString jsonValueText(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::String: return QLatin1Char('"') + v.toString() + QLatin1Char('"');
    case QJsonValue::Double: return QString::number(v.toDouble(), 'g', 15);
    case QJsonValue::Bool: return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Array: return QStringLiteral("an array");
    case QJsonValue::Object: return QStringLiteral("an object");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("nothing");
}

} // namespace tb
