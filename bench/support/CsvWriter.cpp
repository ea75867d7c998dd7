#include "CsvWriter.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tb::bench {

CsvWriter::CsvWriter(const QString& path, const QStringList& header) : m_file(path), m_columns(header.size())
{
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text))
        throw std::runtime_error(
            QStringLiteral("cannot write %1: %2").arg(path, m_file.errorString()).toStdString());
    write(header);
}

CsvWriter::~CsvWriter()
{
    if (m_file.isOpen())
        m_file.close();
}

void CsvWriter::addRow(const QStringList& cells)
{
    if (cells.size() != m_columns)
        throw std::logic_error(QStringLiteral("%1: a row of %2 cells under a header of %3")
                                   .arg(m_file.fileName())
                                   .arg(cells.size())
                                   .arg(m_columns)
                                   .toStdString());
    write(cells);
}

void CsvWriter::write(const QStringList& cells)
{
    QStringList quoted;
    for (const QString& c : cells) {
        if (c.contains(QLatin1Char(',')) || c.contains(QLatin1Char('"')) || c.contains(QLatin1Char('\n')))
            quoted << QLatin1Char('"') + QString(c).replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
                          QLatin1Char('"');
        else
            quoted << c;
    }
    const QByteArray line = quoted.join(QLatin1Char(',')).toUtf8() + '\n';
    if (m_file.write(line) != line.size())
        throw std::runtime_error(
            QStringLiteral("cannot write %1: %2").arg(m_file.fileName(), m_file.errorString()).toStdString());
}

void CsvWriter::close()
{
    if (!m_file.isOpen())
        return;
    const bool ok = m_file.flush();
    const QString why = m_file.errorString();
    m_file.close();
    if (!ok)
        throw std::runtime_error(
            QStringLiteral("cannot write %1: %2").arg(m_file.fileName(), why).toStdString());
}

QString CsvWriter::fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return QString::fromLatin1(buf);
}

QString CsvWriter::general(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return QString::fromLatin1(buf);
}

} // namespace tb::bench
