#include "LayerSizeEdit.h"

#include <QStringList>

namespace tb::gui {

LayerSizeEdit::LayerSizeEdit(QWidget* parent) : QLineEdit(parent)
{
    setPlaceholderText(tr("e.g. 50, 20"));
    setClearButtonEnabled(true);
    connect(this, &QLineEdit::textChanged, this, &LayerSizeEdit::valueChanged);
}

QVariant LayerSizeEdit::value() const
{
    return QVariant(text());
}

void LayerSizeEdit::setValue(const QVariant& v)
{
    if (v.typeId() == QMetaType::QString)
        setText(v.toString());
    else if (v.canConvert<QVariantList>() && v.typeId() != QMetaType::Double)
        setText(format(v.toList()));
    else
        setText(v.toString());
}

QString LayerSizeEdit::format(const QVariantList& list)
{
    QStringList parts;
    for (const auto& e : list)
        parts << e.toString();
    return parts.join(QStringLiteral(", "));
}

} // namespace tb::gui
