#pragma once
/// @file TextTable.h
/// A small table rendered as aligned text, CSV, Markdown or LaTeX (`trainbench-cli compare`).

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace tb {

/// Rows of cells under a header. Cells are plain text; each renderer escapes what its format
/// needs. A value type; not thread-safe for concurrent modification.
class TextTable {
public:
    enum class Format { Text, Csv, Markdown, Latex };
    enum class Align { Left, Right };

    explicit TextTable(QStringList header = {});

    /// The format named "text", "csv", "markdown" (or "md") or "latex"; nullopt otherwise.
    static std::optional<Format> formatFromName(const QString& name);

    void setTitle(const QString& title) { m_title = title; }
    QString title() const { return m_title; }
    /// Right-aligns column @p column (numbers); columns are left-aligned by default.
    void setAlign(int column, Align align);
    /// Appends a row; shorter rows are padded with empty cells.
    void addRow(const QStringList& cells);
    /// A line under the table (e.g. what the markers mean); rendered as a comment in CSV.
    void addNote(const QString& note) { m_notes << note; }

    int rowCount() const { return int(m_rows.size()); }
    const QStringList& header() const { return m_header; }
    const QList<QStringList>& rows() const { return m_rows; }
    const QStringList& notes() const { return m_notes; }

    /// The whole table in @p format, ending with a newline:
    ///  - Text: the title, columns padded to their widest cell, two spaces apart, notes below;
    ///  - Csv: RFC 4180 quoting, header first, the title and notes as "# " lines;
    ///  - Markdown: a GitHub pipe table ('|' escaped), title in bold, notes as paragraphs;
    ///  - Latex: a booktabs tabular (\\toprule …), special characters escaped, "±" as $\\pm$,
    ///    title and notes as % comments.
    QString render(Format format) const;

private:
    QString m_title;
    QStringList m_header;
    QList<QStringList> m_rows;
    QList<Align> m_align;
    QStringList m_notes;
};

} // namespace tb
