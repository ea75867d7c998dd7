#pragma once
/// @file DataKeys.h
/// Builders of data-set keys, the help texts' default and range filled in from the fields (so
/// they cannot disagree), and the keys every data source takes.

#include <trainbench/DataSourceProvider.h>

#include <QString>
#include <QStringList>
#include <QVariant>

namespace tb::data {

/// The data-set keys. Reentrant.
class DataKeys {
public:
    /// An integer in [lo, hi]; @p def invalid: no default (absent = not used, see absentText).
    static ParamSpec integer(const QString& key, const QString& label, double lo, double hi, const QVariant& def,
                             const QString& help);
    /// A finite number in [lo, hi] ((lo, hi) when @p exclusive).
    static ParamSpec real(const QString& key, const QString& label, double lo, double hi, bool exclusive,
                          const QVariant& def, const QString& help);
    static ParamSpec boolean(const QString& key, const QString& label, bool def, const QString& help);
    /// One of @p choices, shown as @p labels; @p def invalid: no default.
    static ParamSpec choice(const QString& key, const QString& label, const QStringList& choices,
                            const QStringList& labels, const QVariant& def, const QString& help);
    /// A file path (relative to the experiment file's folder).
    static ParamSpec path(const QString& key, const QString& label, bool required, const QString& filter,
                          const QString& help);
    /// A folder path.
    static ParamSpec folder(const QString& key, const QString& label, const QString& help);
    /// Column names or indices.
    static ParamSpec columns(const QString& key, const QString& label, const QString& help);
    /// A seed (absent: the caller's).
    static ParamSpec seed(const QString& key, const QString& label, const QString& help);
    /// @p spec with " Default …; range ….", "Required" … appended to its help from its fields.
    /// The builders above leave help texts bare: call it (or the schema overload) once, when the
    /// spec is complete.
    static ParamSpec finished(ParamSpec spec);
    /// Every spec of @p schema finished().
    static ParamSchema finished(const ParamSchema& schema);

    /// "classification" / "regression", as the "task" key writes them.
    static QString taskName(Task task);

    /// The keys the host handles for every source of this kind, appended to its own keys:
    /// "test_fraction" (unless the source has its own test set), "validation_fraction" (unless
    /// the spec names a validation file through the source's validationKey), "keep_classes" (sources that
    /// can be a classification), "standardise", "standardise_targets" and "min_max_scale" (that
    /// can be a regression; with a "task" key, active only for its value), "seed", and the
    /// random-features keys (RandomFeatureOption::keys()).
    static ParamSchema common(const DataSourceInfo& info);

    /// How the keys of @p info's data sets are named in messages and what their conditions
    /// may read besides their own keys (a fixed task as "task").
    static ParamContext context(const DataSourceInfo& info);
};

} // namespace tb::data
