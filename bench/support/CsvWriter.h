#pragma once
/// @file CsvWriter.h
/// A benchmark's results as a CSV file.

#include <QFile>
#include <QString>
#include <QStringList>

namespace tb::bench {

/// Writes a header and rows to a CSV file (RFC 4180 quoting where a cell needs it). Every
/// failure throws std::runtime_error naming the file and the reason; nothing fails silently.
/// Not thread-safe.
class CsvWriter {
public:
    /// Creates (or truncates) @p path and writes @p header.
    CsvWriter(const QString& path, const QStringList& header);
    ~CsvWriter();
    CsvWriter(const CsvWriter&) = delete;
    CsvWriter& operator=(const CsvWriter&) = delete;

    /// Appends one row; it must have as many cells as the header.
    void addRow(const QStringList& cells);
    /// Flushes and closes the file (the destructor closes too, but cannot report a failure).
    void close();

    /// @p v with @p decimals decimals ("nan" for NaN): the cells' usual number format.
    static QString fixed(double v, int decimals);
    /// @p v with @p digits significant digits (printf's %g).
    static QString general(double v, int digits = 6);

private:
    void write(const QStringList& cells);

    QFile m_file;
    qsizetype m_columns;
};

} // namespace tb::bench
