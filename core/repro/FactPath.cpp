#include "FactPath.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QRegularExpression>
#include <QStringList>

#include <cmath>

namespace tb::repro {
namespace {

// One step of a path: a key and the array indices after it.
const QRegularExpression& stepPattern()
{
    static const QRegularExpression re(QStringLiteral("^([A-Za-z_][A-Za-z0-9_-]*)((?:\\[[0-9]{1,9}\\])*)$"));
    return re;
}

QString typeName(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::String:
        return QStringLiteral("\"%1\"").arg(v.toString().left(40));
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    default:
        return QStringLiteral("a number");
    }
}

QString keysOf(const QJsonObject& o)
{
    QStringList keys = o.keys();
    if (keys.size() > 12) {
        keys = keys.mid(0, 12);
        keys << QStringLiteral("…");
    }
    return keys.isEmpty() ? QStringLiteral("none") : keys.join(QStringLiteral(", "));
}

} // namespace

bool FactPath::isValid(const QString& path)
{
    if (path.isEmpty())
        return false;
    for (const QString& step : path.split(QLatin1Char('.')))
        if (!stepPattern().match(step).hasMatch())
            return false;
    return true;
}

std::optional<double> FactPath::number(const QJsonObject& facts, const QString& path, QString* why)
{
    if (!isValid(path)) {
        *why = QStringLiteral("\"%1\" is not a fact path").arg(path);
        return std::nullopt;
    }
    QJsonValue v = facts;
    QString at; // the path walked so far, for messages
    static const QRegularExpression index(QStringLiteral("\\[([0-9]+)\\]"));
    for (const QString& step : path.split(QLatin1Char('.'))) {
        const auto m = stepPattern().match(step);
        const QString key = m.captured(1);
        if (!v.isObject()) {
            *why = QStringLiteral("%1 is %2, not an object with the key \"%3\"").arg(at, typeName(v), key);
            return std::nullopt;
        }
        const QJsonObject o = v.toObject();
        if (!o.contains(key)) {
            *why = at.isEmpty() ? QStringLiteral("no fact \"%1\" (the run's facts: %2)").arg(key, keysOf(o))
                                : QStringLiteral("no key \"%1\" in %2 (keys: %3)").arg(key, at, keysOf(o));
            return std::nullopt;
        }
        v = o.value(key);
        at += (at.isEmpty() ? QString() : QStringLiteral(".")) + key;
        auto it = index.globalMatch(m.captured(2));
        while (it.hasNext()) {
            const qsizetype i = it.next().captured(1).toLongLong();
            if (!v.isArray()) {
                *why = QStringLiteral("%1 is %2, not an array").arg(at, typeName(v));
                return std::nullopt;
            }
            const QJsonArray a = v.toArray();
            if (i >= a.size()) {
                *why = QStringLiteral("%1 has %2 element(s), not [%3]").arg(at).arg(a.size()).arg(i);
                return std::nullopt;
            }
            v = a.at(i);
            at += QStringLiteral("[%1]").arg(i);
        }
    }
    if (!v.isDouble() || !std::isfinite(v.toDouble())) {
        *why = QStringLiteral("%1 is %2, not a number").arg(at, typeName(v));
        return std::nullopt;
    }
    return v.toDouble();
}

} // namespace tb::repro
