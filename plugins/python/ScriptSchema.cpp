#include "ScriptSchema.h"

#include "PythonValues.h"

#include <QRegularExpression>
#include <cmath>
#include <limits>

namespace py = pybind11;

namespace tb::python {
namespace {

/// The types a Python trainer declares, by paramTypeName(); the others (path, folder, columns,
/// seed) describe data sets and experiments, not a trainer's parameters.
const QList<ParamType>& offeredTypes()
{
    static const QList<ParamType> types{ParamType::Int,     ParamType::Real, ParamType::Bool,
                                        ParamType::Choice,  ParamType::Text, ParamType::IntList,
                                        ParamType::RealList};
    return types;
}

QString offeredTypeNames()
{
    QStringList names;
    for (ParamType t : offeredTypes())
        names << QLatin1Char('"') + paramTypeName(t) + QLatin1Char('"');
    return names.join(QStringLiteral(", "));
}

bool isNumberValue(const QVariant& v)
{
    return v.typeId() == QMetaType::LongLong || v.typeId() == QMetaType::Double;
}

bool isList(ParamType t)
{
    return t == ParamType::IntList || t == ParamType::RealList;
}

/// "Learning rate" for "learning_rate".
QString labelOf(const QString& key)
{
    QString label = key;
    label.replace(QLatin1Char('_'), QLatin1Char(' '));
    label = label.trimmed();
    if (!label.isEmpty())
        label[0] = label[0].toUpper();
    return label;
}

/// The help text with the default and the range appended, as the C++ helpers write it.
QString helpOf(const QString& help, const ParamSpec& s)
{
    const QString range = ParamSchema::rangeText(s);
    QString tail;
    switch (s.type) {
    case ParamType::Int:
    case ParamType::Real:
        tail = QStringLiteral("Default %1%2%3.")
                   .arg(ParamSchema::describe(s.defaultValue),
                        range.isEmpty() ? QString() : QStringLiteral(", ") + range,
                        s.logScale ? QStringLiteral(", log scale") : QString());
        break;
    case ParamType::Bool:
        tail = QStringLiteral("Default %1.").arg(s.defaultValue.toBool() ? "on" : "off");
        break;
    case ParamType::Choice:
        tail = QStringLiteral("Default %1; one of %2.")
                   .arg(s.defaultValue.toString(), s.choices.join(QStringLiteral(", ")));
        break;
    case ParamType::IntList:
    case ParamType::RealList:
        tail = QStringLiteral("Default %1; %2 to %3 values%4.")
                   .arg(ParamSchema::describe(s.defaultValue))
                   .arg(s.minCount)
                   .arg(s.maxCount)
                   .arg(range.isEmpty() ? QString() : QStringLiteral(", each ") + range);
        break;
    default:
        tail = QStringLiteral("Default %1.").arg(ParamSchema::describe(s.defaultValue));
        break;
    }
    return help.trimmed().isEmpty() ? tail : help.trimmed() + QLatin1Char(' ') + tail;
}

} // namespace

std::optional<ParamSchema> ScriptSchema::read(py::handle params, QString* error)
{
    ParamSchema schema;
    if (!params || params.is_none())
        return schema;
    if (!PyDict_Check(params.ptr())) {
        *error =
            QStringLiteral("params: expected a dict of parameter name: spec, got a %1").arg(typeName(params));
        return std::nullopt;
    }
    static const QRegularExpression keyPattern(QStringLiteral("^[a-z_][a-z0-9_]*$"));
    for (auto item : py::reinterpret_borrow<py::dict>(params)) {
        if (!PyUnicode_Check(item.first.ptr())) {
            *error = QStringLiteral("params: a key is a %1; parameter names are strings")
                         .arg(typeName(item.first));
            return std::nullopt;
        }
        const QString key = QString::fromStdString(item.first.cast<std::string>());
        if (!keyPattern.match(key).hasMatch()) {
            *error =
                QStringLiteral("params: the name \"%1\" does not match [a-z_][a-z0-9_]* (lower_snake_case)")
                    .arg(ParamSchema::printable(key));
            return std::nullopt;
        }
        std::optional<ParamSpec> spec = readSpec(key, item.second, error);
        if (!spec)
            return std::nullopt;
        schema.add(*spec);
    }
    return schema;
}

std::optional<ParamSpec> ScriptSchema::readSpec(const QString& key, py::handle specObject, QString* error)
{
    const QString at = QStringLiteral("params[\"%1\"]").arg(key);
    const auto fail = [&](const QString& message) -> std::optional<ParamSpec> {
        *error = at + QStringLiteral(": ") + message;
        return std::nullopt;
    };
    if (!PyDict_Check(specObject.ptr()))
        return fail(QStringLiteral("expected a dict such as {\"type\": \"real\", \"default\": 0.1}, got a %1")
                        .arg(typeName(specObject)));
    static const QStringList known{"type",          "default",       "min",     "max",
                                   "exclusive_min", "exclusive_max", "choices", "log",
                                   "min_count",     "max_count",     "label",   "help"};
    QVariantMap f;
    for (auto item : py::reinterpret_borrow<py::dict>(specObject)) {
        const QString name = PyUnicode_Check(item.first.ptr())
                                 ? QString::fromStdString(item.first.cast<std::string>())
                                 : QString();
        if (!known.contains(name))
            return fail(QStringLiteral("unknown field %1 (known: %2)")
                            .arg(name.isEmpty() ? QStringLiteral("of type ") + typeName(item.first)
                                                : QLatin1Char('"') + name + QLatin1Char('"'),
                                 known.join(QStringLiteral(", "))));
        if (item.second.is_none() && (name == "min" || name == "max"))
            continue; // unbounded
        const std::optional<QVariant> v = fromPython(item.second);
        if (!v)
            return fail(QStringLiteral(
                            "\"%1\": a %2 is not a schema value (bool, int, float, str, or a list of them)")
                            .arg(name, typeName(item.second)));
        f.insert(name, *v);
    }

    // The type, by the names of paramTypeName().
    if (!f.contains("type"))
        return fail(QStringLiteral("no \"type\" (one of %1)").arg(offeredTypeNames()));
    const QVariant typeValue = f.value("type");
    std::optional<ParamType> type;
    for (ParamType t : offeredTypes())
        if (typeValue.typeId() == QMetaType::QString && typeValue.toString() == paramTypeName(t))
            type = t;
    if (!type)
        return fail(QStringLiteral("unknown type %1 (one of %2)")
                        .arg(ParamSchema::describe(typeValue), offeredTypeNames()));
    ParamSpec s;
    s.key = key;
    s.type = *type;

    // Which fields the type takes.
    const bool numeric = s.type == ParamType::Int || s.type == ParamType::Real || isList(s.type);
    const bool integral = s.type == ParamType::Int || s.type == ParamType::IntList;
    const auto appliesTo = [&](const char* field, bool applies, const char* which) -> bool {
        if (f.contains(field) && !applies) {
            *error = at + QStringLiteral(": \"%1\" applies to %2 parameters only, not to type \"%3\"")
                              .arg(QLatin1String(field), QLatin1String(which), paramTypeName(s.type));
            return false;
        }
        return true;
    };
    if (!appliesTo("min", numeric, "int, real and list") ||
        !appliesTo("max", numeric, "int, real and list") ||
        !appliesTo("exclusive_min", s.type == ParamType::Real || s.type == ParamType::RealList, "real") ||
        !appliesTo("exclusive_max", s.type == ParamType::Real || s.type == ParamType::RealList, "real") ||
        !appliesTo("choices", s.type == ParamType::Choice, "choice") ||
        !appliesTo("log", s.type == ParamType::Real, "real") ||
        !appliesTo("min_count", isList(s.type), "list") || !appliesTo("max_count", isList(s.type), "list"))
        return std::nullopt;

    // Bounds.
    for (const char* bound : {"min", "max"}) {
        if (!f.contains(bound))
            continue;
        const QVariant v = f.value(bound);
        const double d = v.toDouble();
        if (!isNumberValue(v) || std::isnan(d))
            return fail(QStringLiteral("\"%1\" must be a number, got %2")
                            .arg(QLatin1String(bound), ParamSchema::describe(v)));
        if (integral && std::isfinite(d) && d != std::floor(d))
            return fail(QStringLiteral("\"%1\" of an %2 parameter must be a whole number, got %3")
                            .arg(QLatin1String(bound), paramTypeName(s.type), ParamSchema::describe(v)));
        (QLatin1String(bound) == QLatin1String("min") ? s.minimum : s.maximum) = d;
    }
    for (const char* flag : {"exclusive_min", "exclusive_max", "log"})
        if (f.contains(flag) && f.value(flag).typeId() != QMetaType::Bool)
            return fail(QStringLiteral("\"%1\" must be True or False, got %2")
                            .arg(QLatin1String(flag), ParamSchema::describe(f.value(flag))));
    s.exclusiveMinimum = f.value("exclusive_min").toBool();
    s.exclusiveMaximum = f.value("exclusive_max").toBool();
    s.logScale = f.value("log").toBool();
    if (s.exclusiveMinimum && !f.contains("min"))
        return fail(QStringLiteral("\"exclusive_min\" needs a \"min\""));
    if (s.exclusiveMaximum && !f.contains("max"))
        return fail(QStringLiteral("\"exclusive_max\" needs a \"max\""));
    if (s.minimum > s.maximum)
        return fail(QStringLiteral("\"min\" %1 is greater than \"max\" %2")
                        .arg(ParamSchema::describe(f.value("min")), ParamSchema::describe(f.value("max"))));
    if (s.minimum == s.maximum && (s.exclusiveMinimum || s.exclusiveMaximum))
        return fail(QStringLiteral("the range is empty: \"min\" and \"max\" are both %1 and one is exclusive")
                        .arg(ParamSchema::describe(f.value("min"))));
    if (s.logScale && !(s.minimum > 0 || (s.minimum == 0 && s.exclusiveMinimum)))
        return fail(
            QStringLiteral("\"log\" needs a positive range (\"min\" > 0, or 0 with \"exclusive_min\"), got "
                           "\"min\" %1")
                .arg(f.contains("min") ? ParamSchema::describe(f.value("min")) : QStringLiteral("none")));

    // Choices.
    if (s.type == ParamType::Choice) {
        const QVariant c = f.value("choices");
        if (c.typeId() != QMetaType::QVariantList || c.toList().isEmpty())
            return fail(QStringLiteral("a choice needs \"choices\", a non-empty list of strings, got %1")
                            .arg(f.contains("choices") ? ParamSchema::describe(c) : QStringLiteral("none")));
        for (const QVariant& e : c.toList()) {
            if (e.typeId() != QMetaType::QString || e.toString().isEmpty())
                return fail(QStringLiteral("\"choices\": %1 is not a non-empty string")
                                .arg(ParamSchema::describe(e)));
            if (s.choices.contains(e.toString()))
                return fail(QStringLiteral("\"choices\": %1 is listed twice").arg(ParamSchema::describe(e)));
            s.choices << e.toString();
        }
    }

    // List sizes.
    if (isList(s.type)) {
        for (const char* count : {"min_count", "max_count"}) {
            if (!f.contains(count))
                continue;
            const QVariant v = f.value(count);
            if (v.typeId() != QMetaType::LongLong || v.toLongLong() < 0 || v.toLongLong() > 100000)
                return fail(QStringLiteral("\"%1\" must be a whole number from 0 to 100000, got %2")
                                .arg(QLatin1String(count), ParamSchema::describe(v)));
            (QLatin1String(count) == QLatin1String("min_count") ? s.minCount : s.maxCount) =
                int(v.toLongLong());
        }
        if (s.minCount > s.maxCount)
            return fail(QStringLiteral("\"min_count\" %1 is greater than \"max_count\" %2")
                            .arg(s.minCount)
                            .arg(s.maxCount));
    }

    // Label and help.
    for (const char* text : {"label", "help"})
        if (f.contains(text) && f.value(text).typeId() != QMetaType::QString)
            return fail(QStringLiteral("\"%1\" must be a string, got %2")
                            .arg(QLatin1String(text), ParamSchema::describe(f.value(text))));
    s.label = f.contains("label") && !f.value("label").toString().trimmed().isEmpty()
                  ? f.value("label").toString()
                  : labelOf(key);

    // The default, checked against everything above.
    if (!f.contains("default"))
        return fail(QStringLiteral("no \"default\" (every parameter needs one)"));
    QString why;
    const std::optional<QVariant> def = ParamSchema::convert(s, f.value("default"), &why);
    if (!def)
        return fail(QStringLiteral("\"default\" %1 is invalid: %2")
                        .arg(ParamSchema::describe(f.value("default")), why));
    s.defaultValue = *def;
    s.help = helpOf(f.value("help").toString(), s);
    return s;
}

} // namespace tb::python
