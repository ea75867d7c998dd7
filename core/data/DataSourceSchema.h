#pragma once
/// @file DataSourceSchema.h
/// Every data source and the keys of its "dataset" object, declared once.

#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>
#include <limits>

namespace tb::data {

/// One key of a data source's "dataset" object: what it holds, its default and range, and a
/// help text stating both. DataSource validates specs against these, `trainbench-cli list
/// --json` prints them, and the GUI's data-set panel builds its form from them: no data-source
/// name, key or default is written anywhere else.
struct DataParam {
    enum class Kind {
        Int,     ///< integer in [minimum, maximum]
        Real,    ///< finite number in [minimum, maximum] (bounds exclusive when flagged)
        Bool,    ///< true or false
        Choice,  ///< one of choices (strings, as written in the file)
        Path,    ///< a file; relative paths resolve against the experiment file's folder
        Folder,  ///< a folder; relative as Path
        Columns, ///< a column name (string) or 0-based index (integer; negative counts from the
                 ///< end, −1 = last), or a non-empty list of distinct ones
        Seed     ///< a non-negative integer, or a string of decimal digits (for seeds ≥ 2^53)
    };
    QString key;
    QString label; ///< short, for forms
    Kind kind = Kind::Real;
    bool required = false;
    /// Required unless this other key is given (e.g. "test_fraction" unless "test_file").
    QString requiredUnless;
    /// The value used when the key is absent; Undefined when absence means "not used" (a file
    /// not given, a limit not set) or the default is found at run time (see help).
    QJsonValue defaultValue = QJsonValue(QJsonValue::Undefined);
    double minimum = -std::numeric_limits<double>::infinity();
    double maximum = std::numeric_limits<double>::infinity();
    bool exclusiveMinimum = false;
    bool exclusiveMaximum = false;
    QStringList choices;      ///< Choice: the values
    QStringList choiceLabels; ///< Choice: the same, for people (same order)
    QString help;             ///< one or two sentences; states the default and the range
    QString fileFilter;       ///< Path: file-dialog filter, e.g. "CSV files (*.csv *.csv.gz)"
    /// What an absent optional key without a default means, for forms ("all", "from the file").
    QString absentText;
    bool regressionOnly = false; ///< only meaningful when the data set's task is regression

    /// Empty when @p v is a valid value of this key (type and range; the rules between keys
    /// are DataSource::validate()'s), else what is wrong, e.g. `expected a number ≥ 0, got "x"`.
    QString check(const QJsonValue& v) const;
    /// The range as text ("≥ 0", "between 0 and 1 (exclusive)", "1 to 256"), empty if none.
    QString rangeText() const;
};

/// One "source" of the "dataset" object.
struct DataSourceInfo {
    QString id;          ///< the value of "source", e.g. "moons"
    QString label;       ///< for people, e.g. "Two moons (2-D)"
    QString description; ///< one sentence
    /// The task a spec of this source yields: "classification", "regression", or empty when
    /// the spec's "task" key decides.
    QString task;
    QString noiseKey;        ///< the key a noise sweep varies ("sigma", "noise"), empty if none
    QList<DataParam> params; ///< every key but "source", in form order; the common ones last

    /// The parameter @p key, or nullptr.
    const DataParam* param(const QString& key) const;
};

/// The data sources and their keys. Reentrant; the tables are built once, thread-safely.
class DataSourceSchema {
public:
    /// Every source, in the order forms list them.
    static const QList<DataSourceInfo>& sources();
    /// The source @p id, or nullptr.
    static const DataSourceInfo* source(const QString& id);
    /// The source ids, in order.
    static QStringList ids();
    /// "int", "real", "bool", "choice", "path", "folder", "columns", "seed".
    static QString kindName(DataParam::Kind kind);
    /// The whole schema as JSON (for `trainbench-cli list --json` and tools).
    static QJsonValue toJson();
};

} // namespace tb::data
