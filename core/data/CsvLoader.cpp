#include "CsvLoader.h"

#include "DataError.h"
#include "TextParsing.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>

#include <string>
#include <unordered_map>
#include <vector>

namespace tb::data {
namespace {

using detail::NumberStatus;

/// RFC 4180 record reader over an in-memory file. Tracks 1-based physical lines.
class CsvReader {
public:
    CsvReader(const QByteArray& data, const QString& path, char delimiter)
        : m_p(data.constData()), m_end(data.constData() + data.size()), m_path(path), m_delim(delimiter)
    {
        // UTF-8 byte-order mark, as written by some spreadsheet programs.
        if (m_end - m_p >= 3 && quint8(m_p[0]) == 0xef && quint8(m_p[1]) == 0xbb && quint8(m_p[2]) == 0xbf)
            m_p += 3;
    }

    /// Reads the next non-blank record into @p fields; false at the end of the file.
    bool next(std::vector<std::string>& fields, qint64& startLine)
    {
        for (;;) {
            if (m_p == m_end)
                return false;
            startLine = m_line;
            fields.clear();
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

private:
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
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t'))
            ++m_p;
        if (m_p < m_end && *m_p == '"') {
            quoted = true;
            const qint64 quoteLine = m_line;
            ++m_p;
            for (;;) {
                if (m_p == m_end)
                    throw DataError::atLine(m_path, quoteLine, {}, {},
                                            QStringLiteral("quoted field never closes (missing '\"'); the record "
                                                           "starts on line %1")
                                                .arg(startLine));
                const char c = *m_p++;
                if (c == '"') {
                    if (m_p < m_end && *m_p == '"') {
                        out.push_back('"');
                        ++m_p;
                        continue;
                    }
                    break;
                }
                if (c == '\n')
                    ++m_line;
                out.push_back(c);
            }
            while (m_p < m_end && (*m_p == ' ' || *m_p == '\t'))
                ++m_p;
            if (m_p < m_end && *m_p != m_delim && *m_p != '\n' && *m_p != '\r') {
                const char* bad = m_p;
                while (m_p < m_end && *m_p != m_delim && *m_p != '\n' && *m_p != '\r')
                    ++m_p;
                throw DataError::atLine(m_path, m_line, {}, QString::fromUtf8(bad, qsizetype(m_p - bad)),
                                        QStringLiteral("unexpected text %1 after the closing quote of %2 "
                                                       "(quotes inside a quoted field are written \"\")")
                                            .arg(detail::quoted(std::string_view(bad, std::size_t(m_p - bad))),
                                                 detail::quoted(out)));
            }
            return;
        }
        m_p = start;
        while (m_p < m_end && *m_p != m_delim && *m_p != '\n' && *m_p != '\r')
            ++m_p;
        out.assign(detail::trimmed(std::string_view(start, std::size_t(m_p - start))));
    }

    const char* m_p;
    const char* m_end;
    QString m_path;
    char m_delim;
    qint64 m_line = 1;
};

QString sv(const std::string& s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace

Dataset CsvLoader::load(const QString& path, const Options& options)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw DataError::inFile(path, QStringLiteral("cannot open: %1").arg(file.errorString()));
    const QByteArray data = file.readAll();
    file.close();

    CsvReader reader(data, path, options.delimiter);
    std::vector<std::string> fields;
    qint64 line = 0;
    if (!reader.next(fields, line))
        throw DataError::inFile(path, QStringLiteral("empty file: no header row"));

    // Header.
    QStringList header;
    QHash<QString, int> columnOf;
    for (std::size_t c = 0; c < fields.size(); ++c) {
        const QString name = sv(fields[c]);
        if (name.isEmpty())
            throw DataError::atLine(path, line, {}, {},
                                    QStringLiteral("header: column %1 has an empty name").arg(c + 1));
        if (columnOf.contains(name))
            throw DataError::atLine(path, line, name, name,
                                    QStringLiteral("header: column name '%1' appears twice (columns %2 and %3)")
                                        .arg(name)
                                        .arg(columnOf.value(name) + 1)
                                        .arg(c + 1));
        columnOf.insert(name, int(c));
        header << name;
    }
    const bool classification = options.task == tb::Task::Classification;
    if (options.targets.isEmpty())
        throw DataError::inFile(path, QStringLiteral("no target column given; columns are: %1").arg(header.join(", ")));
    if (classification && options.targets.size() != 1)
        throw DataError::inFile(path, QStringLiteral("classification needs exactly one target column, got %1 (%2)")
                                          .arg(options.targets.size())
                                          .arg(options.targets.join(", ")));
    std::vector<int> targetCols;
    std::vector<bool> isTarget(fields.size(), false);
    for (const QString& t : options.targets) {
        const auto it = columnOf.constFind(t);
        if (it == columnOf.constEnd())
            throw DataError::atLine(path, line, t, t,
                                    QStringLiteral("target column '%1' not found; columns are: %2")
                                        .arg(t, header.join(", ")));
        if (isTarget[std::size_t(*it)])
            throw DataError::atLine(path, line, t, t, QStringLiteral("target column '%1' given twice").arg(t));
        isTarget[std::size_t(*it)] = true;
        targetCols.push_back(*it);
    }
    std::vector<int> featureCols;
    QStringList featureNames;
    for (std::size_t c = 0; c < fields.size(); ++c)
        if (!isTarget[c]) {
            featureCols.push_back(int(c));
            featureNames << header[qsizetype(c)];
        }
    if (featureCols.empty())
        throw DataError::inFile(path, QStringLiteral("no feature columns: every column is a target"));

    const std::size_t width = fields.size();
    const std::size_t d = featureCols.size();
    const std::size_t k = targetCols.size();
    std::vector<double> xs;  // row-major n×d
    std::vector<double> ys;  // row-major n×k (regression)
    std::vector<int> labels; // classification: index into the given names or into `seen`
    std::unordered_map<std::string, int> seen;
    QHash<QString, int> given;
    for (int i = 0; i < options.classNames.size(); ++i)
        given.insert(options.classNames[i], i);

    auto numberAt = [&](std::size_t col) {
        double v = 0;
        const std::string& f = fields[col];
        const NumberStatus st = detail::parseNumber(f, v);
        if (st != NumberStatus::Ok)
            throw DataError::atLine(path, line, header[qsizetype(col)], sv(f),
                                    QStringLiteral("column '%1': %2")
                                        .arg(header[qsizetype(col)], detail::numberProblem(st, f)));
        return v;
    };

    while (reader.next(fields, line)) {
        if (fields.size() != width)
            throw DataError::atLine(path, line, {}, QString::number(fields.size()),
                                    QStringLiteral("expected %1 fields (as in the header), got %2")
                                        .arg(width)
                                        .arg(fields.size()));
        for (int c : featureCols)
            xs.push_back(numberAt(std::size_t(c)));
        if (!classification) {
            for (int c : targetCols)
                ys.push_back(numberAt(std::size_t(c)));
            continue;
        }
        const std::size_t tc = std::size_t(targetCols[0]);
        const std::string& label = fields[tc];
        if (detail::isMissing(label))
            throw DataError::atLine(path, line, header[qsizetype(tc)], sv(label),
                                    QStringLiteral("column '%1': missing label %2")
                                        .arg(header[qsizetype(tc)], detail::quoted(label)));
        if (!given.isEmpty()) {
            const auto it = given.constFind(sv(label));
            if (it == given.constEnd())
                throw DataError::atLine(path, line, header[qsizetype(tc)], sv(label),
                                        QStringLiteral("column '%1': label %2 is not one of the training "
                                                       "classes (%3)")
                                            .arg(header[qsizetype(tc)], detail::quoted(label),
                                                 options.classNames.join(", ")));
            labels.push_back(*it);
        } else {
            const auto [it, inserted] = seen.try_emplace(label, int(seen.size()));
            labels.push_back(it->second);
        }
    }
    const std::size_t n = d ? xs.size() / d : 0;
    if (n == 0)
        throw DataError::inFile(path, QStringLiteral("no data rows after the header"));

    Dataset out;
    out.featureNames = featureNames;
    out.task = options.task;
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    out.x = Eigen::Map<const RowMajor>(xs.data(), Eigen::Index(n), Eigen::Index(d));
    if (classification) {
        if (!given.isEmpty()) {
            out.classNames = options.classNames;
        } else {
            // Classes in sorted order, so that the class index does not depend on row order.
            QStringList names;
            std::vector<QString> firstSeen(seen.size());
            for (const auto& [text, idx] : seen) {
                firstSeen[std::size_t(idx)] = sv(text);
                names << sv(text);
            }
            out.classNames = detail::sortedLabelNames(names);
            std::vector<int> remap(seen.size());
            for (std::size_t i = 0; i < firstSeen.size(); ++i)
                remap[i] = int(out.classNames.indexOf(firstSeen[i]));
            for (int& l : labels)
                l = remap[std::size_t(l)];
        }
        out.labels = std::move(labels);
        out.setOneHotFromLabels();
    } else {
        out.y = Eigen::Map<const RowMajor>(ys.data(), Eigen::Index(n), Eigen::Index(k));
    }
    out.description = QStringLiteral("%1 %2×%3 → %4").arg(QFileInfo(path).fileName()).arg(n).arg(d).arg(options.targets.join(", "));
    if (classification)
        out.description += QStringLiteral(" (%1 classes)").arg(out.classNames.size());
    return out;
}

} // namespace tb::data
