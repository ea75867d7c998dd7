#pragma once
/// @file ParamSchema.h
/// An ordered list of ParamSpec with validation and normalisation: the one schema type of
/// algorithm parameters, data-set keys and experiment keys.

#include "ParamSpec.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QLocale>
#include <QRegularExpression>
#include <QVariantMap>
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

namespace tb {

/// The parameter format: what the keys of the in-tree plugins mean. An experiment file says which
/// it was written in ("format", absent = 1); its values are converted to this one when it is read
/// (ParamSchema::FormatChange, ExperimentSpec::upgradeParams()), each with a note.
// 2: "ridge" is r of mean loss + r·‖w‖² in every plugin (docs/parameters.md, "Regularisation");
//    gradient's, bld's, lsq's and dsgd's former value is twice it, linear.ridge's and bpls's
//    former Gram-diagonal λ lives on as "gram_ridge".
inline constexpr int kParamsFormat = 2;

/// How a schema's messages name its keys, and what else its conditions may read.
struct ParamContext {
    /// How messages name a key: `parameter "lr"` (an algorithm's parameters), or as a path into
    /// the file, `dataset.samples` (or `repeats` with an empty path).
    enum class KeyNames { Parameter, Path };
    KeyNames keyNames = KeyNames::Parameter;
    /// With KeyNames::Path: the path of the object, e.g. "dataset".
    QString path;
    /// Who owns the keys, for messages about unknown or missing keys (e.g. `source "moons"`).
    QString owner;
    /// Keys the caller handles itself (e.g. a data set's "source"): accepted as they are and
    /// listed with the known keys.
    QStringList otherKeys;
    /// Values that conditions (ParamSpec::activeWhen) may read besides the object's own keys,
    /// e.g. the task of a data source whose task is fixed.
    QVariantMap values;
    /// Fill in the defaults of active keys that were not given (normalise()).
    bool fillDefaults = true;
};

/// The keys of one object: an algorithm's parameters, a data source's keys, an experiment
/// file's settings. Thread-safe for concurrent const use.
class ParamSchema {
public:
    ParamSchema() = default;
    ParamSchema(std::initializer_list<ParamSpec> specs) : m_specs(specs) {}

    void add(const ParamSpec& spec) { m_specs.append(spec); }
    /// Appends every key of @p other and its format changes (its upgrader is not taken).
    void append(const ParamSchema& other)
    {
        m_specs.append(other.m_specs);
        m_formatChanges.append(other.m_formatChanges);
    }

    /// Rewrites parameters written for an older version of the algorithm, for changes that a
    /// renamed key or choice cannot express (e.g. two old keys that became one). Called by
    /// upgrade() before the aliases are applied; appends a note per change.
    using Upgrader = std::function<QVariantMap(const QVariantMap& params, QStringList* notes)>;
    void setUpgrader(Upgrader upgrader) { m_upgrader = std::move(upgrader); }

