#pragma once
/// @file ParamSpec.h
/// One parameter of an algorithm: its key, type, default, range and help.

#include <QMap>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <limits>

namespace tb {

/// The value types a parameter can take. The GUI builds one editor per type.
enum class ParamType {
    Int,     ///< integer, stored as qlonglong
    Real,    ///< floating point, stored as double
    Bool,    ///< true / false
    Choice,  ///< one string of a fixed list
    IntList, ///< list of integers, e.g. hidden-layer sizes "50,20"
    RealList ///< list of numbers, e.g. a ladder of tolerances "0.1, 0.01"
};

/// Describes one parameter. A schema is a list of these.
///
/// Build them with the static helpers, which fill the help text's default and range:
/// @code
/// tb::ParamSpec::real("lambda", "Ridge λ", 0.0, 0.0, 1e6, "Ridge term added to the Gram diagonal.", true)
/// @endcode
struct ParamSpec {
    QString key;          ///< identifier used in experiment files, [a-z_][a-z0-9_]*
    QString label;        ///< short human name for forms
    ParamType type = ParamType::Real;
    QVariant defaultValue;
    double minimum = -std::numeric_limits<double>::infinity();  ///< Int/Real/list elements
    double maximum = std::numeric_limits<double>::infinity();
    QStringList choices;  ///< Choice only
    bool logScale = false; ///< Real only: the GUI offers a log slider
    int minCount = 0;      ///< IntList/RealList only: fewest elements
    int maxCount = 64;     ///< IntList/RealList only: most elements
    QString help;          ///< one sentence; default and range are appended by the helpers
    /// Former keys of this parameter, still accepted in experiment files with a deprecation
    /// note (ParamSchema::upgrade()); never shown in forms.
    QStringList aliases;
    /// Choice only: former spellings of choices (e.g. "per-neuron" → "per_neuron"), accepted
    /// with a deprecation note.
    QMap<QString, QString> choiceAliases;

    /// This spec with a former key added (see aliases).
    ParamSpec withAlias(const QString& oldKey) const
    {
        ParamSpec p = *this;
        p.aliases << oldKey;
        return p;
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
    /// A list of finite numbers (e.g. a ladder of tolerances), each in [@p lo, @p hi], @p minCount
    /// to @p maxCount of them. An order among the elements is the trainer's to check.
    static ParamSpec realList(const QString& key, const QString& label, const QVariantList& def, int minCount,
                              int maxCount, double lo, double hi, const QString& help)
    {
        QStringList ds;
        for (const QVariant& v : def)
            ds << QString::number(v.toDouble());
        ParamSpec p = make(key, label, ParamType::RealList, QVariant(def), lo, hi);
        p.minCount = minCount;
        p.maxCount = maxCount;
        p.help = help + QStringLiteral(" Default [%1]; %2 to %3 values, each in [%4, %5].")
                            .arg(ds.join(", ")).arg(minCount).arg(maxCount).arg(lo).arg(hi);
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
    case ParamType::RealList: return QStringLiteral("real list");
    }
    return QStringLiteral("?");
}

} // namespace tb
