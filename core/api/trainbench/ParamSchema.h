#pragma once
/// @file ParamSchema.h
/// An ordered list of ParamSpec with validation and normalisation.

#include "ParamSpec.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QRegularExpression>
#include <QVariantMap>
#include <cmath>
#include <functional>
#include <optional>

namespace tb {

/// The parameters of one algorithm. Thread-safe for concurrent const use.
class ParamSchema {
public:
    ParamSchema() = default;
    ParamSchema(std::initializer_list<ParamSpec> specs) : m_specs(specs) {}

    void add(const ParamSpec& spec) { m_specs.append(spec); }

    /// Rewrites parameters written for an older version of the algorithm, for changes that a
    /// renamed key or choice cannot express (e.g. two old keys that became one). Called by
    /// upgrade() before the aliases are applied; appends a note per change.
    using Upgrader = std::function<QVariantMap(const QVariantMap& params, QStringList* notes)>;
    void setUpgrader(Upgrader upgrader) { m_upgrader = std::move(upgrader); }
    const QList<ParamSpec>& specs() const { return m_specs; }
    int size() const { return int(m_specs.size()); }

    /// The spec with this key, or nullptr.
    const ParamSpec* find(const QString& key) const
    {
        for (const auto& s : m_specs)
            if (s.key == key)
                return &s;
        return nullptr;
    }

    /// Every parameter at its default.
    QVariantMap defaults() const
    {
        QVariantMap m;
        for (const auto& s : m_specs)
            m.insert(s.key, s.defaultValue);
        return m;
    }

    /// @p params with former spellings replaced by current ones: the upgrader first, then
    /// former keys (ParamSpec::aliases) and former choice spellings (choiceAliases). Appends
    /// one deprecation note per change to @p notes ("parameter \"hidden_activation\" is now
    /// \"activation\""). A key given under both its former and current name keeps the
    /// current one, with a note. Unknown keys are left for normalise() to report.
    QVariantMap upgrade(const QVariantMap& params, QStringList* notes = nullptr) const
    {
        QVariantMap in = m_upgrader ? m_upgrader(params, notes) : params;
        QVariantMap out;
        auto note = [&](const QString& n) {
            if (notes)
                *notes << n;
        };
        for (auto it = in.begin(); it != in.end(); ++it) {
            const ParamSpec* s = find(it.key());
            QString key = it.key();
            if (!s) {
                for (const auto& sp : m_specs)
                    if (sp.aliases.contains(key)) {
                        s = &sp;
                        break;
                    }
                if (s) {
                    if (in.contains(s->key)) {
                        note(QStringLiteral("parameter \"%1\" is deprecated and also given as \"%2\": %2 is used")
                                 .arg(key, s->key));
                        continue;
                    }
                    note(QStringLiteral("parameter \"%1\" is deprecated: it is now \"%2\"").arg(key, s->key));
                    key = s->key;
                }
            }
            QVariant v = it.value();
            if (s && s->type == ParamType::Choice && v.typeId() == QMetaType::QString &&
                s->choiceAliases.contains(v.toString())) {
                const QString now = s->choiceAliases.value(v.toString());
                note(QStringLiteral("parameter \"%1\": \"%2\" is deprecated: it is now \"%3\"")
                         .arg(s->key, v.toString(), now));
                v = now;
            }
            out.insert(key, v);
        }
        return out;
    }

    /// Checks @p params against the schema and returns them completed with defaults and
    /// converted to canonical types (qlonglong, double, bool, QString, QVariantList of int or
    /// of double).
    /// Former spellings are upgraded first (see upgrade()); their deprecation notes are
    /// appended to @p notes when given. On failure returns std::nullopt and sets @p error to a
    /// message that names the key, the value and what was expected. Unknown keys are errors
    /// (they are usually typos).
    std::optional<QVariantMap> normalise(const QVariantMap& given, QString* error, QStringList* notes = nullptr) const
    {
        QStringList changes;
        const QVariantMap params = upgrade(given, &changes);
        if (notes)
            *notes << changes;
        // A message about an upgraded value also says what the file called it.
        const auto failWith = [&](const QString& msg) {
            return fail(error, changes.isEmpty() ? msg : msg + QStringLiteral(" (") + changes.join("; ") + ')');
        };
        QVariantMap out = defaults();
        for (auto it = params.begin(); it != params.end(); ++it) {
            const ParamSpec* s = find(it.key());
            if (!s) {
                QStringList keys;
                for (const auto& sp : m_specs)
                    keys << sp.key;
                return failWith(QStringLiteral("unknown parameter \"%1\" (known: %2)").arg(it.key(), keys.join(", ")));
            }
            QString msg;
            auto v = convert(*s, it.value(), &msg);
            if (!v)
                return failWith(msg);
            out.insert(s->key, *v);
        }
        return out;
    }

    /// Returns an empty string if @p params are valid, else the first problem found.
    QString validate(const QVariantMap& params) const
    {
        QString err;
        normalise(params, &err);
        return err;
    }

    /// The schema as JSON, for `trainbench-cli list --json` and the GUI.
    QJsonArray toJson() const
    {
        QJsonArray arr;
        for (const auto& s : m_specs) {
            QJsonObject o{{"key", s.key}, {"label", s.label}, {"type", paramTypeName(s.type)},
                          {"default", QJsonValue::fromVariant(s.defaultValue)}, {"help", s.help}};
            const bool list = s.type == ParamType::IntList || s.type == ParamType::RealList;
            if (s.type == ParamType::Int || s.type == ParamType::Real || list) {
                if (std::isfinite(s.minimum)) o.insert("min", s.minimum);
                if (std::isfinite(s.maximum)) o.insert("max", s.maximum);
            }
            if (s.type == ParamType::Real) o.insert("logScale", s.logScale);
            if (s.type == ParamType::Choice) o.insert("choices", QJsonArray::fromStringList(s.choices));
            if (list) {
                o.insert("minCount", s.minCount);
                o.insert("maxCount", s.maxCount);
            }
            if (!s.aliases.isEmpty())
                o.insert("deprecatedKeys", QJsonArray::fromStringList(s.aliases));
            arr.append(o);
        }
        return arr;
    }