    /// A key whose meaning changed with a parameter format (kParamsFormat): a value written in
    /// an earlier format is multiplied by @c factor and kept under @c now (the same key or another
    /// one, for a meaning that lives on under another name). Declarative, so that the host can
    /// convert the values an experiment's kind holds outside the parameters too (a sweep's values,
    /// a search range's bounds: ExperimentKind::upgradeFormat()).
    struct FormatChange {
        int format = 0;   ///< the first format with the new meaning
        QString key;      ///< the key as the earlier format wrote it (after former spellings)
        QString now;      ///< where its value goes
        double factor = 1; ///< value now = value then × factor
        QString then;     ///< what the key meant before, for the note ("λ of λ/2·‖w‖²")
    };
    void addFormatChange(FormatChange change) { m_formatChanges.append(std::move(change)); }
    /// The changes a value written in @p fromFormat goes through, oldest first.
    QList<FormatChange> formatChanges(int fromFormat) const
    {
        QList<FormatChange> out;
        for (const auto& c : m_formatChanges)
            if (c.format > fromFormat)
                out << c;
        return out;
    }
    /// The note for @p change applied to @p key = @p value (now @p converted).
    static QString formatNote(const FormatChange& change, int fromFormat, const QString& key, const QVariant& value,
                              const QVariant& converted)
    {
        // The shortest text that reads back as the same double ("0.0001", not "1e-04").
        const auto text = [](const QVariant& x) {
            return x.typeId() == QMetaType::Double ? QString::number(x.toDouble(), 'g', QLocale::FloatingPointShortest)
                                                   : x.toString();
        };
        const QString v = text(value);
        return QStringLiteral("parameter \"%1\" = %2 was written in parameter format %3, where it meant %4: it is "
                              "now \"%5\" = %6 (docs/parameters.md)")
            .arg(key, v)
            .arg(fromFormat)
            .arg(change.then, change.now, text(converted));
    }
    /// @p value of @p change's key converted (a number times the factor; anything else as it is,
    /// for normalise() to report).
    static QVariant convertedValue(const FormatChange& change, const QVariant& value)
    {
        switch (value.typeId()) {
        case QMetaType::Double:
        case QMetaType::Float:
        case QMetaType::Int:
        case QMetaType::LongLong:
        case QMetaType::UInt:
        case QMetaType::ULongLong:
            return change.factor == 1 ? value : QVariant(value.toDouble() * change.factor);
        default:
            return value;
        }
    }
    const QList<ParamSpec>& specs() const { return m_specs; }
    int size() const { return int(m_specs.size()); }
    bool isEmpty() const { return m_specs.isEmpty(); }

    /// The spec with this key, or nullptr.
    const ParamSpec* find(const QString& key) const
    {
        for (const auto& s : m_specs)
            if (s.key == key)
                return &s;
        return nullptr;
    }

    /// The spec with this key, to adjust after a shared block declared it (e.g. an algorithm's
    /// default search space, ParamSpec::search, on a key of the optimizer block), or nullptr.
    ParamSpec* findMutable(const QString& key)
    {
        for (auto& s : m_specs)
            if (s.key == key)
                return &s;
        return nullptr;
    }

    /// Gives @p key the default search space @p space (ParamSpec::search); false when the schema
    /// has no such key.
    bool setSearch(const QString& key, const SearchSpace& space)
    {
        ParamSpec* s = findMutable(key);
        if (s)
            s->search = space;
        return s != nullptr;
    }

    /// Gives @p key its value for demonstrations (ParamSpec::teachingValue); false when the
    /// schema has no such key.
    bool setTeaching(const QString& key, const QVariant& value)
    {
        ParamSpec* s = findMutable(key);
        if (s)
            s->teachingValue = value;
        return s != nullptr;
    }

    /// The parameters for a live demonstration: every key at its default, and where the plugin
    /// declared a teachingValue, at that value (converted to the key's type; a value the key
    /// cannot take is left out, so the default stands).
    QVariantMap teachingPreset() const;

    /// Every key that has a default, at its default.
    QVariantMap defaults() const
    {
        QVariantMap m;
        for (const auto& s : m_specs)
            if (s.defaultValue.isValid())
                m.insert(s.key, s.defaultValue);
        return m;
    }

    /// Whether @p spec applies to an object whose values (given, defaults and context,
    /// canonical types) are @p values: every condition of ParamSpec::activeWhen holds.
    static bool isActive(const ParamSpec& spec, const QVariantMap& values)
    {
        for (const ParamCondition& c : spec.activeWhen) {
            bool holds = values.contains(c.key);
            if (holds && !c.values.isEmpty())
                holds = c.values.contains(valueText(values.value(c.key)));
            if (holds == c.negate)
                return false;
        }
        return true;
    }

