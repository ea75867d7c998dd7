#include "TextParsing.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace tb::data::detail {

NumberStatus parseNumber(std::string_view text, double& out)
{
    if (isMissing(text))
        return NumberStatus::Missing;
    std::string_view s = text;
    if (s.size() > 1 && s.front() == '+' && s[1] != '-' && s[1] != '+')
        s.remove_prefix(1);
    double v = 0;
    // from_chars ignores the locale, so "1.5" parses the same under a German locale.
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
    if (ec == std::errc::result_out_of_range)
        return NumberStatus::OutOfRange;
    if (ec != std::errc() || ptr != s.data() + s.size())
        return NumberStatus::NotANumber;
    if (!std::isfinite(v))
        return NumberStatus::NotFinite;
    out = v;
    return NumberStatus::Ok;
}

bool isMissing(std::string_view text)
{
    auto eqi = [](std::string_view a, std::string_view b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
                   return (x >= 'a' && x <= 'z' ? char(x - 32) : x) == y;
               });
    };
    return text.empty() || eqi(text, "NA") || eqi(text, "N/A");
}

QString quoted(const QString& text)
{
    QString t = text;
    if (t.size() > 60)
        t = t.left(59) + QChar(0x2026);
    return QLatin1Char('"') + t + QLatin1Char('"');
}

QString quoted(std::string_view text)
{
    return quoted(QString::fromUtf8(text.data(), qsizetype(text.size())));
}

QString numberProblem(NumberStatus status, std::string_view text)
{
    switch (status) {
    case NumberStatus::Ok:
        return {};
    case NumberStatus::Missing:
        return QStringLiteral("missing value %1 (missing values are not imputed; clean the file)")
            .arg(quoted(text));
    case NumberStatus::NotANumber:
        return QStringLiteral("%1 is not a number").arg(quoted(text));
    case NumberStatus::NotFinite:
        return QStringLiteral("%1 is not a finite number (NaN and Inf are rejected)").arg(quoted(text));
    case NumberStatus::OutOfRange:
        return QStringLiteral("%1 is out of the range of a double").arg(quoted(text));
    }
    return {};
}

QStringList sortedLabelNames(QStringList names)
{
    names.removeDuplicates();
    bool allNumeric = true;
    std::vector<std::pair<double, QString>> numeric;
    numeric.reserve(std::size_t(names.size()));
    for (const QString& n : names) {
        const QByteArray u = n.toUtf8();
        double v = 0;
        if (parseNumber(std::string_view(u.constData(), std::size_t(u.size())), v) != NumberStatus::Ok) {
            allNumeric = false;
            break;
        }
        numeric.emplace_back(v, n);
    }
    if (allNumeric) {
        // Ties (e.g. "1" and "1.0") fall back to text order so the result is deterministic.
        std::sort(numeric.begin(), numeric.end());
        QStringList out;
        for (const auto& p : numeric)
            out << p.second;
        return out;
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string_view trimmed(std::string_view s)
{
    auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!s.empty() && ws(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && ws(s.back()))
        s.remove_suffix(1);
    return s;
}

} // namespace tb::data::detail
