#pragma once
/// @file DataError.h
/// The one exception type every data loader throws.

#include <QString>
#include <stdexcept>

namespace tb::data {

/// A problem with input data or with a dataset spec, located as precisely as possible.
///
/// what() reads like `data/broken.csv:14: column 'petal_width': "abc" is not a number`:
/// the file, then `:line` when the line is known, then `: at byte offset N` when the offset is
/// known, then the message. Spec errors have no file and start with the key
/// (`dataset.samples: expected a positive integer, got "abc"`).
/// Immutable after construction; safe to copy between threads.
class DataError : public std::runtime_error {
public:
    /// @param file        the file at fault, empty for spec or generator errors
    /// @param line        1-based line (CSV/LIBSVM, header counted), or -1
    /// @param byteOffset  offset into the (uncompressed) stream for binary files, or -1
    /// @param key         column name or spec key at fault, may be empty
    /// @param value       the offending value as written, may be empty
    /// @param message     what is wrong; should already name the key and value for the reader
    DataError(const QString& file, qint64 line, qint64 byteOffset, const QString& key, const QString& value,
              const QString& message);

    /// An error about a whole file (cannot open, no rows, shape mismatch …).
    static DataError inFile(const QString& file, const QString& message);
    /// An error at a line of a text file.
    static DataError atLine(const QString& file, qint64 line, const QString& key, const QString& value,
                            const QString& message);
    /// An error at a byte offset of a binary file.
    static DataError atOffset(const QString& file, qint64 byteOffset, const QString& key, const QString& value,
                              const QString& message);
    /// An error in the dataset spec (no file); @p key is the full key path, e.g. "dataset.samples".
    static DataError inSpec(const QString& key, const QString& value, const QString& message);

    const QString& file() const { return m_file; }
    qint64 line() const { return m_line; }
    qint64 byteOffset() const { return m_byteOffset; }
    const QString& key() const { return m_key; }
    const QString& value() const { return m_value; }
    /// The message without the location prefix.
    const QString& message() const { return m_message; }
    /// what() as a QString (UTF-8 decoded).
    QString text() const { return QString::fromUtf8(what()); }

private:
    static std::string compose(const QString& file, qint64 line, qint64 byteOffset, const QString& message);

    QString m_file;
    qint64 m_line = -1;
    qint64 m_byteOffset = -1;
    QString m_key;
    QString m_value;
    QString m_message;
};

} // namespace tb::data