    /// @p params with former spellings replaced by current ones: the upgrader first, then
    /// former keys (ParamSpec::aliases) and former choice spellings (choiceAliases). Appends
    /// one deprecation note per change to @p notes ("parameter \"hidden_activation\" is now
    /// \"activation\""). A key given under both its former and current name keeps the
    /// current one, with a note. Unknown keys are left for normalise() to report.
    /// Values written in parameter format @p fromFormat (an experiment file's "format", older
    /// than kParamsFormat for a file written before a key changed meaning) are then converted by
    /// the format changes since (addFormatChange()), one note each.
    QVariantMap upgrade(const QVariantMap& params, QStringList* notes = nullptr, int fromFormat = kParamsFormat) const
    {
        return upgradeFormat(upgradeSpellings(params, notes), notes, fromFormat);
    }

    /// @p params, in current spellings, written in @p fromFormat, converted to the current
    /// format. A converted key given also under its new name keeps the new one, with a note.
    QVariantMap upgradeFormat(const QVariantMap& params, QStringList* notes, int fromFormat) const
    {
        QVariantMap out = params;
        for (const auto& c : formatChanges(fromFormat)) {
            const auto it = out.constFind(c.key);
            if (it == out.constEnd())
                continue;
            const QVariant value = it.value();
            out.remove(c.key);
            if (c.now != c.key && out.contains(c.now)) {
                if (notes)
                    *notes << QStringLiteral("parameter \"%1\" was written in parameter format %2 and \"%3\" is "
                                             "also given: %3 is used")
                                  .arg(c.key)
                                  .arg(fromFormat)
                                  .arg(c.now);
                continue;
            }
            const QVariant converted = convertedValue(c, value);
            out.insert(c.now, converted);
            // 0 means "no penalty" (or no change) in either format: nothing worth a note.
            if (notes && !(value.toDouble() == 0 && converted.toDouble() == 0))
                *notes << formatNote(c, fromFormat, c.key, value, converted);
        }
        return out;
    }

    /// @p params with former spellings replaced by current ones (upgrade() without formats).
    QVariantMap upgradeSpellings(const QVariantMap& params, QStringList* notes = nullptr) const
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

    /// Checks @p given against the schema and returns it converted to canonical types
    /// (qlonglong, double, bool, QString, QVariantList of int or double, qulonglong seeds) and,
    /// unless @p ctx says otherwise, completed with the defaults of the keys that apply.
    /// Former spellings are upgraded first (see upgrade()); their deprecation notes are
    /// appended to @p notes when given. Checks, in this order, every given key (unknown keys
    /// are errors — usually typos, and the nearest known key is suggested; values of the wrong
    /// type or outside the range; keys given where their conditions do not hold), then
    /// required keys. On failure returns std::nullopt and sets @p error to one message naming
    /// the key (as @p ctx names keys), the value and what was expected; @p errorKey, when given,
    /// receives the key at fault (as the object writes it).
    std::optional<QVariantMap> normalise(const QVariantMap& given, QString* error, QStringList* notes = nullptr,
                                         const ParamContext& ctx = {}, QString* errorKey = nullptr) const
    {
        QStringList changes;
        const QVariantMap params = upgrade(given, &changes);
        if (notes)
            *notes << changes;
        QString faultKey;
        // A message about an upgraded value also says what the file called it.
        const auto failWith = [&](const QString& msg) {
            if (errorKey)
                *errorKey = faultKey;
            return fail(error, changes.isEmpty() ? msg : msg + QStringLiteral(" (") + changes.join("; ") + ')');
        };
        QVariantMap out;
        for (auto it = params.begin(); it != params.end(); ++it) {
            faultKey = it.key();
            if (ctx.otherKeys.contains(it.key())) {
                out.insert(it.key(), it.value());
                continue;
            }
            const ParamSpec* s = find(it.key());
            if (!s)
                return failWith(unknownKeyMessage(it.key(), ctx));
            QString msg;
            auto v = convert(*s, it.value(), &msg, ctx);
            if (!v)
                return failWith(msg);
            out.insert(s->key, *v);
        }
        // Conditions read the given values, the defaults of what was not given, and the context.
        QVariantMap values = ctx.values;
        for (const auto& s : m_specs)
            if (!out.contains(s.key) && s.defaultValue.isValid())
                values.insert(s.key, s.defaultValue);
        for (auto it = out.begin(); it != out.end(); ++it)
            values.insert(it.key(), it.value());
        for (const auto& s : m_specs) {
            faultKey = s.key;
            const bool active = isActive(s, values);
            if (out.contains(s.key) && !active) {
                QStringList why;
                for (const ParamCondition& c : s.activeWhen)
                    why << c.text();
                return failWith(keyName(s.key, ctx) +
                                QStringLiteral(": only used when %1").arg(why.join(QStringLiteral(" and "))));
            }
            if (!active || out.contains(s.key))
                continue;
            if (s.required)
                return failWith(keyName(s.key, ctx) +
                                (ctx.owner.isEmpty() ? QStringLiteral(": missing (required)")
                                                     : QStringLiteral(": missing (required for %1)").arg(ctx.owner)));
            if (!s.requiredUnless.isEmpty() && !out.contains(s.requiredUnless))
                return failWith(keyName(s.key, ctx) +
                                QStringLiteral(": missing; give %1 or %2").arg(s.key, s.requiredUnless));
            if (ctx.fillDefaults && s.defaultValue.isValid())
                out.insert(s.key, s.defaultValue);
        }
        return out;
    }

