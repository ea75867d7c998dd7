#pragma once
/// @file JsonDuplicateKeys.h
/// Keys written twice in one JSON object, which QJsonDocument accepts without a word.

#include <QByteArray>
#include <QList>
#include <QString>

namespace tb {

/// Finds object keys that appear more than once in the same object of a JSON text. JSON
/// parsers (QJsonDocument among them) keep one of the values silently, so an experiment file
/// with `"lr"` written twice runs with a value its author may not have meant; the spec loader
/// warns instead. Only scans: the text is assumed to be valid JSON (QJsonDocument has accepted
/// it); on invalid text it returns what it found so far. Reentrant.
class JsonDuplicateKeys {
public:
    struct Duplicate {
        QString path;   ///< the object's path, e.g. "dataset" or "algorithms[1].params" ("" for the top)
        QString key;    ///< the repeated key
        int line = 0;   ///< 1-based line of the repetition
        int column = 0; ///< 1-based column of the repetition
    };

    static QList<Duplicate> find(const QByteArray& json);

    /// "FILE:LINE:COL: key "lr" appears twice in algorithms[0].params; the last value is used"
    static QString describe(const Duplicate& d, const QString& sourceName);
};

} // namespace tb
