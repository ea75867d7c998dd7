#include "TextParsing.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
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

qsizetype utf8ErrorOffset(std::string_view s)
{
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return qsizetype(i);
        }
        if (i + len > n)
            return qsizetype(i);
        for (std::size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xc0) != 0x80)
                return qsizetype(i);
            cp = (cp << 6) | (p[i + k] & 0x3f);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return qsizetype(i);
        i += len;
    }
    return -1;
}

QString printable(const QString& text)
{
    QString out;
    out.reserve(text.size());
    for (QChar c : text) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out;
}

QString printable(std::string_view text)
{
    QString out;
    while (!text.empty()) {
        const qsizetype bad = utf8ErrorOffset(text);
        const std::string_view good = text.substr(0, bad < 0 ? text.size() : std::size_t(bad));
        out += printable(QString::fromUtf8(good.data(), qsizetype(good.size())));
        if (bad < 0)
            break;
        out += QStringLiteral("\\x%1").arg(unsigned(static_cast<unsigned char>(text[std::size_t(bad)])), 2, 16,
                                            QLatin1Char('0'));
        text.remove_prefix(std::size_t(bad) + 1);
    }
    return out;
}

QString quoted(const QString& text)
{
    QString t = printable(text);
    if (t.size() > 60)
        t = t.left(59) + QChar(0x2026);
    return QLatin1Char('"') + t + QLatin1Char('"');
}

QString quoted(std::string_view text)
{
    QString t = printable(text);
    if (t.size() > 60)
        t = t.left(59) + QChar(0x2026);
    return QLatin1Char('"') + t + QLatin1Char('"');
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
