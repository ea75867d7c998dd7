#pragma once
/// @file CsvLoader.h
/// Delimited text files (CSV, TSV, whitespace-separated), plain or gzip, with or without a header.

#include "Dataset.h"

#include <QByteArray>
#include <QHash>
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
/// Every column that is not a target (and not ignored, @ref Options::ignore) is a feature: a
/// number, or with @ref Options::categorical a category, one-hot encoded into one 0/1 column per
/// category ("name=value", categories in sorted order, from the training file: a test file is
/// encoded with the training file's categories, and its values of other categories become all
/// zeros, counted in the Report). Targets may also come from a file of their own
/// (@ref Options::targetFile, row i for row i, e.g. scikit-learn's diabetes_target.csv.gz).
/// Missing values ("", "NA", "N/A" and @ref Options::missingValues) are errors by default; with
/// @ref Options::missing they drop their row or are kept as NaN for the caller to fill
/// (fillWithTrainingMeans() in MissingValues.h). Non-numeric values in numeric columns, NaN/Inf,
/// rows with the wrong number of fields, unknown target columns, text that is not valid
/// UTF-8 in a header, a class label or a category (distinct byte strings must not collapse into
/// one class), and a header row that holds only numbers (the file has no header: set header to
/// false) are errors.
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
        /// The quote character of fields (RFC 4180 with this character); '\0': fields are never quoted.
        char quote = '"';
        /// Columns left out entirely (an id or a name column). A target cannot be ignored.
        QList<Column> ignore;
        /// One-hot encode every feature column that holds a value that is not a number (and not
        /// missing); see also categorical.
        bool categoricalAuto = false;
        /// Feature columns one-hot encoded, whatever they hold.
        QList<Column> categorical;
        /// The categories of each encoded column by its name, for a test file (the training
        /// file's, from its Report); a column without an entry takes its own sorted values.
        QHash<QString, QStringList> categories;
        /// What a missing value does.
        enum class Missing {
            Error, ///< an error naming file, line and column (the default)
            Drop,  ///< its row is left out (counted in the Report)
            Keep   ///< a feature becomes NaN (every indicator of a category), for the caller to
                   ///< fill; a missing target is still an error
        };
        Missing missing = Missing::Error;
        /// Spellings of a missing value besides "", "NA" and "N/A" (any case), e.g. "?".
        QStringList missingValues;
        /// Names of the columns of a file without a header (header false), in order; empty:
        /// "0", "1", …
        QStringList columnNames;
        /// Stripped from the end of every class label when present (adult.test writes "<=50K.").
        QString labelSuffix;
    };

    /// What a load did besides the values.
    struct Report {
        qint64 rowsDropped = 0;    ///< Missing::Drop: rows left out for a missing value
        qint64 missingKept = 0;    ///< Missing::Keep: values kept as NaN
        qint64 unseenCategories = 0; ///< values of categories the given categories lack (all-zero)
        /// The categories of every encoded column, by column name, in encoding order.
        QHash<QString, QStringList> categories;
        /// The encoded columns, in file order.
        QStringList categoricalColumns;
        /// The ignored columns, by name.
        QStringList ignoredColumns;
    };

    /// Loads @p path (and options.targetFile). Throws DataError on any problem. @p report, when
    /// given, receives what the options did.
    static Dataset load(const QString& path, const Options& options, Report* report = nullptr);

    /// Parses the bytes of one file named @p name in messages; options.targetFile is ignored (the
    /// targets must be columns of @p bytes). For tests and fuzzing. Throws DataError.
    static Dataset parse(const QByteArray& bytes, const QString& name, const Options& options, Report* report = nullptr);

    /// The first @p maxRows records of @p path as text fields, after options.skipRows, the header
    /// row (when options.header) being the first; for previews of a file before its options are
    /// right. Reads at most @p maxBytes of the (decompressed) file. Throws DataError when the file
    /// cannot be read; a malformed record ends the preview (it is not an error here).
    static QList<QStringList> previewRows(const QString& path, const Options& options, int maxRows = 8,
                                          qint64 maxBytes = qint64(1) << 20);
};

} // namespace tb::data
