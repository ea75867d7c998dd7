#pragma once
/// @file XlsxReader.h
/// The cells of one worksheet of an Office Open XML workbook (.xlsx), as CSV text.

#include <QByteArray>
#include <QString>

namespace tb::data {

/// Reads a worksheet of an .xlsx workbook (a zip of XML parts, ECMA-376): numbers, shared and
/// inline strings and booleans; formulas give their cached value. Enough for the tables UCI
/// publishes as spreadsheets (CCPP), not a spreadsheet engine: dates stay serial numbers.
/// Throws DataError naming @p name (and the part) for a workbook it cannot read. Reentrant.
class XlsxReader {
public:
    /// Worksheet @p sheet (1-based: xl/worksheets/sheetN.xml) of the workbook in @p xlsx as CSV
    /// text: one line per row, fields separated by commas, text quoted with '"'. Empty cells
    /// between filled ones are empty fields; rows are padded to the widest.
    static QByteArray sheetAsCsv(const QByteArray& xlsx, const QString& name, int sheet = 1);
};

} // namespace tb::data
