#include "XlsxReader.h"

#include "ArchiveReader.h"
#include "DataError.h"

#include <QStringList>
#include <QXmlStreamReader>

#include <vector>

namespace tb::data {
namespace {

/// 0-based column of a cell reference such as "AB12"; −1 when there is none.
int columnOf(QStringView ref)
{
    int col = 0;
    int letters = 0;
    for (const QChar c : ref) {
        if (c < QLatin1Char('A') || c > QLatin1Char('Z'))
            break;
        col = col * 26 + (c.unicode() - 'A' + 1);
        ++letters;
    }
    return letters == 0 ? -1 : col - 1;
}

QStringList sharedStrings(const QByteArray& xlsx, const QString& name)
{
    QByteArray xml;
    try {
        xml = ArchiveReader::member(xlsx, name, QStringLiteral("xl/sharedStrings.xml"));
    } catch (const DataError&) {
        return {}; // a workbook without text cells has no such part
    }
    QStringList out;
    QXmlStreamReader r(xml);
    QString current;
    bool inItem = false;
    while (!r.atEnd()) {
        r.readNext();
        if (r.isStartElement() && r.name() == u"si") {
            inItem = true;
            current.clear();
        } else if (r.isStartElement() && r.name() == u"t" && inItem) {
            current += r.readElementText();
        } else if (r.isEndElement() && r.name() == u"si") {
            inItem = false;
            out << current;
        }
    }
    if (r.hasError())
        throw DataError::inFile(name, QStringLiteral("xl/sharedStrings.xml: %1 (line %2)").arg(r.errorString()).arg(r.lineNumber()));
    return out;
}

QString csvField(const QString& v, bool text)
{
    if (!text)
        return v;
    QString q = v;
    q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

} // namespace

QByteArray XlsxReader::sheetAsCsv(const QByteArray& xlsx, const QString& name, int sheet)
{
    const QString part = QStringLiteral("xl/worksheets/sheet%1.xml").arg(sheet);
    const QByteArray xml = ArchiveReader::member(xlsx, name, part);
    const QStringList strings = sharedStrings(xlsx, name);
    std::vector<QStringList> rows;
    QXmlStreamReader r(xml);
    QStringList row;
    int width = 0;
    bool inRow = false;
    while (!r.atEnd()) {
        r.readNext();
        if (r.isStartElement() && r.name() == u"row") {
            inRow = true;
            row.clear();
        } else if (r.isEndElement() && r.name() == u"row") {
            inRow = false;
            width = std::max(width, int(row.size()));
            rows.push_back(row);
        } else if (r.isStartElement() && r.name() == u"c" && inRow) {
            const QString ref = r.attributes().value(QStringLiteral("r")).toString();
            const QString type = r.attributes().value(QStringLiteral("t")).toString();
            const int col = ref.isEmpty() ? int(row.size()) : columnOf(ref);
            if (col < 0 || col > 16383)
                throw DataError::inFile(name, QStringLiteral("%1: cell reference \"%2\" is not valid (line %3)")
                                                  .arg(part, ref)
                                                  .arg(r.lineNumber()));
            QString value;
            bool text = false;
            // The cell's value: <v> (a number, a shared-string index, a boolean, a formula's
            // cached result) or <is><t> (an inline string).
            while (!(r.isEndElement() && r.name() == u"c") && !r.atEnd()) {
                r.readNext();
                if (r.isStartElement() && r.name() == u"v")
                    value = r.readElementText();
                else if (r.isStartElement() && r.name() == u"t")
                    value += r.readElementText();
            }
            if (type == u"s") {
                bool ok = false;
                const int index = value.toInt(&ok);
                if (!ok || index < 0 || index >= strings.size())
                    throw DataError::inFile(name, QStringLiteral("%1: cell %2 names shared string %3 of %4")
                                                      .arg(part, ref, value)
                                                      .arg(strings.size()));
                value = strings[index];
                text = true;
            } else if (type == u"str" || type == u"inlineStr") {
                text = true;
            } else if (type == u"e") {
                value.clear(); // an error value (#DIV/0! …) is a missing value
            }
            while (row.size() < col)
                row << QString();
            if (row.size() == col)
                row << csvField(value, text);
            else
                row[col] = csvField(value, text);
        }
    }
    if (r.hasError())
        throw DataError::inFile(name, QStringLiteral("%1: %2 (line %3)").arg(part, r.errorString()).arg(r.lineNumber()));
    QByteArray out;
    for (QStringList& cells : rows) {
        while (cells.size() < width)
            cells << QString();
        out += cells.join(QLatin1Char(',')).toUtf8();
        out += '\n';
    }
    return out;
}

} // namespace tb::data