    /// Converts one value to the spec's canonical type, or explains why it cannot.
    static std::optional<QVariant> convert(const ParamSpec& s, const QVariant& v, QString* error)
    {
        const QString shown = describe(v);
        auto range = [&](double x) -> bool { return x >= s.minimum && x <= s.maximum; };
        auto rangeText = [&] {
            return QStringLiteral("[%1, %2]").arg(s.minimum).arg(s.maximum);
        };
        switch (s.type) {
        case ParamType::Int: {
            bool ok = false;
            const double d = v.toDouble(&ok);
            if (!ok || !std::isfinite(d) || d != std::floor(d) || v.typeId() == QMetaType::Bool)
                return fail(error, QStringLiteral("parameter \"%1\": expected an integer, got %2").arg(s.key, shown));
            if (!range(d))
                return fail(error, QStringLiteral("parameter \"%1\": %2 is outside %3").arg(s.key, shown, rangeText()));
            return QVariant(qlonglong(d));
        }
        case ParamType::Real: {
            bool ok = false;
            const double d = v.toDouble(&ok);
            if (!ok || v.typeId() == QMetaType::Bool)
                return fail(error, QStringLiteral("parameter \"%1\": expected a number, got %2").arg(s.key, shown));
            if (!std::isfinite(d))
                return fail(error, QStringLiteral("parameter \"%1\": %2 is not finite").arg(s.key, shown));
            if (!range(d))
                return fail(error, QStringLiteral("parameter \"%1\": %2 is outside %3").arg(s.key, shown, rangeText()));
            return QVariant(d);
        }
        case ParamType::Bool:
            if (v.typeId() != QMetaType::Bool)
                return fail(error, QStringLiteral("parameter \"%1\": expected true or false, got %2").arg(s.key, shown));
            return QVariant(v.toBool());
        case ParamType::Choice: {
            const QString str = v.toString();
            if (v.typeId() != QMetaType::QString || !s.choices.contains(str))
                return fail(error, QStringLiteral("parameter \"%1\": %2 is not one of %3")
                                       .arg(s.key, shown, s.choices.join(", ")));
            return QVariant(str);
        }
        case ParamType::IntList:
        case ParamType::RealList: {
            const bool integers = s.type == ParamType::IntList;
            QVariantList in;
            if (v.typeId() == QMetaType::QString) {
                // "50,20" or "50 20" as typed in a form.
                const auto parts = v.toString().split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts);
                for (const auto& p : parts)
                    in << QVariant(p);
            } else if (v.canConvert<QVariantList>() && v.typeId() != QMetaType::Double) {
                in = v.toList();
            } else {
                return fail(error, QStringLiteral("parameter \"%1\": expected a list of %2, got %3")
                                       .arg(s.key, integers ? QStringLiteral("integers") : QStringLiteral("numbers"), shown));
            }
            if (in.size() < s.minCount || in.size() > s.maxCount)
                return fail(error, QStringLiteral("parameter \"%1\": %2 has %3 values, expected %4 to %5")
                                       .arg(s.key, shown).arg(in.size()).arg(s.minCount).arg(s.maxCount));
            QVariantList out;
            for (const auto& e : in) {
                bool ok = false;
                const double d = e.toDouble(&ok);
                if (!ok || !std::isfinite(d) || (integers ? d != std::floor(d) : e.typeId() == QMetaType::Bool))
                    return fail(error, QStringLiteral("parameter \"%1\": element %2 is not %3")
                                           .arg(s.key, describe(e), integers ? QStringLiteral("an integer")
                                                                             : QStringLiteral("a finite number")));
                if (!range(d))
                    return fail(error, QStringLiteral("parameter \"%1\": element %2 is outside %3").arg(s.key, describe(e), rangeText()));
                if (integers)
                    out << int(d);
                else
                    out << d;
            }
            return QVariant(out);
        }
        }
        return fail(error, QStringLiteral("parameter \"%1\": unsupported type").arg(s.key));
    }

    /// A value as a user would write it, for messages.
    static QString describe(const QVariant& v)
    {
        if (v.typeId() == QMetaType::QString)
            return QLatin1Char('"') + v.toString() + QLatin1Char('"');
        if (v.canConvert<QVariantList>() && v.typeId() == QMetaType::QVariantList) {
            QStringList parts;
            for (const auto& e : v.toList())
                parts << describe(e);
            return QLatin1Char('[') + parts.join(", ") + QLatin1Char(']');
        }
        if (!v.isValid() || v.isNull())
            return QStringLiteral("null");
        return v.toString();
    }

private:
    static std::nullopt_t fail(QString* error, const QString& msg)
    {
        if (error)
            *error = msg;
        return std::nullopt;
    }

    QList<ParamSpec> m_specs;
    Upgrader m_upgrader;
};

/// Convenience accessors for normalised parameter maps.
inline QList<int> intListParam(const QVariantMap& p, const QString& key)
{
    QList<int> out;
    for (const auto& v : p.value(key).toList())
        out << v.toInt();
    return out;
}

/// The RealList parameter @p key of a normalised parameter map.
inline QList<double> realListParam(const QVariantMap& p, const QString& key)
{
    QList<double> out;
    for (const auto& v : p.value(key).toList())
        out << v.toDouble();
    return out;
}

} // namespace tb
