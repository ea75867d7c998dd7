#include "JsonDuplicateKeys.h"

#include <QSet>

#include <vector>

namespace tb {
namespace {

/// One open object or array while scanning.
struct Level {
    bool object = false;
    QString path;
    QSet<QString> keys;
    int index = 0;          ///< arrays: the element being read
    bool expectKey = false; ///< objects: the next string is a key
    QString lastKey;
};

QString child(const Level& parent)
{
    if (parent.object)
        return parent.path.isEmpty() ? parent.lastKey : parent.path + QLatin1Char('.') + parent.lastKey;
    return QStringLiteral("%1[%2]").arg(parent.path).arg(parent.index);
}

} // namespace

QList<JsonDuplicateKeys::Duplicate> JsonDuplicateKeys::find(const QByteArray& json)
{
    QList<Duplicate> out;
    std::vector<Level> stack;
    int line = 1, column = 1;
    const char* p = json.constData();
    const char* end = p + json.size();
    auto advance = [&](char c) {
        if (c == '\n') {
            ++line;
            column = 1;
        } else if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) { // count characters, not UTF-8 bytes
            ++column;
        }
    };
    while (p < end) {
        const char c = *p;
        if (c == '"') {
            const int startLine = line, startColumn = column;
            QByteArray raw;
            advance(*p++);
            while (p < end && *p != '"') {
                if (*p == '\\' && p + 1 < end) {
                    raw += *p;
                    advance(*p++);
                }
                raw += *p;
                advance(*p++);
            }
            if (p < end)
                advance(*p++);
            if (!stack.empty() && stack.back().object && stack.back().expectKey) {
                Level& top = stack.back();
                // Escapes decoded the way the parser decodes them: "a" and "\u0061" are one key.
                const QString key = QString::fromUtf8(raw);
                QString decoded;
                for (qsizetype i = 0; i < key.size(); ++i) {
                    if (key[i] == u'\\' && i + 5 < key.size() && key[i + 1] == u'u') {
                        bool ok = false;
                        const ushort u = key.mid(i + 2, 4).toUShort(&ok, 16);
                        if (ok) {
                            decoded += QChar(u);
                            i += 5;
                            continue;
                        }
                    }
                    if (key[i] == u'\\' && i + 1 < key.size()) {
                        const QChar e = key[++i];
                        decoded += e == u'n'   ? QChar(u'\n')
                                   : e == u't' ? QChar(u'\t')
                                   : e == u'r' ? QChar(u'\r')
                                   : e == u'b' ? QChar(u'\b')
                                   : e == u'f' ? QChar(u'\f')
                                               : e;
                        continue;
                    }
                    decoded += key[i];
                }
                if (top.keys.contains(decoded))
                    out.append({top.path, decoded, startLine, startColumn});
                top.keys.insert(decoded);
                top.lastKey = decoded;
                top.expectKey = false;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            Level next;
            next.object = c == '{';
            next.expectKey = next.object;
            next.path = stack.empty() ? QString() : child(stack.back());
            stack.push_back(std::move(next));
        } else if (c == '}' || c == ']') {
            if (!stack.empty())
                stack.pop_back();
        } else if (c == ',' && !stack.empty()) {
            if (stack.back().object)
                stack.back().expectKey = true;
            else
                ++stack.back().index;
        }
        advance(*p++);
    }
    return out;
}

QString JsonDuplicateKeys::describe(const Duplicate& d, const QString& sourceName)
{
    return QStringLiteral("%1:%2:%3: key \"%4\" appears twice in %5; the last value is used")
        .arg(sourceName)
        .arg(d.line)
        .arg(d.column)
        .arg(d.key, d.path.isEmpty() ? QStringLiteral("the top-level object") : d.path);
}

} // namespace tb
