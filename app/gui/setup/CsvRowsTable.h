#pragma once
/// @file CsvRowsTable.h
/// The Data set panel's CSV preview: the first rows of a CSV file as its reading options read
/// them, the header and the target columns marked.

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QTableWidget>

namespace tb::gui {

/// A read-only table of the first records of a "csv" source's file as the delimiter, skip_rows and
/// header options read them: the header row bold, target columns light orange. It shows while the
/// file cannot be loaded yet too, so that the options can be set by looking. read() runs off the
/// GUI thread (the panel reads the rows with its preview load); showRows() on it. Hidden until rows
/// are shown. GUI thread only, except read().
class CsvRowsTable : public QTableWidget {
    Q_OBJECT
public:
    /// What read() found. A plain value type.
    struct Rows {
        bool read = false;        ///< a CSV file: the rows below were read
        QList<QStringList> rows;  ///< the file's first records, as the options read them
        bool header = false;      ///< rows[0] is the header
        QList<int> targetColumns; ///< columns of rows marked as targets
        QString error;            ///< why no rows could be read (the load's error says it too)
    };

    explicit CsvRowsTable(QWidget* parent = nullptr);

    /// The first records of the file of the "csv" source @p spec (its "file" relative to
    /// @p baseDir) as the spec's "delimiter", "header" and "skip_rows" read them, and its "target"
    /// columns (names, or positions with −1 for the last). Nothing for another source. Reentrant.
    static Rows read(const QJsonObject& spec, const QString& baseDir);

    /// Shows @p rows; visible when rows were read or could not be, else hidden and empty.
    void showRows(const Rows& rows);
};

} // namespace tb::gui
