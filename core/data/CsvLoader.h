#pragma once
/// @file CsvLoader.h
/// Delimited text files (CSV, TSV, whitespace-separated), plain or gzip, with or without a header.

#include "Dataset.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace tb::data {

/// Reader of delimited text files such as scikit-learn ships them.
///
/// Layout: @ref Options::skipRows lines are skipped (e.g. the "150,4,setosa,…" count row of
/// scikit-learn's raw files); then, with @ref Options::header, a row of column names, else the
/// columns are named by their 0-based position ("0", "1", …); then one record per row. Fields
/// are separated by @ref Options::delimiter, or by runs of spaces and tabs (delimiter ' ', as
/// numpy.loadtxt reads). Fields may be quoted with '"' (delimiters, line breaks and doubled quotes
/// "" inside quotes, RFC 4180); unquoted fields are trimmed of spaces and tabs; CRLF and LF line
/// ends; a UTF-8 byte-order mark is skipped; blank lines are skipped. A gzip file is recognised by
/// its first two bytes and decompressed (DataFile::readAll()).
///
/// Every column that is not a target is a numeric feature. Targets may also come from a file of
/// their own (@ref Options::targetFile, row i for row i, e.g. scikit-learn's diabetes_target.csv.gz).
/// Missing values (empty, "NA", "N/A") are errors, never imputed; so are non-numeric values,
/// NaN/Inf, rows with the wrong number of fields, unknown target columns, text that is not valid
/// UTF-8 in a header or a class label (distinct byte strings must not collapse into one class),
/// and a header row that holds only numbers (the file has no header: set header to false).
/// Lines are counted from 1 in the file as it is, skipped lines included; a record that spans
/// lines is reported at the line where it starts. Every problem throws DataError (file, line,
/// column name as key, value). Memory for the values is checked (MemoryBudget) before it is
/// allocated. Reentrant.
class CsvLoader {
public:
    /// A column chosen by its header name, or by its 0-based position (negative counts from the
    /// end: −1 is the last column).
    struct Column {
        QString name;
        int index = 0;
        bool byIndex = false;
        Column(const QString& n) : name(n) {} // NOLINT: a name reads naturally where a Column is expected
        Column(const char* n) : name(QString::fromUtf8(n)) {}
        Column(int i) : index(i), byIndex(true) {}
        /// "'species'" or "column 4", for messages.
        QString describe() const;
        bool operator==(const Column& o) const = default;
    };

    struct Options {
        /// Target column(s): one for classification, ≥ 1 for regression. With targetFile they
        /// choose columns of that file (empty: all of its columns); without it they must be given.
        QList<Column> targets;
        tb::Task task = tb::Task::Classification;
        /// Classification: when non-empty, labels are mapped through these names (a test file
        /// mapped through the training set's classes) and an unseen label is an error. When
        /// empty, the classes are the sorted unique labels (numerically when all are numbers).
        QStringList classNames;
        char delimiter = ','; ///< field separator (',' ';' '\t' '|' …); ' ' = runs of spaces and tabs
        bool header = true;   ///< the first row (after skipRows) names the columns
        int skipRows = 0;     ///< lines skipped at the start of the file, ≥ 0
        /// A file whose rows hold the targets of the data file's rows, read with the same
        /// delimiter, header and skipRows; empty: the targets are columns of the data file.
        QString targetFile;
    };

    /// Loads @p path (and options.targetFile). Throws DataError on any problem.
    static Dataset load(const QString& path, const Options& options);

    /// Parses the bytes of one file named @p name in messages; options.targetFile is ignored (the
    /// targets must be columns of @p bytes). For tests and fuzzing. Throws DataError.
    static Dataset parse(const QByteArray& bytes, const QString& name, const Options& options);

    /// The first @p maxRows records of @p path as text fields, after options.skipRows, the header
    /// row (when options.header) being the first; for previews of a file before its options are
    /// right. Reads at most @p maxBytes of the (decompressed) file. Throws DataError when the file
    /// cannot be read; a malformed record ends the preview (it is not an error here).
    static QList<QStringList> previewRows(const QString& path, const Options& options, int maxRows = 8,
                                          qint64 maxBytes = qint64(1) << 20);
};

} // namespace tb::data
