#pragma once
/// @file ParamSpec.h
/// One key of a schema: its type, default, range, help, and when it applies. The same type
/// describes an algorithm's parameters, a data source's keys and an experiment file's keys
/// (ParamSchema), so that every form, every check and every listing is built from one
/// declaration.

#include <QMap>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <limits>

namespace tb {

/// The value types a key can take. The GUI builds one editor per type.
enum class ParamType {
    Int,      ///< integer, stored as qlonglong
    Real,     ///< floating point, stored as double
    Bool,     ///< true / false
    Choice,   ///< one string of a fixed list
    IntList,  ///< list of integers, e.g. hidden-layer sizes "50,20"
    Text,     ///< free text (a name, a description), stored as QString
    Path,     ///< a file; relative paths resolve against the experiment file's folder (QString)
    Folder,   ///< a folder; relative as Path (QString)
    Columns,  ///< a column name (string) or 0-based index (integer; negative counts from the end,
              ///< −1 = last), or a non-empty list of distinct ones; stored as given (QString,
              ///< qlonglong or QVariantList of them)
    Seed,     ///< a non-negative 64-bit integer, or a string of decimal digits (for seeds ≥ 2^53);
              ///< stored as qulonglong
    RealList  ///< list of finite numbers, e.g. noise levels; stored as QVariantList of double; typed as
              ///< "0, 0.1, 0.5" or as a range "start:step:stop" (inclusive)
};

/// When a key applies: the value of another key of the same object (or of the context a
/// caller adds, e.g. a data set's task). With no @ref values: when @ref key is given at all.
/// @ref negate turns the condition around ("unless"). Values compare as text (true/false for
/// booleans).
struct ParamCondition {
    QString key;
    QStringList values;
    bool negate = false;

    /// "random_features is not \"none\"", "test_file is given" … for messages and help.
    QString text() const
    {
        if (values.isEmpty())
            return QStringLiteral("%1 is %2").arg(key, negate ? QStringLiteral("not given") : QStringLiteral("given"));
        QStringList q;
        for (const QString& v : values)
            q << QLatin1Char('"') + v + QLatin1Char('"');
        return QStringLiteral("%1 is %2%3")
            .arg(key, negate ? QStringLiteral("not ") : QString(),
                 q.size() == 1 ? q.first() : QStringLiteral("one of ") + q.join(QStringLiteral(", ")));
    }
};

/// How a tuned comparison draws a parameter's values (ParamSpec::search): uniform or log-uniform
/// in [low, high] (reals), uniform or log-uniform integers in [low, high], or one of a list of
/// choices. A plugin declares it for the parameters worth tuning (its default search space); an
/// experiment may replace it per algorithm ("search": {"lr": {"log_uniform": [1e-4, 0.1]}}).
struct SearchSpace {
    enum class Kind { None, Uniform, LogUniform, Integer, LogInteger, Choice };
    Kind kind = Kind::None;
    double low = 0;       ///< Uniform … LogInteger: the interval's ends (> 0 for the log kinds)
    double high = 0;
    QVariantList choices; ///< Choice: the values, each one the parameter can take

