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
                    .arg(t.countRowHint()));
        return i;
    }
    const int i = int(t.names.indexOf(c.name));
    if (i < 0) {
        QString hint = t.countRowHint();
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

Table readTable(const QByteArray& data, const QString& path, const CsvLoader::Options& o, Role role)
{
    if (o.skipRows < 0)
        throw DataError::inFile(path, QStringLiteral("skip_rows %1 is negative").arg(o.skipRows));
    Table t;
    t.path = path;
    t.header = o.header;
    CsvReader reader(data, path, o.delimiter, o.quote);
    const int skipped = reader.skipLines(o.skipRows);
    std::vector<std::string> fields;
    qint64 line = 0;
    if (!reader.next(fields, line)) {
        if (o.skipRows > 0)
            throw DataError::inFile(path,
                                    QStringLiteral("nothing left after skipping %1 line(s) (skip_rows %2)")
                                        .arg(skipped)
                                        .arg(o.skipRows));
        throw DataError::inFile(path, o.header ? QStringLiteral("empty file: no header row")
                                               : QStringLiteral("empty file: no data rows"));
    }
    const std::size_t width = fields.size();
    bool pending = false; // fields hold the first data row (no header)
    if (o.header) {
        t.headerLine = line;
        // A "header" of numbers is data (or a count row): say so before complaining about its names.
        bool allNumbers = true;
        for (const std::string& f : fields) {
            double v = 0;
            allNumbers = allNumbers && detail::parseNumber(detail::trimmed(f), v) == NumberStatus::Ok;
        }
        if (allNumbers) {
            QStringList shown;
            for (std::size_t c = 0; c < std::min<std::size_t>(width, 6); ++c)
                shown << detail::printable(fields[c]);
            throw DataError::atLine(
                path, line, {}, {},
                QStringLiteral("the header row holds only numbers (%1): it looks like data. If the "
                               "file has no header, set \"header\": false (columns are then named "
                               "0, 1, 2, …); if it starts with a count row, set \"skip_rows\"")
                    .arg(shown.join(QStringLiteral(", "))));
        }
        QHash<QString, int> columnOf;
        for (std::size_t c = 0; c < width; ++c) {
            const std::string& f = fields[c];
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
    } else {
        if (!o.columnNames.isEmpty() && std::size_t(o.columnNames.size()) != width)
            throw DataError::atLine(path, line, {}, QString::number(width),
                                    QStringLiteral("%1 column names are given for a file whose first row has %2 fields")
                                        .arg(o.columnNames.size())
                                        .arg(width));
        for (std::size_t c = 0; c < width; ++c)
            t.names << (o.columnNames.isEmpty() ? QString::number(c) : o.columnNames[qsizetype(c)]);
        pending = true;
    }

    std::vector<bool> isTarget(width, false);
    std::vector<bool> isIgnored(width, false);
    const bool classification = o.task == tb::Task::Classification;
    const qint64 namesLine = t.header ? t.headerLine : line;
    for (const CsvLoader::Column& c : o.ignore) {
        const int i = resolveColumn(t, c, namesLine, QStringLiteral("ignored"));
        isIgnored[std::size_t(i)] = true;
    }
    if (role == Role::Targets && o.targets.isEmpty()) {
        for (std::size_t c = 0; c < width; ++c)
            if (!isIgnored[c])
                t.targetCols.push_back(int(c));
    } else if (role != Role::Features) {
        if (o.targets.isEmpty())
            throw DataError::inFile(
                path,
                QStringLiteral("no target column given; columns are: %1").arg(describeColumns(t.names)));
        for (const CsvLoader::Column& c : o.targets) {
            const int i = resolveColumn(t, c, namesLine);
            if (isTarget[std::size_t(i)])
                throw DataError::atLine(path, line, c.describe(), c.describe(),
                                        QStringLiteral("target column %1 given twice").arg(c.describe()));
            if (isIgnored[std::size_t(i)])
                throw DataError::atLine(path, namesLine, c.describe(), c.describe(),
                                        QStringLiteral("target column %1 is also ignored").arg(c.describe()));
            isTarget[std::size_t(i)] = true;
            t.targetCols.push_back(i);
        }
    }
    for (std::size_t c = 0; c < width; ++c) {
        if (isIgnored[c])
            t.ignored << t.names[qsizetype(c)];
        else if (!isTarget[c] && role != Role::Targets)
            t.featureCols.push_back(int(c));
    }
    for (int c : t.targetCols)
        isTarget[std::size_t(c)] = true;
    if (role == Role::Split && t.featureCols.empty())
        throw DataError::inFile(path, QStringLiteral("no feature columns: every column is a target or ignored"));
    if (classification && role != Role::Features && t.targetCols.size() != 1)
        throw DataError::inFile(path,
                                QStringLiteral("classification needs exactly one target column, got %1 (%2)")
                                    .arg(t.targetCols.size())
                                    .arg(describeColumns([&] {
                                        QStringList n;
                                        for (int c : t.targetCols)
                                            n << t.names[c];
                                        return n;
                                    }())));

    std::unordered_set<std::string> extraMissing;
    for (const QString& m : o.missingValues)
        extraMissing.insert(m.toStdString());
    auto isMissing = [&](const std::string& f) { return detail::isMissing(f) || extraMissing.count(f) > 0; };

    // Which features are categories: those named, those the given categories name, and with
    // categoricalAuto every one holding a value that is neither a number nor missing (a pass of
    // its own over the file, so that the main pass knows each column's kind from its first row).
    t.categorical.assign(t.featureCols.size(), false);
    std::vector<bool> named(width, false);
    for (const CsvLoader::Column& c : o.categorical) {
        const int i = resolveColumn(t, c, namesLine, QStringLiteral("categorical"));
        if (isTarget[std::size_t(i)] || isIgnored[std::size_t(i)])
            throw DataError::atLine(path, namesLine, c.describe(), c.describe(),
                                    QStringLiteral("categorical column %1 is %2, not a feature")
                                        .arg(c.describe(), isTarget[std::size_t(i)] ? QStringLiteral("a target")
                                                                                    : QStringLiteral("ignored")));
        named[std::size_t(i)] = true;
    }
    for (std::size_t k = 0; k < t.featureCols.size(); ++k) {
        const int c = t.featureCols[k];
        t.categorical[k] = named[std::size_t(c)] || o.categories.contains(t.names[c]);
    }
    if (o.categoricalAuto) {
        CsvReader scan(data, path, o.delimiter, o.quote);
        scan.skipLines(o.skipRows);
        std::vector<std::string> row;
        qint64 at = 0;
        if (o.header)
            scan.next(row, at);
        try {
            while (scan.next(row, at)) {
                if (row.size() != width)
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
    const std::size_t nCat = t.categoricalCount();
    t.values.resize(nCat);
    std::vector<QHash<QString, int>> codeOf(nCat);

    auto missingError = [&](std::size_t col, const std::string& f, const QString& what) {
        return DataError::atLine(path, line, t.names[qsizetype(col)], sv(f),
                                 QStringLiteral("column '%1': %2 %3%4")
                                     .arg(detail::printable(t.names[qsizetype(col)]), what, detail::quoted(f),
                                          o.missing == CsvLoader::Options::Missing::Keep
                                              ? QStringLiteral(" (a target cannot be filled: give \"missing\": \"drop\" "
                                                               "to leave such rows out)")
                                              : QStringLiteral(" (\"missing\": \"drop\" leaves such rows out, "
                                                               "\"fill_mean\" fills features with the training mean)")));
    };
    auto numberAt = [&](std::size_t col, double& v) {
        const std::string& f = fields[col];
        const NumberStatus st = detail::parseNumber(f, v);
        if (st != NumberStatus::Ok)
            throw DataError::atLine(
                path, line, t.names[qsizetype(col)], detail::printable(f),
                QStringLiteral("column '%1': %2")
                    .arg(detail::printable(t.names[qsizetype(col)]), detail::numberProblem(st, f)));
    };

    std::vector<double> rowNumbers;
    std::vector<QString> rowCategories;
    std::vector<double> rowTargets;
    bool first = true;
    while (pending || reader.next(fields, line)) {
        pending = false;
        if (fields.size() != width) {
            QString hint = first ? t.countRowHint() : QString();
            throw DataError::atLine(
                path, line, {}, QString::number(fields.size()),
                QStringLiteral("expected %1 fields (as in %2), got %3%4")
                    .arg(width)
                    .arg(o.header ? QStringLiteral("the header") : QStringLiteral("the first row"))
                    .arg(fields.size())
                    .arg(hint));
        }
        first = false;
        bool drop = false;
        qint64 keptHere = 0;
        rowNumbers.clear();
        rowCategories.clear();
        rowTargets.clear();
        for (std::size_t k = 0; k < t.featureCols.size() && !drop; ++k) {
            const std::size_t c = std::size_t(t.featureCols[k]);
            const std::string& f = fields[c];
            if (isMissing(f)) {
                if (o.missing == CsvLoader::Options::Missing::Error)
                    throw missingError(c, f, QStringLiteral("missing value"));
                if (o.missing == CsvLoader::Options::Missing::Drop) {
                    drop = true;
                    break;
                }
                ++keptHere;
                if (t.categorical[k])
                    rowCategories.emplace_back();
                else
                    rowNumbers.push_back(std::numeric_limits<double>::quiet_NaN());
                continue;
            }
            if (t.categorical[k]) {
                if (const qsizetype bad = detail::utf8ErrorOffset(f); bad >= 0)
                    throw DataError::atLine(path, line, t.names[qsizetype(c)], detail::printable(f),
                                            QStringLiteral("column '%1': category %2 is not valid UTF-8 text (byte %3); "
                                                           "save the file as UTF-8")
                                                .arg(detail::printable(t.names[qsizetype(c)]), detail::quoted(f))
                                                .arg(bad + 1));
                rowCategories.push_back(sv(f));
            } else {
                double v = 0;
                numberAt(c, v);
                rowNumbers.push_back(v);
            }
        }
        std::string label;
        if (!drop && (!classification || role == Role::Features)) {
            for (int c : t.targetCols) {
                const std::string& f = fields[std::size_t(c)];
                if (isMissing(f)) {
                    if (o.missing != CsvLoader::Options::Missing::Drop)
                        throw missingError(std::size_t(c), f, QStringLiteral("missing target"));
                    drop = true;
                    break;
                }
                double v = 0;
                numberAt(std::size_t(c), v);
                rowTargets.push_back(v);
            }
        } else if (!drop) {
            const std::size_t tc = std::size_t(t.targetCols[0]);
            label = fields[tc];
            const QString column = detail::printable(t.names[qsizetype(tc)]);
            if (!o.labelSuffix.isEmpty()) {
                const std::string suffix = o.labelSuffix.toStdString();
                if (label.size() > suffix.size() && label.compare(label.size() - suffix.size(), suffix.size(), suffix) == 0)
                    label.resize(label.size() - suffix.size());
            }
            if (isMissing(label)) {
                if (o.missing != CsvLoader::Options::Missing::Drop)
                    throw missingError(tc, label, QStringLiteral("missing label"));
                drop = true;
            } else if (const qsizetype bad = detail::utf8ErrorOffset(label); bad >= 0) {
                throw DataError::atLine(
                    path, line, t.names[qsizetype(tc)], detail::printable(label),
                    QStringLiteral("column '%1': label %2 is not valid UTF-8 text (byte %3); labels "
                                   "that differ only in such bytes would be one class. Save the "
                                   "file as UTF-8")
                        .arg(column, detail::quoted(label))
                        .arg(bad + 1));
            }
        }
        if (drop) {
            ++t.dropped;
            continue;
        }
        t.kept += keptHere;
        for (double v : rowNumbers)
            pushChecked(t.xs, v, path);
        for (std::size_t j = 0; j < rowCategories.size(); ++j) {
            int code = -1;
            if (!rowCategories[j].isNull()) {
                const auto it = codeOf[j].constFind(rowCategories[j]);
                if (it != codeOf[j].constEnd()) {
                    code = *it;
                } else {
                    code = int(t.values[j].size());
                    codeOf[j].insert(rowCategories[j], code);
                    t.values[j] << rowCategories[j];
                }
            }
            pushChecked(t.codes, code, path);
        }
        for (double v : rowTargets)
            pushChecked(t.ys, v, path);
        if (classification && role != Role::Features) {
            pushChecked(t.labels, label, path);
            pushChecked(t.lines, line, path);
        }
        ++t.rows;
    }
    if (t.rows == 0)
        throw DataError::inFile(path, t.dropped > 0 ? QStringLiteral("no data rows left: all %1 have a missing value").arg(t.dropped)
                                      : o.header    ? QStringLiteral("no data rows after the header")
                                                    : QStringLiteral("no data rows"));
    return t;
}

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Dataset assemble(const Table& features, const Table& targets, const CsvLoader::Options& o, CsvLoader::Report* report)
{
    const bool classification = o.task == tb::Task::Classification;
    const std::size_t n = features.rows;
    if (targets.rows != n)
        throw DataError::inFile(targets.path,
                                QStringLiteral("%1 rows of targets for the %2 rows of %3: the target file "
                                               "must hold one row per data row")
                                    .arg(targets.rows)
                                    .arg(n)
                                    .arg(features.path));
    // Each categorical column's categories: the given ones (a test file encoded as its training
    // file), else its own values in sorted order; remap[j][code] is a value's category, −1 unseen.
    const std::size_t nNum = features.numericCount();
    const std::size_t nCat = features.categoricalCount();
    std::vector<QStringList> categories(nCat);
    std::vector<std::vector<int>> remap(nCat);
    QStringList catNames;
    std::size_t d = nNum;
    {
        std::size_t j = 0;
        for (std::size_t k = 0; k < features.featureCols.size(); ++k) {
            if (!features.categorical[k])
                continue;
            const QString name = features.names[features.featureCols[k]];
            catNames << name;
            categories[j] = o.categories.contains(name) ? o.categories.value(name)
                                                        : detail::sortedLabelNames(features.values[j]);
            for (const QString& v : features.values[j])
                remap[j].push_back(int(categories[j].indexOf(v)));
            d += std::size_t(categories[j].size());
            ++j;
        }
    }
    Dataset out;
    out.task = o.task;
    MemoryBudget::require(MemoryBudget::bytesOf(n, d),
                          QStringLiteral("a %1×%2 matrix of inputs").arg(n).arg(d), features.path);
    qint64 unseen = 0;
    if (nCat == 0) {
        for (int c : features.featureCols)
            out.featureNames << features.names[c];
        out.x = Eigen::Map<const RowMajor>(features.xs.data(), Eigen::Index(n), Eigen::Index(d));
    } else {
        {
            std::size_t j = 0;
            for (std::size_t k = 0; k < features.featureCols.size(); ++k) {
                const QString name = features.names[features.featureCols[k]];
                if (!features.categorical[k]) {
                    out.featureNames << name;
                    continue;
                }
                for (const QString& c : categories[j])
                    out.featureNames << name + QLatin1Char('=') + c;
                ++j;
            }
        }
        out.x.resize(Eigen::Index(n), Eigen::Index(d));
        for (std::size_t i = 0; i < n; ++i) {
            Eigen::Index col = 0;
            std::size_t ni = 0, ci = 0;
            for (std::size_t k = 0; k < features.featureCols.size(); ++k) {
                if (!features.categorical[k]) {
                    out.x(Eigen::Index(i), col++) = features.xs[i * nNum + ni++];
                    continue;
                }
                const Eigen::Index width = Eigen::Index(categories[ci].size());
                const int code = features.codes[i * nCat + ci];
                if (code < 0) {
                    out.x.row(Eigen::Index(i)).segment(col, width).setConstant(std::numeric_limits<double>::quiet_NaN());
                } else {
                    out.x.row(Eigen::Index(i)).segment(col, width).setZero();
                    const int category = remap[ci][std::size_t(code)];
                    if (category >= 0)
                        out.x(Eigen::Index(i), col + category) = 1.0;
                    else
                        ++unseen;
                }
                col += width;
                ++ci;
            }
        }
    }
    QStringList targetNames;
    for (int c : targets.targetCols)
        targetNames << targets.names[c];
    if (classification) {
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
            // Classes in sorted order, so that the class index does not depend on row order.
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
    } else {
        out.y = Eigen::Map<const RowMajor>(targets.ys.data(), Eigen::Index(n),
                                           Eigen::Index(targets.targetCols.size()));
    }
    out.description = QStringLiteral("%1 %2×%3 → %4")
                          .arg(QFileInfo(features.path).fileName())
                          .arg(n)
                          .arg(d)
                          .arg(detail::printable(targetNames.join(", ")));
    if (&features != &targets)
        out.description += QStringLiteral(" (from %1)").arg(QFileInfo(targets.path).fileName());
    if (classification)
        out.description += QStringLiteral(" (%1 classes)").arg(out.classNames.size());
    if (nCat > 0)
        out.description += QStringLiteral(", %1 column%2 one-hot").arg(nCat).arg(nCat == 1 ? "" : "s");
    const qint64 dropped = features.dropped + (&features != &targets ? targets.dropped : 0);
    if (dropped > 0)
        out.description += QStringLiteral(", %1 row%2 with missing values dropped").arg(dropped).arg(dropped == 1 ? "" : "s");
    if (report) {
        report->rowsDropped = dropped;
        report->missingKept = features.kept;
        report->unseenCategories = unseen;
        report->categoricalColumns = catNames;
        report->ignoredColumns = features.ignored;
        report->categories.clear();
        for (std::size_t j = 0; j < nCat; ++j)
            report->categories.insert(catNames[qsizetype(j)], categories[j]);
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