    /// Returns an empty string if @p params are valid, else the first problem found.
    QString validate(const QVariantMap& params, const ParamContext& ctx = {}) const
    {
        QString err;
        normalise(params, &err, nullptr, ctx);
        return err;
    }

    /// The schema as JSON, for `trainbench-cli list --json` and the GUI.
    QJsonArray toJson() const
    {
        QJsonArray arr;
        for (const auto& s : m_specs) {
            QJsonObject o{{"key", s.key}, {"label", s.label}, {"type", paramTypeName(s.type)}, {"help", s.help}};
            if (s.defaultValue.isValid())
                o.insert("default", QJsonValue::fromVariant(s.defaultValue));
            if (isNumeric(s.type)) {
                if (std::isfinite(s.minimum)) o.insert("min", s.minimum);
                if (std::isfinite(s.maximum)) o.insert("max", s.maximum);
                if (s.exclusiveMinimum) o.insert("exclusiveMin", true);
                if (s.exclusiveMaximum) o.insert("exclusiveMax", true);
            }
            if (s.type == ParamType::Real) o.insert("logScale", s.logScale);
            if (s.type == ParamType::Choice) {
                o.insert("choices", QJsonArray::fromStringList(s.choices));
                if (!s.choiceLabels.isEmpty())
                    o.insert("choiceLabels", QJsonArray::fromStringList(s.choiceLabels));
            }
            if (s.type == ParamType::IntList || s.type == ParamType::RealList) {
                o.insert("minCount", s.minCount);
                o.insert("maxCount", s.maxCount);
            }
            if (s.required) o.insert("required", true);
            if (!s.requiredUnless.isEmpty()) o.insert("requiredUnless", s.requiredUnless);
            if (!s.absentText.isEmpty()) o.insert("absent", s.absentText);
            if (!s.activeWhen.isEmpty()) {
                QJsonArray when;
                for (const ParamCondition& c : s.activeWhen)
                    when.append(QJsonObject{{"key", c.key}, {"values", QJsonArray::fromStringList(c.values)},
                                            {"negate", c.negate}});
                o.insert("activeWhen", when);
            }
            if (!s.aliases.isEmpty())
                o.insert("deprecatedKeys", QJsonArray::fromStringList(s.aliases));
            arr.append(o);
        }
        return arr;
    }

