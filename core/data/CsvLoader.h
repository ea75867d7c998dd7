#pragma once
/// @file CsvLoader.h
/// Comma-separated text files with a header row (RFC 4180 quoting).

#include "Dataset.h"

#include <QString>
#include <QStringList>

namespace tb::data {

/// Reader of CSV files: first row is the header; fields may be quoted with '"' (commas, line
/// breaks and doubled quotes "" inside quotes); unquoted fields are trimmed of spaces and tabs;
/// CRLF and LF line ends; a UTF-8 byte-order mark is skipped; blank lines are skipped.
///
/// Every column that is not a target is a numeric feature. Missing values (empty, "NA", "N/A")
/// are errors, never imputed; so are non-numeric values, NaN/Inf, rows with the wrong number of
/// fields and unknown target columns. Lines are counted from 1, the header being line 1; a
/// record that spans lines is reported at the line where it starts.
/// Every problem throws DataError (file, line, column name as key, value). Reentrant.
class CsvLoader {
public:
    struct Options {
        QStringList targets;           ///< target column name(s); one for classification, ≥ 1 for regression
        tb::Task task = tb::Task::Classification;
        /// Classification: when non-empty, labels are mapped through these names (a test file
        /// mapped through the training set's classes) and an unseen label is an error. When
        /// empty, the classes are the sorted unique labels (numerically when all are numbers).
        QStringList classNames;
        char delimiter = ',';          ///< field separator (',' or e.g. ';' or '\t')
    };

    /// Loads @p path. Throws DataError on any problem.
    static Dataset load(const QString& path, const Options& options);
};

} // namespace tb::data
