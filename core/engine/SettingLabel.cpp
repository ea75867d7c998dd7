#include "SettingLabel.h"

#include <QRegularExpression>
#include <QStringList>

namespace tb {

QString settingValueText(const QVariant& v)
{
    if (v.typeId() == QMetaType::QVariantList) {
        QStringList parts;
        for (const auto& e : v.toList())
            parts << settingValueText(e);
        return QLatin1Char('[') + parts.join(QLatin1Char(',')) + QLatin1Char(']');
    }
    if (v.typeId() == QMetaType::Double)
        return QString::number(v.toDouble(), 'g', 12);
    if (v.typeId() == QMetaType::Bool)
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return v.toString();
}

QString settingLabel(const QVariantMap& setting)
{
    QStringList parts;
    for (auto it = setting.begin(); it != setting.end(); ++it)
        parts << it.key() + QLatin1Char('=') + settingValueText(it.value());
    return parts.join(QStringLiteral(", "));
}

QString roundedLabel(const QString& label)
{
    // Swept values are written to 12 digits ("lr=0.00316227766017"); 4 tell a grid's points apart.
    // Most labels have no such number: fewer than 6 digits in all, nothing to round.
    qsizetype allDigits = 0;
    for (QChar c : label)
        allDigits += c.isDigit() ? 1 : 0;
    if (allDigits < 6)
        return label;
    static const QRegularExpression number(QStringLiteral("(?<![\\w.])(\\d+\\.\\d*|\\.\\d+)(e[-+]?\\d+)?(?![\\w.])"),
                                           QRegularExpression::CaseInsensitiveOption);
    QString out;
    qsizetype from = 0;
    for (auto it = number.globalMatch(label); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString text = m.captured(0);
        qsizetype digits = 0;
        for (QChar c : m.captured(1))
            digits += c.isDigit() ? 1 : 0;
        if (digits <= 5)
            continue;
        bool ok = false;
        const double v = text.toDouble(&ok);
        if (!ok)
            continue;
        out += QStringView(label).mid(from, m.capturedStart(0) - from);
        out += QString::number(v, 'g', 4);
        from = m.capturedEnd(0);
    }
    if (from == 0)
        return label;
    out += QStringView(label).mid(from);
    return out;
}

} // namespace tb