    /// The range of a numeric spec as text: "1 to 256", "≥ 0", "between 0 and 1 (exclusive)";
    /// empty when it has none. Integer ranges whose top is beyond 10⁹ read "≥ lo".
    static QString rangeText(const ParamSpec& s)
    {
        const bool lo = std::isfinite(s.minimum);
        const bool hi = std::isfinite(s.maximum) && !(isIntegral(s.type) && s.maximum >= 1e9);
        const QString a = number(s.minimum), b = number(s.maximum);
        if (lo && hi) {
            if (s.exclusiveMinimum && s.exclusiveMaximum)
                return QStringLiteral("between %1 and %2 (exclusive)").arg(a, b);
            if (s.exclusiveMinimum)
                return QStringLiteral("> %1 and ≤ %2").arg(a, b);
            if (s.exclusiveMaximum)
                return QStringLiteral("≥ %1 and < %2").arg(a, b);
            return QStringLiteral("%1 to %2").arg(a, b);
        }
        if (lo)
            return QStringLiteral("%1 %2").arg(s.exclusiveMinimum ? QStringLiteral(">") : QStringLiteral("≥"), a);
        if (hi)
            return QStringLiteral("%1 %2").arg(s.exclusiveMaximum ? QStringLiteral("<") : QStringLiteral("≤"), b);
        return {};
    }

    /// Converts one value to the spec's canonical type, or explains why it cannot. The
    /// message starts with the key as @p ctx names it.
    static std::optional<QVariant> convert(const ParamSpec& s, const QVariant& v, QString* error,
                                           const ParamContext& ctx = {})
    {
        const QString name = keyName(s.key, ctx);
        const QString got = QStringLiteral(", got ") + describe(v);
        const QString range = rangeText(s);
        const QString within = range.isEmpty() ? QString() : QLatin1Char(' ') + range;
        const bool numberType = isNumber(v);
        switch (s.type) {
        case ParamType::Int: {
            const double d = v.toDouble();
            if (!numberType || !std::isfinite(d) || d != std::floor(d) || std::abs(d) > kMaxExactInteger ||
                !inRange(s, d))
                return fail(error, name + QStringLiteral(": expected an integer") + within + got);
            return QVariant(qlonglong(d));
        }
        case ParamType::Real: {
            const double d = v.toDouble();
            if (!numberType || !std::isfinite(d) || !inRange(s, d))
                return fail(error, name + QStringLiteral(": expected a number") + within + got);
            return QVariant(d);
        }
        case ParamType::Bool:
            if (v.typeId() != QMetaType::Bool)
                return fail(error, name + QStringLiteral(": expected true or false") + got);
            return QVariant(v.toBool());
        case ParamType::Choice: {
            const QString str = v.toString();
            if (v.typeId() != QMetaType::QString || !s.choices.contains(str)) {
                QStringList q;
                for (const QString& c : s.choices)
                    q << QLatin1Char('"') + printable(c) + QLatin1Char('"');
                return fail(error, name + QStringLiteral(": expected one of %1").arg(q.join(QStringLiteral(", "))) + got);
            }
            return QVariant(str);
        }
        case ParamType::Text:
            if (v.typeId() != QMetaType::QString)
                return fail(error, name + QStringLiteral(": expected a string") + got);
            return QVariant(v.toString());
        case ParamType::Path:
        case ParamType::Folder:
            if (v.typeId() != QMetaType::QString || v.toString().trimmed().isEmpty() || v.toString().contains(QChar(0)))
                return fail(error, name +
                                       QStringLiteral(": expected a %1 path (a non-empty string)")
                                           .arg(s.type == ParamType::Folder ? QStringLiteral("folder") : QStringLiteral("file")) +
                                       got);
            return QVariant(v.toString());
        case ParamType::Columns:
            return convertColumns(v, error, name + QStringLiteral(": expected a column name, a 0-based column index, "
                                                                  "or a list of distinct ones") + got);
        case ParamType::Seed:
            return convertSeed(v, error,
                               name + QStringLiteral(": expected a non-negative integer (or a string of decimal digits)") +
                                   got);
        case ParamType::IntList:
        case ParamType::RealList:
            return convertList(s, v, error, name, got, within);
        }
        return fail(error, name + QStringLiteral(": unsupported type"));
    }

    /// @p text with control characters written as \\xNN, so that a message shows them.
    static QString printable(const QString& text)
    {
        QString out;
        out.reserve(text.size());
        for (QChar c : text) {
            if (c.unicode() < 0x20 || c.unicode() == 0x7f)
                out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
            else
                out += c;
        }
        return out;
    }

