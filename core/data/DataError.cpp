#include "DataError.h"

namespace tb::data {

DataError::DataError(const QString& file, qint64 line, qint64 byteOffset, const QString& key,
                     const QString& value, const QString& message)
    : std::runtime_error(compose(file, line, byteOffset, message)), m_file(file), m_line(line),
      m_byteOffset(byteOffset), m_key(key), m_value(value), m_message(message)
{
}

DataError DataError::inFile(const QString& file, const QString& message)
{
    return DataError(file, -1, -1, {}, {}, message);
}

DataError DataError::atLine(const QString& file, qint64 line, const QString& key, const QString& value,
                            const QString& message)
{
    return DataError(file, line, -1, key, value, message);
}

DataError DataError::atOffset(const QString& file, qint64 byteOffset, const QString& key, const QString& value,
                              const QString& message)
{
    return DataError(file, -1, byteOffset, key, value, message);
}

DataError DataError::inSpec(const QString& key, const QString& value, const QString& message)
{
    return DataError({}, -1, -1, key, value, message);
}

std::string DataError::compose(const QString& file, qint64 line, qint64 byteOffset, const QString& message)
{
    QString s = file;
    if (line >= 0)
        s += QLatin1Char(':') + QString::number(line);
    if (byteOffset >= 0)
        s += (s.isEmpty() ? QString() : QStringLiteral(": ")) + QStringLiteral("at byte offset %1").arg(byteOffset);
    if (!s.isEmpty())
        s += QStringLiteral(": ");
    s += message;
    // A NUL would end what() as a C string and cut the message short: show it, and other
    // control characters but tabs and line breaks, escaped.
    QString clean;
    clean.reserve(s.size());
    for (QChar c : std::as_const(s)) {
        if ((c.unicode() < 0x20 && c != u'\t' && c != u'\n') || c.unicode() == 0x7f)
            clean += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            clean += c;
    }
    return clean.toStdString();
}

} // namespace tb::data