    bool isSet() const { return kind != Kind::None; }
    static SearchSpace uniform(double lo, double hi) { return {Kind::Uniform, lo, hi, {}}; }
    static SearchSpace logUniform(double lo, double hi) { return {Kind::LogUniform, lo, hi, {}}; }
    static SearchSpace integer(double lo, double hi) { return {Kind::Integer, lo, hi, {}}; }
    static SearchSpace logInteger(double lo, double hi) { return {Kind::LogInteger, lo, hi, {}}; }
    static SearchSpace choice(const QVariantList& values) { return {Kind::Choice, 0, 0, values}; }
    /// The JSON key of @p k in an experiment's "search": "uniform", "log_uniform", "integer",
    /// "log_integer", "choice"; empty for None.
    static QString kindName(Kind k)
    {
        switch (k) {
        case Kind::None: break;
        case Kind::Uniform: return QStringLiteral("uniform");
        case Kind::LogUniform: return QStringLiteral("log_uniform");
        case Kind::Integer: return QStringLiteral("integer");
        case Kind::LogInteger: return QStringLiteral("log_integer");
        case Kind::Choice: return QStringLiteral("choice");
        }
        return {};
    }
};

/// Describes one key. A schema is a list of these.
///
/// Build them with the static helpers, which fill the help text's default and range:
/// @code
/// tb::ParamSpec::real("lambda", "Ridge λ", 0.0, 0.0, 1e6, "Ridge term added to the Gram diagonal.", true)
/// @endcode
struct ParamSpec {
    QString key;          ///< identifier used in experiment files, [a-z_][a-z0-9_]*
    QString label;        ///< short human name for forms
    ParamType type = ParamType::Real;
    /// The value used when the key is absent. Invalid (a default-constructed QVariant) when
    /// absence means "not used" (a file not given, a limit not set; see absentText) or the
    /// value is found at run time.
    QVariant defaultValue;
    double minimum = -std::numeric_limits<double>::infinity();  ///< Int/Real/IntList/RealList elements
    double maximum = std::numeric_limits<double>::infinity();
    bool exclusiveMinimum = false; ///< Real: minimum itself is outside the range
    bool exclusiveMaximum = false; ///< Real: maximum itself is outside the range
    QStringList choices;  ///< Choice only
    QStringList choiceLabels; ///< Choice only: the same, for people (same order); may be empty
    bool logScale = false; ///< Real only: the GUI offers a log slider
    int minCount = 0;      ///< IntList/RealList only: fewest elements
    int maxCount = 64;     ///< IntList/RealList only: most elements
    QString help;          ///< one sentence; default and range are appended by the helpers
    bool required = false;  ///< the key must be given (there is no default)
    QString requiredUnless; ///< required unless this other key is given
    /// The key applies only when every condition holds: given otherwise it is an error, and
    /// its default is not filled in. Forms hide it.
    QList<ParamCondition> activeWhen;
    /// What absence of an optional key without default means, for forms ("all"). A field of an
    /// experiment kind's section (ExperimentKind::sectionSchema()) with a default and this set:
    /// the default stands for the key left out, and the form does not write it.
    QString absentText;
    QString fileFilter;  ///< Path: file-dialog filter, e.g. "CSV files (*.csv *.csv.gz)"
    /// Former keys of this parameter, still accepted in experiment files with a deprecation
    /// note (ParamSchema::upgrade()); never shown in forms.
    QStringList aliases;
    /// Choice only: former spellings of choices (e.g. "per-neuron" → "per_neuron"), accepted
    /// with a deprecation note.
    QMap<QString, QString> choiceAliases;
    /// How a tuned comparison draws it by default; unset: not tuned unless an experiment says so.
    SearchSpace search;
    /// The value for a live classroom demonstration (a few hundred points in 2-D, trained over
    /// seconds while people watch: the workbench's teaching view and its "Use suggested
    /// settings"); invalid: the default suits that too. Declared by the plugin, so the
    /// workbench never names a plugin's keys (ParamSchema::teachingPreset()).
    QVariant teachingValue;

    /// This spec, searched by a tuned comparison as @p space (see search).
    ParamSpec searched(const SearchSpace& space) const
    {
        ParamSpec p = *this;
        p.search = space;
        return p;
    }

    /// This spec with @p value for demonstrations (see teachingValue).
    ParamSpec teaching(const QVariant& value) const
    {
        ParamSpec p = *this;
        p.teachingValue = value;
        return p;
    }

    /// This spec with a former key added (see aliases).
    ParamSpec withAlias(const QString& oldKey) const
    {
        ParamSpec p = *this;
        p.aliases << oldKey;
        return p;
    }
    /// This spec, applying only when @p key has one of @p values (see activeWhen).
    ParamSpec activeWhenIn(const QString& onKey, const QStringList& values) const
    {
        ParamSpec p = *this;
        p.activeWhen << ParamCondition{onKey, values, false};
        return p;
    }
    /// This spec, applying only when @p key has none of @p values (or, with no values, is not given).
    ParamSpec activeUnless(const QString& onKey, const QStringList& values = {}) const
    {
        ParamSpec p = *this;
        p.activeWhen << ParamCondition{onKey, values, true};
        return p;
    }
    /// This spec, required (see required / requiredUnless).
    ParamSpec requiredKey(const QString& unlessKey = QString()) const
    {
        ParamSpec p = *this;
        if (unlessKey.isEmpty())
            p.required = true;
        else
            p.requiredUnless = unlessKey;
        return p;
    }
    /// This spec with a text for its absence (see absentText).
    ParamSpec absentMeans(const QString& text) const
    {
        ParamSpec p = *this;
        p.absentText = text;
        return p;
    }
    /// This spec with labels for its choices (see choiceLabels).
    ParamSpec withChoiceLabels(const QStringList& labels) const
    {
        ParamSpec p = *this;
        p.choiceLabels = labels;
        return p;
    }
    /// The label shown for choice @p value (its choiceLabels entry, else the value).
    QString choiceLabel(const QString& value) const
    {
        const qsizetype i = choices.indexOf(value);
        return i >= 0 && i < choiceLabels.size() ? choiceLabels[i] : value;
    }

    /// This spec with former spellings of its choices (see choiceAliases).
    ParamSpec withChoiceAliases(const QMap<QString, QString>& old) const
    {
        ParamSpec p = *this;
        for (auto it = old.begin(); it != old.end(); ++it)
            p.choiceAliases.insert(it.key(), it.value());
        return p;
    }

