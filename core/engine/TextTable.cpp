#include "TextTable.h"

#include <algorithm>

namespace tb {
namespace {

QString csvField(QString s)
{
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')))
        return QLatin1Char('"') + s.replace(QLatin1String("\""), QLatin1String("\"\"")) + QLatin1Char('"');
    return s;
}

QString latexEscape(const QString& s)
{
    QString out;
    for (const QChar c : s) {
        switch (c.unicode()) {
        case '\\': out += QStringLiteral("\\textbackslash{}"); break;
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
            out += QLatin1Char('\\') + c;
            break;
        case '~': out += QStringLiteral("\\textasciitilde{}"); break;
        case '^': out += QStringLiteral("\\textasciicircum{}"); break;
        case 0x00B1: out += QStringLiteral("$\\pm$"); break;          // ±
        case 0x25B2: out += QStringLiteral("$\\blacktriangle$"); break; // ▲ (amssymb)
        case 0x25BC: out += QStringLiteral("$\\blacktriangledown$"); break; // ▼
        case 0x00D7: out += QStringLiteral("$\\times$"); break;       // ×
        case 0x2212: out += QStringLiteral("$-$"); break;             // −
        case 0x2264: out += QStringLiteral("$\\leq$"); break;         // ≤
        case 0x2265: out += QStringLiteral("$\\geq$"); break;         // ≥
        case 0x00B7: out += QStringLiteral("$\\cdot$"); break;        // ·
        case 0x03C3: out += QStringLiteral("$\\sigma$"); break;       // σ
        case 0x03B5: out += QStringLiteral("$\\varepsilon$"); break;  // ε
        default: out += c;
        }
    }
    return out;
}

QString markdownEscape(QString s)
{
    return s.replace(QLatin1Char('|'), QStringLiteral("\\|"));
}

} // namespace

TextTable::TextTable(QStringList header) : m_header(std::move(header))
{
    m_align = QList<Align>(m_header.size(), Align::Left);
}

std::optional<TextTable::Format> TextTable::formatFromName(const QString& name)
{
    const QString n = name.toLower();
    if (n == QLatin1String("text") || n == QLatin1String("txt"))
        return Format::Text;
    if (n == QLatin1String("csv"))
        return Format::Csv;
    if (n == QLatin1String("markdown") || n == QLatin1String("md"))
        return Format::Markdown;
    if (n == QLatin1String("latex") || n == QLatin1String("tex"))
        return Format::Latex;
    return std::nullopt;
}

void TextTable::setAlign(int column, Align align)
{
    if (column >= m_align.size())
        m_align.resize(column + 1, Align::Left);
    m_align[column] = align;
}

void TextTable::addRow(const QStringList& cells)
{
    QStringList row = cells;
    while (row.size() < m_header.size())
        row << QString();
    m_rows << row;
}

QString TextTable::render(Format format) const
{
    const int cols = int(std::max<qsizetype>(m_header.size(), m_rows.isEmpty() ? 0 : std::max_element(m_rows.begin(), m_rows.end(),
        [](const QStringList& a, const QStringList& b) { return a.size() < b.size(); })->size()));
    // Text pads cells (markers line up); the other formats are read by programs: trimmed.
    auto cell = [&](const QStringList& row, int c) {
        const QString v = c < row.size() ? row[c] : QString();
        return format == Format::Text ? v : v.trimmed();
    };
    auto align = [&](int c) { return c < m_align.size() ? m_align[c] : Align::Left; };
    QString out;
    switch (format) {
    case Format::Text: {
        QList<int> width(cols, 0);
        for (int c = 0; c < cols; ++c) {
            width[c] = int(cell(m_header, c).size());
            for (const auto& r : m_rows)
                width[c] = std::max(width[c], int(cell(r, c).size()));
        }
        auto line = [&](const QStringList& r) {
            QStringList parts;
            for (int c = 0; c < cols; ++c)
                parts << (align(c) == Align::Right ? cell(r, c).rightJustified(width[c]) : cell(r, c).leftJustified(width[c]));
            return parts.join(QStringLiteral("  ")).trimmed() + QLatin1Char('\n');
        };
        if (!m_title.isEmpty())
            out += m_title + QLatin1Char('\n');
        out += line(m_header);
        int total = 0;
        for (int c = 0; c < cols; ++c)
            total += width[c] + (c ? 2 : 0);
        out += QString(total, QLatin1Char('-')) + QLatin1Char('\n');
        for (const auto& r : m_rows)
            out += line(r);
        for (const auto& n : m_notes)
            out += n + QLatin1Char('\n');
        break;
    }
    case Format::Csv: {
        if (!m_title.isEmpty())
            out += QStringLiteral("# ") + m_title + QLatin1Char('\n');
        auto line = [&](const QStringList& r) {
            QStringList parts;
            for (int c = 0; c < cols; ++c)
                parts << csvField(cell(r, c));
            return parts.join(QLatin1Char(',')) + QLatin1Char('\n');
        };
        out += line(m_header);
        for (const auto& r : m_rows)
            out += line(r);
        for (const auto& n : m_notes)
            out += QStringLiteral("# ") + n + QLatin1Char('\n');
        break;
    }
    case Format::Markdown: {
        if (!m_title.isEmpty())
            out += QStringLiteral("**") + markdownEscape(m_title) + QStringLiteral("**\n\n");
        auto line = [&](const QStringList& r) {
            QStringList parts;
            for (int c = 0; c < cols; ++c)
                parts << markdownEscape(cell(r, c));
            return QStringLiteral("| ") + parts.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
        };
        out += line(m_header);
        QStringList rule;
        for (int c = 0; c < cols; ++c)
            rule << (align(c) == Align::Right ? QStringLiteral("---:") : QStringLiteral("---"));
        out += QStringLiteral("|") + rule.join(QLatin1Char('|')) + QStringLiteral("|\n");
        for (const auto& r : m_rows)
            out += line(r);
        for (const auto& n : m_notes)
            out += QLatin1Char('\n') + markdownEscape(n) + QLatin1Char('\n');
        break;
    }
    case Format::Latex: {
        if (!m_title.isEmpty())
            out += QStringLiteral("% ") + m_title + QLatin1Char('\n');
        QString spec;
        for (int c = 0; c < cols; ++c)
            spec += align(c) == Align::Right ? QLatin1Char('r') : QLatin1Char('l');
        out += QStringLiteral("\\begin{tabular}{") + spec + QStringLiteral("}\n\\toprule\n");
        auto line = [&](const QStringList& r) {
            QStringList parts;
            for (int c = 0; c < cols; ++c)
                parts << latexEscape(cell(r, c));
            return parts.join(QStringLiteral(" & ")) + QStringLiteral(" \\\\\n");
        };
        out += line(m_header) + QStringLiteral("\\midrule\n");
        for (const auto& r : m_rows)
            out += line(r);
        out += QStringLiteral("\\bottomrule\n\\end{tabular}\n");
        for (const auto& n : m_notes)
            out += QStringLiteral("% ") + n + QLatin1Char('\n');
        break;
    }
    }
    return out;
}

} // namespace tb
