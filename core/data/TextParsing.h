#pragma once
/// @file TextParsing.h
/// Number and label parsing shared by the text loaders (CSV, LIBSVM). Internal to tb::data.

#include <QString>
#include <QStringList>
#include <string_view>

namespace tb::data::detail {

/// Outcome of parsing a number.
enum class NumberStatus {
    Ok,
    Missing,     ///< empty, "NA" or "N/A" (any case): a missing value
    NotANumber,  ///< not a decimal floating-point literal
    NotFinite,   ///< "nan", "inf", "infinity" and their signed forms
    OutOfRange   ///< outside the range of a double (e.g. 1e999)
};

/// Parses @p text (already trimmed) as a double with the C locale, independent of the
/// process locale. A single leading '+' is accepted. Thread-safe.
NumberStatus parseNumber(std::string_view text, double& out);

/// True for the spellings of a missing value: "", "NA", "N/A" (case-insensitive).
bool isMissing(std::string_view text);

/// @p text in double quotes for messages, shortened to 60 characters with "…". Bytes that are
/// not valid UTF-8 and control characters (NUL above all: it would end a C string) are shown
/// escaped, as \xff or \x00, so the message is complete and says which bytes are at fault.
QString quoted(std::string_view text);
QString quoted(const QString& text);

/// @p text as QString with invalid UTF-8 bytes and control characters escaped as \xNN.
QString printable(std::string_view text);
QString printable(const QString& text);

/// −1 when @p text is valid UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF),
/// else the byte offset of the first invalid sequence.
qsizetype utf8ErrorOffset(std::string_view text);

/// Message body for a failed number: e.g. `"abc" is not a number`, `"nan" is not a finite
/// number`, `missing value ""` (no silent imputation).
QString numberProblem(NumberStatus status, std::string_view text);

/// Unique label names sorted numerically when all of them are numbers, else by code point.
QStringList sortedLabelNames(QStringList names);

/// Trims ASCII spaces, tabs and carriage returns from both ends.
std::string_view trimmed(std::string_view s);

} // namespace tb::data::detail