    /// Fields common to every type; the typed helpers below fill the rest.
    static ParamSpec make(const QString& key, const QString& label, ParamType type, const QVariant& def,
                          double lo = -std::numeric_limits<double>::infinity(),
                          double hi = std::numeric_limits<double>::infinity())
    {
        ParamSpec p;
        p.key = key;
        p.label = label;
        p.type = type;
        p.defaultValue = def;
        p.minimum = lo;
        p.maximum = hi;
        return p;
    }
    static ParamSpec integer(const QString& key, const QString& label, qlonglong def, qlonglong lo,
                             qlonglong hi, const QString& help)
    {
        ParamSpec p = make(key, label, ParamType::Int, QVariant(def), double(lo), double(hi));
        p.help = help + QStringLiteral(" Default %1, range [%2, %3].").arg(def).arg(lo).arg(hi);
        return p;
    }
    static ParamSpec real(const QString& key, const QString& label, double def, double lo, double hi,
                          const QString& help, bool logScale = false)
    {
        ParamSpec p = make(key, label, ParamType::Real, QVariant(def), lo, hi);
        p.logScale = logScale;
        p.help = help + QStringLiteral(" Default %1, range [%2, %3]%4.")
                            .arg(def).arg(lo).arg(hi)
                            .arg(logScale ? QStringLiteral(", log scale") : QString());
        return p;
    }
    static ParamSpec boolean(const QString& key, const QString& label, bool def, const QString& help)
    {
        ParamSpec p = make(key, label, ParamType::Bool, QVariant(def));
        p.help = help + QStringLiteral(" Default %1.").arg(def ? "on" : "off");
        return p;
    }
    static ParamSpec choice(const QString& key, const QString& label, const QStringList& choices,
                            const QString& def, const QString& help)
    {
        ParamSpec p = make(key, label, ParamType::Choice, QVariant(def));
        p.choices = choices;
        p.help = help + QStringLiteral(" Default %1; one of %2.").arg(def, choices.join(", "));
        return p;
    }
    static ParamSpec intList(const QString& key, const QString& label, const QList<int>& def,
                             int minCount, int maxCount, qlonglong lo, qlonglong hi,
                             const QString& help)
    {
        QVariantList dv;
        QStringList ds;
        for (int v : def) {
            dv << v;
            ds << QString::number(v);
        }
        ParamSpec p = make(key, label, ParamType::IntList, QVariant(dv), double(lo), double(hi));
        p.minCount = minCount;
        p.maxCount = maxCount;
        p.help = help + QStringLiteral(" Default [%1]; %2 to %3 values, each in [%4, %5].")
                            .arg(ds.join(", ")).arg(minCount).arg(maxCount).arg(lo).arg(hi);
        return p;
    }
    /// A list of finite numbers (e.g. noise levels), each in [lo, hi].
    static ParamSpec realList(const QString& key, const QString& label, const QVariantList& def, int minCount,
                              int maxCount, double lo, double hi, const QString& help)
    {
        ParamSpec p = make(key, label, ParamType::RealList, QVariant(def), lo, hi);
        p.minCount = minCount;
        p.maxCount = maxCount;
        p.help = help;
        return p;
    }
    /// Free text; @p def may be empty (absent = not used).
    static ParamSpec text(const QString& key, const QString& label, const QString& def, const QString& help)
    {
        ParamSpec p = make(key, label, ParamType::Text, def.isNull() ? QVariant() : QVariant(def));
        p.help = help;
        return p;
    }
    /// A file (@p folder false) or folder path, optional unless marked required.
    static ParamSpec path(const QString& key, const QString& label, const QString& fileFilter, const QString& help,
                          bool folder = false)
    {
        ParamSpec p = make(key, label, folder ? ParamType::Folder : ParamType::Path, QVariant());
        p.fileFilter = fileFilter;
        p.help = help;
        return p;
    }
    /// Columns of a table (see ParamType::Columns); no default.
    static ParamSpec columns(const QString& key, const QString& label, const QString& help)
    {
        ParamSpec p = make(key, label, ParamType::Columns, QVariant());
        p.help = help;
        return p;
    }
    /// A seed (see ParamType::Seed); no default (absent: the caller's seed).
    static ParamSpec seed(const QString& key, const QString& label, const QString& help)
    {
        ParamSpec p = make(key, label, ParamType::Seed, QVariant());
        p.help = help;
        return p;
    }
};

/// Name of a ParamType as used in JSON and messages.
inline QString paramTypeName(ParamType t)
{
    switch (t) {
    case ParamType::Int: return QStringLiteral("int");
    case ParamType::Real: return QStringLiteral("real");
    case ParamType::Bool: return QStringLiteral("bool");
    case ParamType::Choice: return QStringLiteral("choice");
    case ParamType::IntList: return QStringLiteral("int list");
    case ParamType::Text: return QStringLiteral("text");
    case ParamType::Path: return QStringLiteral("path");
    case ParamType::Folder: return QStringLiteral("folder");
    case ParamType::Columns: return QStringLiteral("columns");
    case ParamType::Seed: return QStringLiteral("seed");
    case ParamType::RealList: return QStringLiteral("real list");
    }
    return QStringLiteral("?");
}

} // namespace tb