    /// A value as a user would write it, for messages (strings quoted and printable, long
    /// ones shortened).
    static QString describe(const QVariant& v)
    {
        if (v.typeId() == QMetaType::QString) {
            QString t = printable(v.toString());
            if (t.size() > 60)
                t = t.left(59) + QChar(0x2026);
            return QLatin1Char('"') + t + QLatin1Char('"');
        }
        if (isList(v)) {
            QStringList parts;
            for (const auto& e : v.toList())
                parts << describe(e);
            QString s = QLatin1Char('[') + parts.join(", ") + QLatin1Char(']');
            if (s.size() > 60)
                s = s.left(59) + QChar(0x2026);
            return s;
        }
        if (v.typeId() == QMetaType::QVariantMap)
            return QStringLiteral("an object");
        if (!v.isValid() || v.isNull())
            return QStringLiteral("null");
        if (v.typeId() == QMetaType::Bool)
            return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        if (v.typeId() == QMetaType::Double || v.typeId() == QMetaType::Float)
            return number(v.toDouble());
        return v.toString();
    }

    /// How a message names @p key (see ParamContext::keyNames).
    static QString keyName(const QString& key, const ParamContext& ctx)
    {
        if (ctx.keyNames == ParamContext::KeyNames::Parameter)
            return QStringLiteral("parameter \"%1\"").arg(key);
        return ctx.path.isEmpty() ? key : ctx.path + QLatin1Char('.') + key;
    }

private:
    static constexpr double kMaxExactInteger = 9007199254740992.0; // 2^53: larger doubles lose digits

    static bool isNumeric(ParamType t)
    {
        return t == ParamType::Int || t == ParamType::Real || t == ParamType::IntList || t == ParamType::RealList;
    }
    static bool isIntegral(ParamType t) { return t == ParamType::Int || t == ParamType::IntList; }
    static bool isNumber(const QVariant& v)
    {
        switch (v.typeId()) {
        case QMetaType::Int:
        case QMetaType::UInt:
        case QMetaType::LongLong:
        case QMetaType::ULongLong:
        case QMetaType::Long:
        case QMetaType::ULong:
        case QMetaType::Short:
        case QMetaType::UShort:
        case QMetaType::Double:
        case QMetaType::Float:
            return true;
        default:
            return false;
        }
    }
    static bool isList(const QVariant& v)
    {
        return v.typeId() == QMetaType::QVariantList || v.typeId() == QMetaType::QStringList;
    }
    /// A bound or value as people write it: whole numbers in full (100000, not 1e+05).
    static QString number(double d)
    {
        if (d == std::floor(d) && std::abs(d) < 1e15)
            return QString::number(qlonglong(d));
        return QString::number(d, 'g', QLocale::FloatingPointShortest);
    }
    /// A value as conditions compare it.
    static QString valueText(const QVariant& v)
    {
        if (v.typeId() == QMetaType::Bool)
            return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        return v.toString();
    }

    QString unknownKeyMessage(const QString& key, const ParamContext& ctx) const
    {
        QStringList known = ctx.otherKeys;
        QString closest;
        int best = 3; // suggest near misses only (one or two edits)
        for (const auto& s : m_specs) {
            known << s.key;
            if (const int d = editDistance(key, s.key); d < best) {
                best = d;
                closest = s.key;
            }
        }
        const QString suggestion = closest.isEmpty() ? QString() : QStringLiteral("; did you mean \"%1\"?").arg(closest);
        const QString list = known.join(QStringLiteral(", "));
        if (ctx.keyNames == ParamContext::KeyNames::Parameter)
            return QStringLiteral("unknown parameter \"%1\"%2 (known: %3)").arg(key, suggestion, list);
        return keyName(key, ctx) +
               (ctx.owner.isEmpty() ? QStringLiteral(": unknown key") : QStringLiteral(": unknown key for %1").arg(ctx.owner)) +
               suggestion + QStringLiteral(" (known: %1)").arg(list);
    }

