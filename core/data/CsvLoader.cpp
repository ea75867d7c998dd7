#include "CsvLoader.h"

#include "DataError.h"
#include "DataFile.h"
#include "MemoryBudget.h"
#include "TextParsing.h"

#include <QFileInfo>
#include <QHash>

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tb::data {
namespace {

using detail::NumberStatus;

/// RFC 4180 record reader over an in-memory file. Tracks 1-based physical lines. A delimiter
/// of ' ' separates fields by runs of spaces and tabs (leading and trailing ones ignored).
class CsvReader {
public:
    CsvReader(const QByteArray& data, const QString& path, char delimiter, char quote = '"')
        : m_p(data.constData()), m_end(data.constData() + data.size()), m_path(path), m_delim(delimiter), m_quote(quote),
          m_blanks(delimiter == ' ')
    {
        // UTF-8 byte-order mark, as written by some spreadsheet programs.
        if (m_end - m_p >= 3 && quint8(m_p[0]) == 0xef && quint8(m_p[1]) == 0xbb && quint8(m_p[2]) == 0xbf)
            m_p += 3;
    }

    /// Skips @p n physical lines; returns how many there were (fewer at the end of the file).
    int skipLines(int n)
    {
        int skipped = 0;
        while (skipped < n && m_p < m_end) {
            while (m_p < m_end && *m_p != '\n')
                ++m_p;
            if (m_p < m_end)
                ++m_p;
            ++m_line;
            ++skipped;
        }
        return skipped;
    }

    /// Reads the next non-blank record into @p fields; false at the end of the file.
    bool next(std::vector<std::string>& fields, qint64& startLine)
    {
        for (;;) {
            if (m_p == m_end)
                return false;
            startLine = m_line;
            fields.clear();
            if (m_blanks) {
                skipBlanks();
                if (atLineEnd()) {
                    endLine();
                    continue; // blank line
                }
                for (;;) {
                    std::string field;
                    bool quoted = false;
                    readField(field, quoted, startLine);
                    fields.push_back(std::move(field));
                    skipBlanks();
                    if (atLineEnd()) {
                        endLine();
                        break;
                    }
                }
                return true;
            }
            bool anyQuoted = false;
            for (;;) {
                std::string field;
                bool quoted = false;
                readField(field, quoted, startLine);
                anyQuoted = anyQuoted || quoted;
                fields.push_back(std::move(field));
                if (m_p < m_end && *m_p == m_delim) {
                    ++m_p;
                    continue;
                }
                endLine();
                break;
            }
            if (fields.size() == 1 && fields[0].empty() && !anyQuoted)
                continue; // blank line
            return true;
        }
    }

    qint64 line() const { return m_line; }

private:
    bool isDelim(char c) const { return m_blanks ? (c == ' ' || c == '\t') : c == m_delim; }
    bool atLineEnd() const { return m_p == m_end || *m_p == '\n' || *m_p == '\r'; }
    void skipBlanks()
    {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t'))
            ++m_p;
    }

    void endLine()
    {
        if (m_p < m_end && *m_p == '\r')
            ++m_p;
        if (m_p < m_end && *m_p == '\n')
            ++m_p;
        ++m_line;
    }

    void readField(std::string& out, bool& quoted, qint64 startLine)
    {
        const char* start = m_p;
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t') && !isDelim(*m_p))
            ++m_p;
        if (m_quote != '\0' && m_p < m_end && *m_p == m_quote) {
            quoted = true;
            const qint64 quoteLine = m_line;
            ++m_p;
            for (;;) {
                if (m_p == m_end)
                    throw DataError::atLine(
                        m_path, quoteLine, {}, {},
                        QStringLiteral("quoted field never closes (missing %1); the record "
                                       "starts on line %2")
                            .arg(QStringLiteral("'%1'").arg(QLatin1Char(m_quote)))
                            .arg(startLine));
                const char c = *m_p++;
                if (c == m_quote) {
                    if (m_p < m_end && *m_p == m_quote) {
                        out.push_back(m_quote);
                        ++m_p;
                        continue;
                    }
                    break;
                }
                if (c == '\n')
                    ++m_line;
                out.push_back(c);
            }
            if (!m_blanks)
                while (m_p < m_end && (*m_p == ' ' || *m_p == '\t') && !isDelim(*m_p))
                    ++m_p;
            if (m_p < m_end && !isDelim(*m_p) && *m_p != '\n' && *m_p != '\r') {
                const char* bad = m_p;
                while (m_p < m_end && !isDelim(*m_p) && *m_p != '\n' && *m_p != '\r')
                    ++m_p;
                throw DataError::atLine(
                    m_path, m_line, {}, QString::fromUtf8(bad, qsizetype(m_p - bad)),
                    QStringLiteral("unexpected text %1 after the closing quote of %2 "
                                   "(quotes inside a quoted field are written twice, %3%3)")
                        .arg(detail::quoted(std::string_view(bad, std::size_t(m_p - bad))),
                             detail::quoted(out), QString(QLatin1Char(m_quote))));
            }
            return;
        }
        m_p = start;
        while (m_p < m_end && !isDelim(*m_p) && *m_p != '\n' && *m_p != '\r')
            ++m_p;
        out.assign(detail::trimmed(std::string_view(start, std::size_t(m_p - start))));
    }

    const char* m_p;
    const char* m_end;
    QString m_path;
    char m_delim;
    char m_quote;
    bool m_blanks;
    qint64 m_line = 1;
};

QString sv(const std::string& s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

/// Appends to a vector whose growth an input decides, checking the memory of each reallocation.
template <typename T> void pushChecked(std::vector<T>& v, T value, const QString& path)
{
    if (v.size() == v.capacity()) {
        const std::size_t next = std::max<std::size_t>(1024, v.capacity() * 2);
        MemoryBudget::require(MemoryBudget::bytesOf(next, 1, sizeof(T)),
                              QStringLiteral("reading the values (%1 so far)").arg(v.size()), path);
        v.reserve(next);
    }
    v.push_back(std::move(value));
}

enum class Role {
    Split,    ///< the targets are columns of this file; the other columns are features
    Features, ///< every column is a feature (the targets are in another file)
    Targets   ///< a target file: the chosen columns (all when none are chosen) are targets
};

/// One parsed file: its column names and the values of its feature and target columns.
struct Table {
    QString path;
    QStringList names; ///< every column: the header's names, or "0", "1", …
    bool header = false;
    qint64 headerLine = 0;
    char delimiter = ',';
    char quote = '"';
    qint64 firstLine = 0;  ///< the line of the first record (the header, or the first data row)
    std::string onlyField; ///< the first record's field, when it has only one (formatHint())
    std::vector<int> featureCols;    ///< in file order
    std::vector<bool> categorical;   ///< per featureCols: one-hot encoded
    std::vector<int> targetCols;
    std::vector<double> xs;          ///< row-major rows × numeric feature columns (NaN: missing, kept)
    std::vector<int> codes;          ///< row-major rows × categorical feature columns; −1: missing, kept
    std::vector<QStringList> values; ///< per categorical column: its values, in first-seen order
    std::vector<double> ys;          ///< row-major rows × targetCols (regression)
    std::vector<std::string> labels; ///< classification: raw label of each row
    std::vector<qint64> lines;       ///< classification: line of each row
    std::size_t rows = 0;
    qint64 dropped = 0;
    qint64 kept = 0;
    QStringList ignored;

    std::size_t numericCount() const { return std::size_t(std::count(categorical.begin(), categorical.end(), false)); }
    std::size_t categoricalCount() const { return categorical.size() - numericCount(); }

    /// A hint when the header looks like scikit-learn's count row ("150,4,setosa,…").
    QString countRowHint() const
    {
        if (!header || names.isEmpty())
            return {};
        double v = 0;
        const QByteArray first = names.first().toUtf8();
        if (detail::parseNumber(std::string_view(first.constData(), std::size_t(first.size())), v) !=
            NumberStatus::Ok)
            return {};
        return QStringLiteral(" (line %1, read as the header, starts with the number %2: a count row as "
                              "scikit-learn's raw files have? \"skip_rows\": 1 skips it)")
            .arg(headerLine)
            .arg(names.first());
    }

    /// A hint when the names look read with another delimiter or quote than the file's: the first
    /// record is one column holding another delimiter (a ';' file read with ','), or every column
    /// name is wrapped in a quote character other than the one set.
    QString formatHint() const
    {
        if (names.size() == 1) {
            struct Candidate {
                char c;
                const char* json;
            };
            static constexpr Candidate kCandidates[] = {{',', ","}, {';', ";"}, {'\t', "\\t"}, {'|', "|"}};
            const Candidate* best = nullptr;
            std::ptrdiff_t most = 0;
            for (const Candidate& k : kCandidates) {
                const std::ptrdiff_t n = std::count(onlyField.begin(), onlyField.end(), k.c);
                if (k.c != delimiter && n > most) {
                    most = n;
                    best = &k;
                }
            }
            if (best)
                return QStringLiteral(" (line %1 reads as one column, %2, which holds %3 × '%4': "
                                      "\"delimiter\": \"%4\" splits it into %5 columns)")
                    .arg(firstLine)
                    .arg(detail::quoted(onlyField.substr(0, 60) + (onlyField.size() > 60 ? "…" : "")))
                    .arg(most)
                    .arg(QString::fromLatin1(best->json))
                    .arg(most + 1);
        }
        if (!header || names.isEmpty())
            return {};
        for (const char q : {'"', '\''}) {
            if (q == quote)
                continue;
            const bool everyNameQuoted = std::all_of(names.begin(), names.end(), [q](const QString& n) {
                return n.size() >= 2 && n.front() == QLatin1Char(q) && n.back() == QLatin1Char(q);
            });
            if (everyNameQuoted)
                return QStringLiteral(" (every column name on line %1 is in %2 quotes, as %3: \"quote\": \"%4\" "
                                      "reads them without)")
                    .arg(headerLine)
                    .arg(q == '"' ? QStringLiteral("double") : QStringLiteral("single"))
                    .arg(detail::printable(names.first()))
                    .arg(q == '"' ? QStringLiteral("\\\"") : QStringLiteral("'"));
        }
        return {};
    }

    /// What the names suggest is wrong with the options (countRowHint(), formatHint()).
    QString hints() const { return countRowHint() + formatHint(); }
};

QString describeColumns(const QStringList& names)
{
    QStringList shown;
    for (const QString& n : names.mid(0, 40))
        shown << detail::printable(n);
    if (names.size() > 40)
        shown << QStringLiteral("… (%1 in all)").arg(names.size());
    return shown.join(QStringLiteral(", "));
}

int resolveColumn(const Table& t, const CsvLoader::Column& c, qint64 line, const QString& role = QStringLiteral("target"))
{
    const int width = int(t.names.size());
    if (c.byIndex) {
        const int i = c.index < 0 ? width + c.index : c.index;
        if (i < 0 || i >= width)
            throw DataError::atLine(
                t.path, line, QString::number(c.index), QString::number(c.index),
                QStringLiteral("%1 column %2 is outside the file's %3 columns (0 to %4, or "
                               "-1 for the last)%5")
                    .arg(role)
                    .arg(c.index)
                    .arg(width)
                    .arg(width - 1)
                    .arg(t.hints()));
        return i;
    }
    const int i = int(t.names.indexOf(c.name));
    if (i < 0) {
        QString hint = t.hints();
        if (!t.header)
            hint +=
                QStringLiteral(" (the file is read without a header, so its columns are named 0 to %1; give "
                               "the column as a number)")
                    .arg(width - 1);
        throw DataError::atLine(t.path, line, c.name, c.name,
                                QStringLiteral("%1 column '%2' not found; columns are: %3%4")
                                    .arg(role, detail::printable(c.name), describeColumns(t.names), hint));
    }
    return i;
}

/// A record and the line it starts on.
struct Record {
    std::vector<std::string> fields;
    qint64 line = 0;
};

/// Which columns are targets and which are ignored, per column of the file.
struct ColumnRoles {
    std::vector<bool> isTarget, isIgnored;
};

/// The missing-value rule: the standard spellings (detail::isMissing) and the file's own.
class MissingValues {
public:
    explicit MissingValues(const QStringList& extra)
    {
        for (const QString& m : extra)
            m_extra.insert(m.toStdString());
    }
    bool operator()(const std::string& f) const { return detail::isMissing(f) || m_extra.count(f) > 0; }

private:
    std::unordered_set<std::string> m_extra;
};

/// One data row as read, before it is stored (or dropped for a missing value).
struct ParsedRow {
    bool drop = false;
    qint64 keptMissing = 0;          ///< missing features kept (NaN, or no category)
    std::vector<double> numbers;     ///< the numeric features, in file order
    std::vector<QString> categories; ///< the categorical features; null: missing
    std::vector<double> targets;     ///< regression (or a target file's) targets
    std::string label;               ///< classification: the label

    /// Empty again, keeping the storage (a row's vectors are reused for the next one).
    void clear()
    {
        drop = false;
        keptMissing = 0;
        numbers.clear();
        categories.clear();
        targets.clear();
        label.clear();
    }
};

/// The first record (the header, or the first data row); throws naming what is missing.
Record firstRecord(CsvReader& reader, const QString& path, const CsvLoader::Options& o)
{
    const int skipped = reader.skipLines(o.skipRows);
    Record r;
    if (!reader.next(r.fields, r.line)) {
        if (o.skipRows > 0)
            throw DataError::inFile(path,
                                    QStringLiteral("nothing left after skipping %1 line(s) (skip_rows %2)")
                                        .arg(skipped)
                                        .arg(o.skipRows));
        throw DataError::inFile(path, o.header ? QStringLiteral("empty file: no header row")
                                               : QStringLiteral("empty file: no data rows"));
    }
    return r;
}

/// The column names from the header row @p h: valid UTF-8, not empty, each once.
void readHeader(Table& t, const Record& h)
{
    const QString& path = t.path;
    const qint64 line = h.line;
    const std::size_t width = h.fields.size();
    t.headerLine = line;
    // A "header" of numbers is data (or a count row): say so before complaining about its names.
    bool allNumbers = true;
    for (const std::string& f : h.fields) {
        double v = 0;
        allNumbers = allNumbers && detail::parseNumber(detail::trimmed(f), v) == NumberStatus::Ok;
    }
    if (allNumbers) {
        QStringList shown;
        for (std::size_t c = 0; c < std::min<std::size_t>(width, 6); ++c)
            shown << detail::printable(h.fields[c]);
        throw DataError::atLine(
            path, line, {}, {},
            QStringLiteral("the header row holds only numbers (%1): it looks like data. If the "
                           "file has no header, set \"header\": false (columns are then named "
                           "0, 1, 2, …); if it starts with a count row, set \"skip_rows\"")
                .arg(shown.join(QStringLiteral(", "))));
    }
    QHash<QString, int> columnOf;
    for (std::size_t c = 0; c < width; ++c) {
        const std::string& f = h.fields[c];
        if (const qsizetype bad = detail::utf8ErrorOffset(f); bad >= 0)
            throw DataError::atLine(
                path, line, {}, detail::printable(f),
                QStringLiteral("header: the name of column %1, %2, is not valid UTF-8 (byte %3); "
                               "save the file as UTF-8")
                    .arg(c + 1)
                    .arg(detail::quoted(f))
                    .arg(bad + 1));
        const QString name = sv(f);
        if (name.isEmpty())
            throw DataError::atLine(path, line, {}, {},
                                    QStringLiteral("header: column %1 has an empty name").arg(c + 1));
        if (columnOf.contains(name))
            throw DataError::atLine(
                path, line, name, name,
                QStringLiteral("header: column name '%1' appears twice (columns %2 and %3)")
                    .arg(detail::printable(name))
                    .arg(columnOf.value(name) + 1)
                    .arg(c + 1));
        columnOf.insert(name, int(c));
        t.names << name;
    }
}

/// Without a header: the given column names, else "0", "1", … for the width of the first row @p r.
void nameColumns(Table& t, const CsvLoader::Options& o, const Record& r)
{
    const std::size_t width = r.fields.size();
    if (!o.columnNames.isEmpty() && std::size_t(o.columnNames.size()) != width)
        throw DataError::atLine(
            t.path, r.line, {}, QString::number(width),
            QStringLiteral("%1 column names are given for a file whose first row has %2 fields")
                .arg(o.columnNames.size())
                .arg(width));
    for (std::size_t c = 0; c < width; ++c)
        t.names << (o.columnNames.isEmpty() ? QString::number(c) : o.columnNames[qsizetype(c)]);
}

/// The ignored, target and feature columns of @p role, by the options; @p namesLine is where the
/// names are (the header, or the first row), @p line the first record's.
ColumnRoles assignColumns(Table& t, const CsvLoader::Options& o, Role role, qint64 namesLine, qint64 line)
{
    const QString& path = t.path;
    const std::size_t width = std::size_t(t.names.size());
    ColumnRoles roles{std::vector<bool>(width, false), std::vector<bool>(width, false)};
    for (const CsvLoader::Column& c : o.ignore) {
        const int i = resolveColumn(t, c, namesLine, QStringLiteral("ignored"));
        roles.isIgnored[std::size_t(i)] = true;
    }
    if (role == Role::Targets && o.targets.isEmpty()) {
        for (std::size_t c = 0; c < width; ++c)
            if (!roles.isIgnored[c])
                t.targetCols.push_back(int(c));
    } else if (role != Role::Features) {
        if (o.targets.isEmpty())
            throw DataError::inFile(
                path,
                QStringLiteral("no target column given; columns are: %1%2").arg(describeColumns(t.names), t.hints()));
        for (const CsvLoader::Column& c : o.targets) {
            const int i = resolveColumn(t, c, namesLine);
            if (roles.isTarget[std::size_t(i)])
                throw DataError::atLine(path, line, c.describe(), c.describe(),
                                        QStringLiteral("target column %1 given twice").arg(c.describe()));
            if (roles.isIgnored[std::size_t(i)])
                throw DataError::atLine(path, namesLine, c.describe(), c.describe(),
                                        QStringLiteral("target column %1 is also ignored").arg(c.describe()));
            roles.isTarget[std::size_t(i)] = true;
            t.targetCols.push_back(i);
        }
    }
    for (std::size_t c = 0; c < width; ++c) {
        if (roles.isIgnored[c])
            t.ignored << t.names[qsizetype(c)];
        else if (!roles.isTarget[c] && role != Role::Targets)
            t.featureCols.push_back(int(c));
    }
    for (int c : t.targetCols)
        roles.isTarget[std::size_t(c)] = true;
    if (role == Role::Split && t.featureCols.empty())
        throw DataError::inFile(path, QStringLiteral("no feature columns: every column is a target or ignored%1").arg(t.hints()));
    if (o.task == tb::Task::Classification && role != Role::Features && t.targetCols.size() != 1)
        throw DataError::inFile(path,
                                QStringLiteral("classification needs exactly one target column, got %1 (%2)")
                                    .arg(t.targetCols.size())
                                    .arg(describeColumns([&] {
                                        QStringList n;
                                        for (int c : t.targetCols)
                                            n << t.names[c];
                                        return n;
                                    }())));
    return roles;
}

/// Which features are categories: those named, those the given categories name, and with
/// categoricalAuto every one holding a value that is neither a number nor missing (a pass of its
/// own over the file, so that the main pass knows each column's kind from its first row).
void markCategorical(Table& t, const QByteArray& data, const CsvLoader::Options& o, const ColumnRoles& roles,
                     qint64 namesLine, const MissingValues& isMissing)
{
    t.categorical.assign(t.featureCols.size(), false);
    std::vector<bool> named(std::size_t(t.names.size()), false);
    for (const CsvLoader::Column& c : o.categorical) {
        const int i = resolveColumn(t, c, namesLine, QStringLiteral("categorical"));
        if (roles.isTarget[std::size_t(i)] || roles.isIgnored[std::size_t(i)])
            throw DataError::atLine(t.path, namesLine, c.describe(), c.describe(),
                                    QStringLiteral("categorical column %1 is %2, not a feature")
                                        .arg(c.describe(), roles.isTarget[std::size_t(i)]
                                                               ? QStringLiteral("a target")
                                                               : QStringLiteral("ignored")));
        named[std::size_t(i)] = true;
    }
    for (std::size_t k = 0; k < t.featureCols.size(); ++k) {
        const int c = t.featureCols[k];
        t.categorical[k] = named[std::size_t(c)] || o.categories.contains(t.names[c]);
    }
    if (!o.categoricalAuto)
        return;
    CsvReader scan(data, t.path, o.delimiter, o.quote);
    scan.skipLines(o.skipRows);
    std::vector<std::string> row;
    qint64 at = 0;
    if (o.header)
        scan.next(row, at);
    try {
        while (scan.next(row, at)) {
            if (row.size() != std::size_t(t.names.size()))
                continue; // the main pass reports it
            for (std::size_t k = 0; k < t.featureCols.size(); ++k) {
                if (t.categorical[k])
                    continue;
                const std::string& f = row[std::size_t(t.featureCols[k])];
                double v = 0;
                if (!isMissing(f) && detail::parseNumber(f, v) == NumberStatus::NotANumber)
                    t.categorical[k] = true;
            }
        }
    } catch (const DataError&) {
        // A malformed record: the main pass reports it with its line.
    }
}

/// The error of a missing value (@p what: "missing value", "missing target", "missing label") in
/// column @p col of line @p line, saying what the "missing" option could do instead.
DataError missingError(const Table& t, const CsvLoader::Options& o, qint64 line, std::size_t col,
                       const std::string& f, const QString& what)
{
    return DataError::atLine(
        t.path, line, t.names[qsizetype(col)], sv(f),
        QStringLiteral("column '%1': %2 %3%4")
            .arg(detail::printable(t.names[qsizetype(col)]), what, detail::quoted(f),
                 o.missing == CsvLoader::Options::Missing::Keep
                     ? QStringLiteral(" (a target cannot be filled: give \"missing\": \"drop\" "
                                      "to leave such rows out)")
                     : QStringLiteral(" (\"missing\": \"drop\" leaves such rows out, "
                                      "\"fill_mean\" fills features with the training mean)")));
}

/// The number in column @p col of the record, or an error naming the column and the problem.
double numberAt(const Table& t, const Record& r, std::size_t col)
{
    const std::string& f = r.fields[col];
    double v = 0;
    const NumberStatus st = detail::parseNumber(f, v);
    if (st != NumberStatus::Ok)
        throw DataError::atLine(
            t.path, r.line, t.names[qsizetype(col)], detail::printable(f),
            QStringLiteral("column '%1': %2")
                .arg(detail::printable(t.names[qsizetype(col)]), detail::numberProblem(st, f)));
    return v;
}

/// The features of record @p r into @p row: numbers, categories (valid UTF-8), and missing values
/// by the "missing" option (an error, a dropped row, or kept as NaN / no category).
void readFeatures(const Table& t, const CsvLoader::Options& o, const MissingValues& isMissing,
                  const Record& r, ParsedRow& row)
{
    for (std::size_t k = 0; k < t.featureCols.size() && !row.drop; ++k) {
        const std::size_t c = std::size_t(t.featureCols[k]);
        const std::string& f = r.fields[c];
        if (isMissing(f)) {
            if (o.missing == CsvLoader::Options::Missing::Error)
                throw missingError(t, o, r.line, c, f, QStringLiteral("missing value"));
            if (o.missing == CsvLoader::Options::Missing::Drop) {
                row.drop = true;
                break;
            }
            ++row.keptMissing;
            if (t.categorical[k])
                row.categories.emplace_back();
            else
                row.numbers.push_back(std::numeric_limits<double>::quiet_NaN());
            continue;
        }
        if (t.categorical[k]) {
            if (const qsizetype bad = detail::utf8ErrorOffset(f); bad >= 0)
                throw DataError::atLine(
                    t.path, r.line, t.names[qsizetype(c)], detail::printable(f),
                    QStringLiteral("column '%1': category %2 is not valid UTF-8 text (byte %3); "
                                   "save the file as UTF-8")
                        .arg(detail::printable(t.names[qsizetype(c)]), detail::quoted(f))
                        .arg(bad + 1));
            row.categories.push_back(sv(f));
        } else {
            row.numbers.push_back(numberAt(t, r, c));
        }
    }
}

/// The numeric targets of record @p r into @p row; a missing one drops the row or is an error.
void readTargets(const Table& t, const CsvLoader::Options& o, const MissingValues& isMissing, const Record& r,
                 ParsedRow& row)
{
    for (int c : t.targetCols) {
        const std::string& f = r.fields[std::size_t(c)];
        if (isMissing(f)) {
            if (o.missing != CsvLoader::Options::Missing::Drop)
                throw missingError(t, o, r.line, std::size_t(c), f, QStringLiteral("missing target"));
            row.drop = true;
            break;
        }
        row.targets.push_back(numberAt(t, r, std::size_t(c)));
    }
}

/// The class label of record @p r into @p row: the label suffix taken off, valid UTF-8; a missing
/// one drops the row or is an error.
void readLabel(const Table& t, const CsvLoader::Options& o, const MissingValues& isMissing, const Record& r,
               ParsedRow& row)
{
    const std::size_t tc = std::size_t(t.targetCols[0]);
    std::string& label = row.label;
    label = r.fields[tc];
    const QString column = detail::printable(t.names[qsizetype(tc)]);
    if (!o.labelSuffix.isEmpty()) {
        const std::string suffix = o.labelSuffix.toStdString();
        if (label.size() > suffix.size() &&
            label.compare(label.size() - suffix.size(), suffix.size(), suffix) == 0)
            label.resize(label.size() - suffix.size());
    }
    if (isMissing(label)) {
        if (o.missing != CsvLoader::Options::Missing::Drop)
            throw missingError(t, o, r.line, tc, label, QStringLiteral("missing label"));
        row.drop = true;
    } else if (const qsizetype bad = detail::utf8ErrorOffset(label); bad >= 0) {
        throw DataError::atLine(
            t.path, r.line, t.names[qsizetype(tc)], detail::printable(label),
            QStringLiteral("column '%1': label %2 is not valid UTF-8 text (byte %3); labels "
                           "that differ only in such bytes would be one class. Save the "
                           "file as UTF-8")
                .arg(column, detail::quoted(label))
                .arg(bad + 1));
    }
}

/// Appends @p row to @p t: its numbers, its categories' codes (each new value gets the next code
/// of its column, @p codeOf), its targets, and with @p labelled its label and line.
void storeRow(Table& t, const ParsedRow& row, qint64 line, bool labelled,
              std::vector<QHash<QString, int>>& codeOf)
{
    t.kept += row.keptMissing;
    for (double v : row.numbers)
        pushChecked(t.xs, v, t.path);
    for (std::size_t j = 0; j < row.categories.size(); ++j) {
        int code = -1;
        if (!row.categories[j].isNull()) {
            const auto it = codeOf[j].constFind(row.categories[j]);
            if (it != codeOf[j].constEnd()) {
                code = *it;
            } else {
                code = int(t.values[j].size());
                codeOf[j].insert(row.categories[j], code);
                t.values[j] << row.categories[j];
            }
        }
        pushChecked(t.codes, code, t.path);
    }
    for (double v : row.targets)
        pushChecked(t.ys, v, t.path);
    if (labelled) {
        pushChecked(t.labels, row.label, t.path);
        pushChecked(t.lines, line, t.path);
    }
    ++t.rows;
}

/// The data rows from @p r on (the first data row, when the file has no header, is @p r itself).
void readRows(Table& t, CsvReader& reader, const CsvLoader::Options& o, Role role, Record r, bool pending,
              const MissingValues& isMissing)
{
    const std::size_t width = std::size_t(t.names.size());
    const bool labelled = o.task == tb::Task::Classification && role != Role::Features;
    t.values.resize(t.categoricalCount());
    std::vector<QHash<QString, int>> codeOf(t.categoricalCount());
    ParsedRow row;
    bool first = true;
    while (pending || reader.next(r.fields, r.line)) {
        pending = false;
        if (r.fields.size() != width)
            throw DataError::atLine(
                t.path, r.line, {}, QString::number(r.fields.size()),
                QStringLiteral("expected %1 fields (as in %2), got %3%4")
                    .arg(width)
                    .arg(o.header ? QStringLiteral("the header") : QStringLiteral("the first row"))
                    .arg(r.fields.size())
                    .arg(first ? t.countRowHint() : QString()));
        first = false;
        row.clear();
        readFeatures(t, o, isMissing, r, row);
        if (!row.drop && !labelled)
            readTargets(t, o, isMissing, r, row);
        else if (!row.drop)
            readLabel(t, o, isMissing, r, row);
        if (row.drop) {
            ++t.dropped;
            continue;
        }
        storeRow(t, row, r.line, labelled, codeOf);
    }
}

/// A file that is not text: a NUL byte in its first 64 KiB (as git and grep decide), refused before
/// any line of it is quoted — a line of a binary file is no use in a message and its escaped bytes
/// would fill the screen.
void refuseBinary(const QByteArray& data, const QString& path)
{
    const qsizetype scanned = std::min<qsizetype>(data.size(), 64 * 1024);
    const qsizetype at = QByteArrayView(data.constData(), scanned).indexOf('\0');
    if (at < 0)
        return;
    const qint64 line = 1 + QByteArrayView(data.constData(), at).count('\n');
    throw DataError::atOffset(path, at, {}, {},
                              QStringLiteral("not a text file (a NUL byte, on line %1); a CSV source reads text "
                                             "(images in IDX files take the \"idx\" source, LIBSVM files \"libsvm\")")
                                  .arg(line));
}

Table readTable(const QByteArray& data, const QString& path, const CsvLoader::Options& o, Role role)
{
    if (o.skipRows < 0)
        throw DataError::inFile(path, QStringLiteral("skip_rows %1 is negative").arg(o.skipRows));
    refuseBinary(data, path);
    Table t;
    t.path = path;
    t.header = o.header;
    CsvReader reader(data, path, o.delimiter, o.quote);
    Record first = firstRecord(reader, path, o);
    t.delimiter = o.delimiter;
    t.quote = o.quote;
    t.firstLine = first.line;
    if (first.fields.size() == 1)
        t.onlyField = first.fields.front();
    if (o.header)
        readHeader(t, first);
    else
        nameColumns(t, o, first);
    const qint64 namesLine = t.header ? t.headerLine : first.line;
    const ColumnRoles roles = assignColumns(t, o, role, namesLine, first.line);
    const MissingValues isMissing(o.missingValues);
    markCategorical(t, data, o, roles, namesLine, isMissing);
    // Without a header the first record is the first data row.
    readRows(t, reader, o, role, std::move(first), !o.header, isMissing);
    if (t.rows == 0)
        throw DataError::inFile(path, t.dropped > 0 ? QStringLiteral("no data rows left: all %1 have a missing value").arg(t.dropped)
                                      : o.header    ? QStringLiteral("no data rows after the header")
                                                    : QStringLiteral("no data rows"));
    return t;
}

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// How the categorical columns become one-hot columns.
struct CategoryEncoding {
    /// Each categorical column's categories: the given ones (a test file encoded as its training
    /// file), else its own values in sorted order.
    std::vector<QStringList> categories;
    std::vector<std::vector<int>> remap; ///< [column][code]: the value's category, −1 unseen
    QStringList names;                   ///< the categorical columns' names
    std::size_t width = 0;               ///< input columns: the numeric ones and every category
};

CategoryEncoding encodeCategories(const Table& features, const CsvLoader::Options& o)
{
    const std::size_t nCat = features.categoricalCount();
    CategoryEncoding e;
    e.categories.resize(nCat);
    e.remap.resize(nCat);
    e.width = features.numericCount();
    std::size_t j = 0;
    for (std::size_t k = 0; k < features.featureCols.size(); ++k) {
        if (!features.categorical[k])
            continue;
        const QString name = features.names[features.featureCols[k]];
        e.names << name;
        e.categories[j] = o.categories.contains(name) ? o.categories.value(name)
                                                      : detail::sortedLabelNames(features.values[j]);
        for (const QString& v : features.values[j])
            e.remap[j].push_back(int(e.categories[j].indexOf(v)));
        e.width += std::size_t(e.categories[j].size());
        ++j;
    }
    return e;
}

/// The input matrix and the feature names: numeric columns as read, each categorical column as
/// its one-hot columns ("name=category"; NaN for a missing value). Returns how many values were
/// of no given category (their one-hot columns stay zero).
qint64 fillInputs(Dataset& out, const Table& features, const CategoryEncoding& e)
{
    const std::size_t n = features.rows;
    const std::size_t nNum = features.numericCount(), nCat = features.categoricalCount();
    if (nCat == 0) {
        for (int c : features.featureCols)
            out.featureNames << features.names[c];
        out.x = Eigen::Map<const RowMajor>(features.xs.data(), Eigen::Index(n), Eigen::Index(e.width));
        return 0;
    }
    std::size_t j = 0;
    for (std::size_t k = 0; k < features.featureCols.size(); ++k) {
        const QString name = features.names[features.featureCols[k]];
        if (!features.categorical[k]) {
            out.featureNames << name;
            continue;
        }
        for (const QString& c : e.categories[j])
            out.featureNames << name + QLatin1Char('=') + c;
        ++j;
    }
    qint64 unseen = 0;
    out.x.resize(Eigen::Index(n), Eigen::Index(e.width));
    for (std::size_t i = 0; i < n; ++i) {
        Eigen::Index col = 0;
        std::size_t ni = 0, ci = 0;
        for (std::size_t k = 0; k < features.featureCols.size(); ++k) {
            if (!features.categorical[k]) {
                out.x(Eigen::Index(i), col++) = features.xs[i * nNum + ni++];
                continue;
            }
            const Eigen::Index width = Eigen::Index(e.categories[ci].size());
            const int code = features.codes[i * nCat + ci];
            if (code < 0) {
                out.x.row(Eigen::Index(i))
                    .segment(col, width)
                    .setConstant(std::numeric_limits<double>::quiet_NaN());
            } else {
                out.x.row(Eigen::Index(i)).segment(col, width).setZero();
                const int category = e.remap[ci][std::size_t(code)];
                if (category >= 0)
                    out.x(Eigen::Index(i), col + category) = 1.0;
                else
                    ++unseen;
            }
            col += width;
            ++ci;
        }
    }
    return unseen;
}

/// The class names and one-hot targets of @p targets' labels: the given classes (every label must
/// be one of them), else the labels' own in sorted order, so that the class index does not depend
/// on row order.
void fillClasses(Dataset& out, const Table& targets, const CsvLoader::Options& o)
{
    const std::size_t n = targets.rows;
    QHash<QString, int> given;
    for (int i = 0; i < o.classNames.size(); ++i)
        given.insert(o.classNames[i], i);
    std::vector<int> labels(n);
    const QString column = targets.names.value(targets.targetCols.front());
    if (!given.isEmpty()) {
        for (std::size_t i = 0; i < n; ++i) {
            const QString name = sv(targets.labels[i]);
            const auto it = given.constFind(name);
            if (it == given.constEnd())
                throw DataError::atLine(targets.path, targets.lines[i], column, name,
                                        QStringLiteral("column '%1': label %2 is not one of the training "
                                                       "classes (%3)")
                                            .arg(detail::printable(column), detail::quoted(name),
                                                 detail::printable(o.classNames.join(", "))));
            labels[i] = *it;
        }
        out.classNames = o.classNames;
    } else {
        std::unordered_map<std::string, int> seen;
        for (std::size_t i = 0; i < n; ++i) {
            const auto [it, inserted] = seen.try_emplace(targets.labels[i], int(seen.size()));
            labels[i] = it->second;
        }
        QStringList names;
        std::vector<QString> byIndex(seen.size());
        for (const auto& [text, idx] : seen) {
            byIndex[std::size_t(idx)] = sv(text);
            names << sv(text);
        }
        out.classNames = detail::sortedLabelNames(names);
        std::vector<int> remapLabels(seen.size());
        for (std::size_t i = 0; i < byIndex.size(); ++i)
            remapLabels[i] = int(out.classNames.indexOf(byIndex[i]));
        for (int& l : labels)
            l = remapLabels[std::size_t(l)];
    }
    MemoryBudget::require(
        MemoryBudget::bytesOf(n, std::size_t(out.classNames.size())),
        QStringLiteral("one-hot targets of %1 rows × %2 classes").arg(n).arg(out.classNames.size()),
        targets.path);
    out.labels = std::move(labels);
    out.setOneHotFromLabels();
}

/// "file.csv 150×4 → species (from targets.csv) (3 classes), 1 column one-hot, 2 rows with missing
/// values dropped".
QString describeDataset(const Dataset& out, const Table& features, const Table& targets, std::size_t d,
                        std::size_t nCat, qint64 dropped)
{
    QStringList targetNames;
    for (int c : targets.targetCols)
        targetNames << targets.names[c];
    QString text = QStringLiteral("%1 %2×%3 → %4")
                       .arg(QFileInfo(features.path).fileName())
                       .arg(features.rows)
                       .arg(d)
                       .arg(detail::printable(targetNames.join(", ")));
    if (&features != &targets)
        text += QStringLiteral(" (from %1)").arg(QFileInfo(targets.path).fileName());
    if (out.task == tb::Task::Classification)
        text += QStringLiteral(" (%1 classes)").arg(out.classNames.size());
    if (nCat > 0)
        text += QStringLiteral(", %1 column%2 one-hot").arg(nCat).arg(nCat == 1 ? "" : "s");
    if (dropped > 0)
        text += QStringLiteral(", %1 row%2 with missing values dropped")
                    .arg(dropped)
                    .arg(dropped == 1 ? "" : "s");
    return text;
}

Dataset assemble(const Table& features, const Table& targets, const CsvLoader::Options& o,
                 CsvLoader::Report* report)
{
    const std::size_t n = features.rows;
    if (targets.rows != n)
        throw DataError::inFile(targets.path,
                                QStringLiteral("%1 rows of targets for the %2 rows of %3: the target file "
                                               "must hold one row per data row")
                                    .arg(targets.rows)
                                    .arg(n)
                                    .arg(features.path));
    const CategoryEncoding e = encodeCategories(features, o);
    Dataset out;
    out.task = o.task;
    MemoryBudget::require(MemoryBudget::bytesOf(n, e.width),
                          QStringLiteral("a %1×%2 matrix of inputs").arg(n).arg(e.width), features.path);
    const qint64 unseen = fillInputs(out, features, e);
    if (o.task == tb::Task::Classification)
        fillClasses(out, targets, o);
    else
        out.y = Eigen::Map<const RowMajor>(targets.ys.data(), Eigen::Index(n),
                                           Eigen::Index(targets.targetCols.size()));
    const std::size_t nCat = features.categoricalCount();
    const qint64 dropped = features.dropped + (&features != &targets ? targets.dropped : 0);
    out.description = describeDataset(out, features, targets, e.width, nCat, dropped);
    if (report) {
        report->rowsDropped = dropped;
        report->missingKept = features.kept;
        report->unseenCategories = unseen;
        report->categoricalColumns = e.names;
        report->ignoredColumns = features.ignored;
        report->categories.clear();
        for (std::size_t j = 0; j < nCat; ++j)
            report->categories.insert(e.names[qsizetype(j)], e.categories[j]);
    }
    return out;
}

} // namespace

QString CsvLoader::Column::describe() const
{
    return byIndex ? QStringLiteral("column %1").arg(index)
                   : QStringLiteral("'%1'").arg(detail::printable(name));
}

Dataset CsvLoader::parse(const QByteArray& bytes, const QString& name, const Options& options, Report* report)
{
    const Table t = readTable(bytes, name, options, Role::Split);
    return assemble(t, t, options, report);
}

Dataset CsvLoader::load(const QString& path, const Options& options, Report* report)
{
    if (options.targetFile.isEmpty())
        return parse(DataFile::readAll(path), path, options, report);
    if (options.missing == Options::Missing::Drop)
        throw DataError::inFile(path, QStringLiteral("missing values cannot drop rows when the targets are in a file of "
                                                     "their own (%1): the two files would no longer line up")
                                          .arg(options.targetFile));
    Table features;
    {
        const QByteArray bytes = DataFile::readAll(path);
        features = readTable(bytes, path, options, Role::Features);
    }
    const QByteArray bytes = DataFile::readAll(options.targetFile);
    const Table targets = readTable(bytes, options.targetFile, options, Role::Targets);
    return assemble(features, targets, options, report);
}

QList<QStringList> CsvLoader::previewRows(const QString& path, const Options& options, int maxRows,
                                          qint64 maxBytes)
{
    QByteArray bytes = DataFile::readAll(path, maxBytes);
    if (bytes.size() == maxBytes) {
        // Drop the partial last line, so that the preview does not show a cut-off record.
        const qsizetype nl = bytes.lastIndexOf('\n');
        if (nl > 0)
            bytes.truncate(nl + 1);
    }
    QList<QStringList> rows;
    CsvReader reader(bytes, path, options.delimiter, options.quote);
    reader.skipLines(std::max(0, options.skipRows));
    std::vector<std::string> fields;
    qint64 line = 0;
    try {
        while (rows.size() < maxRows && reader.next(fields, line)) {
            QStringList row;
            for (const std::string& f : fields)
                row << detail::printable(f);
            rows << row;
        }
    } catch (const DataError&) {
        // A malformed record ends the preview; loading the file reports it with its line.
    }
    return rows;
}

} // namespace tb::data
