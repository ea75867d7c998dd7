#include "SettingLabel.h"

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

} // namespace tb