    /// Levenshtein distance, for "did you mean" on a mistyped key.
    static int editDistance(const QString& a, const QString& b)
    {
        std::vector<int> row(std::size_t(b.size()) + 1);
        for (std::size_t j = 0; j < row.size(); ++j)
            row[j] = int(j);
        for (qsizetype i = 1; i <= a.size(); ++i) {
            int diagonal = row[0];
            row[0] = int(i);
            for (qsizetype j = 1; j <= b.size(); ++j) {
                const int up = row[std::size_t(j)];
                row[std::size_t(j)] =
                    std::min({up + 1, row[std::size_t(j) - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
                diagonal = up;
            }
        }
        return row.back();
    }

    /// Whether @p x lies within the spec's bounds (each inclusive or exclusive).
    static bool inRange(const ParamSpec& s, double x)
    {
        return (s.exclusiveMinimum ? x > s.minimum : x >= s.minimum) &&
               (s.exclusiveMaximum ? x < s.maximum : x <= s.maximum);
    }

    /// convert() of a Columns value: a column name, an index, or a list of distinct ones; @p message
    /// is the error otherwise.
    static std::optional<QVariant> convertColumns(const QVariant& v, QString* error, const QString& message)
    {
        auto one = [](const QVariant& e) {
            if (e.typeId() == QMetaType::QString)
                return !e.toString().isEmpty();
            const double d = e.toDouble();
            return isNumber(e) && std::isfinite(d) && d == std::floor(d) && std::abs(d) <= kMaxExactInteger;
        };
        auto canonical = [](const QVariant& e) {
            return e.typeId() == QMetaType::QString ? QVariant(e.toString()) : QVariant(qlonglong(e.toDouble()));
        };
        if (isList(v)) {
            const QVariantList in = v.toList();
            bool ok = !in.isEmpty();
            QVariantList out;
            for (qsizetype i = 0; ok && i < in.size(); ++i) {
                ok = one(in[i]);
                if (ok)
                    out << canonical(in[i]);
                for (qsizetype j = 0; ok && j < i; ++j)
                    ok = out[j] != out[i];
            }
            if (ok)
                return QVariant(out);
        } else if (one(v)) {
            return canonical(v);
        }
        return fail(error, message);
    }

    /// convert() of a Seed value: a non-negative integer, or a string of decimal digits (all 64 bits);
    /// @p message is the error otherwise.
    static std::optional<QVariant> convertSeed(const QVariant& v, QString* error, const QString& message)
    {
        bool ok = false;
        qulonglong seed = 0;
        if (v.typeId() == QMetaType::QString) {
            const QString str = v.toString();
            ok = !str.isEmpty() && str.size() <= 20;
            for (QChar c : str)
                ok = ok && c.isDigit() && c.unicode() < 128;
            if (ok)
                seed = str.toULongLong(&ok);
        } else if (isNumber(v)) {
            const double d = v.toDouble();
            ok = std::isfinite(d) && d >= 0 && d == std::floor(d) && d <= kMaxExactInteger;
            seed = ok ? qulonglong(d) : 0;
        }
        if (!ok)
            return fail(error, message);
        return QVariant(seed);
    }

    /// convert() of an IntList or RealList value: its elements as given (a list, "50,20" or a range
    /// "start:step:stop"), then each checked against the spec's count and bounds.
    static std::optional<QVariant> convertList(const ParamSpec& s, const QVariant& v, QString* error,
                                               const QString& name, const QString& got, const QString& within)
    {
        const bool integers = s.type == ParamType::IntList;
        QVariantList in;
        if (v.typeId() == QMetaType::QString && !integers && v.toString().contains(QLatin1Char(':'))) {
            if (!expandRange(s, v, error, name, got, &in))
                return std::nullopt;
        } else if (v.typeId() == QMetaType::QString) {
            // "50,20" or "0.1 0.01" as typed in a form.
            const auto parts = v.toString().split(QRegularExpression("[,;\\s]+"), Qt::SkipEmptyParts);
            for (const auto& p : parts) {
                bool ok = false;
                const double d = p.toDouble(&ok);
                in << (ok ? QVariant(d) : QVariant(p));
            }
        } else if (isList(v)) {
            in = v.toList();
        } else {
            return fail(error, name + QStringLiteral(": expected a list of %1").arg(integers ? QStringLiteral("integers")
                                                                                             : QStringLiteral("numbers")) +
                                   got);
        }
        if (in.size() < s.minCount || in.size() > s.maxCount)
            return fail(error, name + QStringLiteral(": %1 has %2 values, expected %3 to %4")
                                          .arg(describe(v))
                                          .arg(in.size())
                                          .arg(s.minCount)
                                          .arg(s.maxCount));
        QVariantList out;
        for (qsizetype i = 0; i < in.size(); ++i) {
            const QVariant& e = in[i];
            const double d = e.toDouble();
            const bool ok = isNumber(e) && std::isfinite(d) && (!integers || d == std::floor(d)) && inRange(s, d);
            if (!ok)
                return fail(error, name + QStringLiteral(": element %1 (%2): expected %3%4")
                                              .arg(i)
                                              .arg(describe(e))
                                              .arg(integers ? QStringLiteral("an integer") : QStringLiteral("a number"))
                                              .arg(within));
            out << (integers ? QVariant(int(d)) : QVariant(d));
        }
        return QVariant(out);
    }

    /// convertList() of "start:step:stop" as typed in a form: the values into @p in, inclusive, each
    /// rounded to 12 significant digits (0:0.1:0.3 ends at 0.3, not 0.30000000000000004); false with
    /// @p error set when the range is malformed or gives more values than the spec allows.
    static bool expandRange(const ParamSpec& s, const QVariant& v, QString* error, const QString& name,
                            const QString& got, QVariantList* in)
    {
        const QStringList parts = v.toString().split(QLatin1Char(':'));
        bool ok[3] = {false, false, false};
        const double a = parts.value(0).trimmed().toDouble(&ok[0]), step = parts.value(1).trimmed().toDouble(&ok[1]),
                     b = parts.value(2).trimmed().toDouble(&ok[2]);
        if (parts.size() != 3 || !ok[0] || !ok[1] || !ok[2] || !std::isfinite(a) || !std::isfinite(step) ||
            !std::isfinite(b)) {
            fail(error, name + QStringLiteral(": expected a range start:step:stop of numbers") + got);
            return false;
        }
        if (!(step > 0) || b < a) {
            fail(error, name + QStringLiteral(": %1: the step must be positive and stop ≥ start").arg(describe(v)));
            return false;
        }
        const double count = std::floor((b - a) / step + 1e-9) + 1;
        if (count > s.maxCount) {
            fail(error, name + QStringLiteral(": %1 gives %2 values, expected %3 to %4")
                                   .arg(describe(v))
                                   .arg(count)
                                   .arg(s.minCount)
                                   .arg(s.maxCount));
            return false;
        }
        for (int i = 0; i < int(count); ++i)
            *in << QString::number(a + i * step, 'g', 12).toDouble();
        return true;
    }

    static std::nullopt_t fail(QString* error, const QString& msg)
    {
        if (error)
            *error = msg;
        return std::nullopt;
    }

    QList<ParamSpec> m_specs;
    Upgrader m_upgrader;
    QList<FormatChange> m_formatChanges;
};

/// Convenience accessors for normalised parameter maps.
inline QList<int> intListParam(const QVariantMap& p, const QString& key)
{
    QList<int> out;
    for (const auto& v : p.value(key).toList())
        out << v.toInt();
    return out;
}

inline QVariantMap ParamSchema::teachingPreset() const
{
    QString error;
    QVariantMap v = normalise({}, &error).value_or(QVariantMap());
    for (const ParamSpec& spec : m_specs)
        if (spec.teachingValue.isValid())
            if (const std::optional<QVariant> value = convert(spec, spec.teachingValue, nullptr))
                v.insert(spec.key, *value);
    return v;
}

} // namespace tb
