#pragma once
/// @file SettingLabel.h
/// How a configuration's varied parameters are named in labels and legends.

#include <QString>
#include <QVariant>
#include <QVariantMap>

namespace tb {

/// "lr=0.001, batch_size=32": the keys of @p setting in alphabetical order, each value as
/// settingValueText() writes it; empty for an empty setting. What a configuration that varies
/// parameters (a param sweep's point, a tuned comparison's trial) adds to its label. Thread-safe.
QString settingLabel(const QVariantMap& setting);

/// One value as a label shows it: numbers to 12 significant digits, booleans as true/false, lists
/// as "[a,b]". Thread-safe.
QString settingValueText(const QVariant& value);

/// @p label as a narrow place shows it (a legend, a list's column): every decimal number of more than
/// 4 significant digits rounded to 4 ("Adam lr=0.00316227766017" → "Adam lr=0.003162"); the rest
/// unchanged. Labels themselves keep 12 digits (they name configurations). Thread-safe.
QString roundedLabel(const QString& label);

} // namespace tb
