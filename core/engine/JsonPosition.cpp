#include "JsonPosition.h"

namespace tb {

QString JsonPosition::lineColumn(const QByteArray& text, int offset)
{
    int line = 1, col = 1;
    for (int i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return QStringLiteral("%1:%2").arg(line).arg(col);
}

} // namespace tb
