#pragma once
/// @file JsonPosition.h
/// Where in a JSON text a parse error is, as people read files: line and column.

#include <QByteArray>
#include <QString>

namespace tb {

/// Line and column of a byte offset of a JSON text (QJsonParseError::offset), for messages such as
/// "exp.json:3:17: unterminated string". Pure; reentrant.
class JsonPosition {
public:
    /// "LINE:COL", both 1-based; an offset past the end counts to the end.
    static QString lineColumn(const QByteArray& text, int offset);
};

} // namespace tb
