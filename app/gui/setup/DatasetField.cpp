#include "DatasetField.h"

#include "DatasetPanel.h"
#include "widgets/KeptTextSpinBox.h"

#include <data/IdxLoader.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

namespace tb::gui {
namespace {

constexpr double maxExactInteger = 9007199254740992.0; // 2^53: beyond it a seed is written as a string

bool integral(const QJsonValue& v, double lo, double hi)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    return std::isfinite(d) && d == std::floor(d) && d >= lo && d <= hi;
}

/// True when @p spin shows @p v exactly (within its decimals and range).
bool fits(const QDoubleSpinBox* spin, const QJsonValue& v)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    if (!std::isfinite(d) || d < spin->minimum() || d > spin->maximum())
        return false;
    const double scale = std::pow(10.0, spin->decimals());
    return std::abs(std::round(d * scale) / scale - d) <= 1e-12 * std::max(1.0, std::abs(d));
}

/// A line edit with a "…" button that opens a file (or folder) dialog.
QWidget* pathEditor(QLineEdit*& edit, bool folder, const QString& filter, QWidget* parent)
{
    auto* box = new QWidget(parent);
    auto* h = new QHBoxLayout(box);
    h->setContentsMargins(0, 0, 0, 0);
    edit = new QLineEdit(box);
    edit->setClearButtonEnabled(true);
    auto* browse = new QToolButton(box);
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(folder ? DatasetPanel::tr("Choose a folder") : DatasetPanel::tr("Choose a file"));
    h->addWidget(edit, 1);
    h->addWidget(browse);
    QLineEdit* e = edit;
    QObject::connect(browse, &QToolButton::clicked, e, [e, folder, filter] {
        const QString start = e->text().isEmpty() ? QDir::currentPath() : e->text();
        const QString chosen =
            folder ? QFileDialog::getExistingDirectory(e, DatasetPanel::tr("Choose a folder"), start)
                   : QFileDialog::getOpenFileName(e, DatasetPanel::tr("Choose a file"), start, filter);
        if (!chosen.isEmpty())
            e->setText(chosen);
    });
    return box;
}

/// @p field above a red message line (hidden while empty): a field's own problem, or a load
/// error about the file it names, shows beside it rather than at the foot of the panel.
QWidget* withMessage(QWidget* field, QLabel** message, QWidget* parent)
{
    auto* box = new QWidget(parent);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    field->setParent(box);
    v->addWidget(field);
    auto* label = new QLabel(box);
    label->setObjectName(field->objectName() + QStringLiteral("_message"));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(QStringLiteral("color: #c0392b;"));
    label->setVisible(false);
    v->addWidget(label);
    *message = label;
    return box;
}

/// One column reference as typed: a whole number is a position, anything else a name.
QJsonValue columnValue(const QString& text)
{
    bool isNumber = false;
    const int index = text.toInt(&isNumber);
    return isNumber ? QJsonValue(index) : QJsonValue(text);
}

// A whole number: a spin box that keeps what was typed, its range the schema's.
void intField(DatasetField& f, const ParamSpec& p, const QJsonValue& def, QWidget* parent)
{
    auto* e = new IntField(parent);
    const bool optional = def.isUndefined();
    // An optional count shows its meaning when absent ("all") at 0 and writes nothing there.
    const int lo = optional ? 0 : int(std::max<double>(p.minimum, INT_MIN));
    const int hi = int(std::min<double>(p.maximum, INT_MAX));
    e->setRange(lo, hi);
    if (optional)
        e->setSpecialValueText(p.absentText.isEmpty() ? DatasetPanel::tr("not set") : p.absentText);
    e->setKeyboardTracking(false);
    e->setAccelerated(true);
    f.editor = e;
    f.row = withMessage(e, &f.message, parent);
    f.problem = [e, label = p.label, key = p.key] {
        return typedTextProblem(e, label, QStringLiteral("dataset.") + key);
    };
    f.read = [e, optional] {
        return optional && e->value() == 0 ? QJsonValue(QJsonValue::Undefined) : QJsonValue(e->value());
    };
    const double minimum = p.minimum;
    f.write = [e, minimum](const QJsonValue& v) {
        if (!integral(v, std::max<double>(minimum, e->minimum()), e->maximum()))
            return false;
        e->setValue(int(v.toDouble()));
        return true;
    };
    f.reset = [e, def, lo] { e->setValue(def.isUndefined() ? lo : def.toInt()); };
}

// A real number: a spin box that keeps what was typed, 3 decimals for a fraction in (0, 1), else 4.
void realField(DatasetField& f, const ParamSpec& p, const QJsonValue& def, QWidget* parent)
{
    auto* e = new RealField(parent);
    const bool fraction = p.exclusiveMinimum && p.exclusiveMaximum && p.maximum - p.minimum <= 1;
    const int decimals = fraction ? 3 : 4;
    const double step = std::pow(10.0, -decimals);
    e->setDecimals(decimals);
    // An optional value (no default: absent means "none") shows its meaning one step below
    // its range and writes nothing there, as an optional count does at 0.
    const bool optional = def.isUndefined() && std::isfinite(p.minimum);
    const double lo = std::isfinite(p.minimum) ? p.minimum + (p.exclusiveMinimum ? step : 0) : -1e9;
    e->setRange(optional ? lo - step : lo,
                std::isfinite(p.maximum) ? p.maximum - (p.exclusiveMaximum ? step : 0) : 1e6);
    if (optional)
        e->setSpecialValueText(p.absentText.isEmpty() ? DatasetPanel::tr("none") : p.absentText);
    e->setSingleStep(fraction ? 0.05 : 0.01);
    e->setKeyboardTracking(false);
    f.editor = e;
    f.row = withMessage(e, &f.message, parent);
    // The range as the schema states it: "in (0, 1)" rather than the editor's 0.001 … 0.999.
    QString range;
    if (std::isfinite(p.minimum) && std::isfinite(p.maximum))
        range = QStringLiteral("in %1%2, %3%4")
                    .arg(p.exclusiveMinimum ? QStringLiteral("(") : QStringLiteral("["))
                    .arg(p.minimum)
                    .arg(p.maximum)
                    .arg(p.exclusiveMaximum ? QStringLiteral(")") : QStringLiteral("]"));
    f.problem = [e, label = p.label, key = p.key, range] {
        return typedTextProblem(e, label, QStringLiteral("dataset.") + key, range);
    };
    f.read = [e, optional] {
        if (optional && e->value() == e->minimum())
            return QJsonValue(QJsonValue::Undefined);
        return QJsonValue(e->value());
    };
    f.write = [e](const QJsonValue& v) {
        if (!fits(e, v))
            return false;
        e->setValue(v.toDouble());
        return true;
    };
    f.reset = [e, def, optional] { e->setValue(optional ? e->minimum() : def.toDouble(0)); };
}

// A check box.
void boolField(DatasetField& f, const ParamSpec& p, const QJsonValue& def, QWidget* parent)
{
    auto* e = new QCheckBox(p.label, parent);
    f.editor = f.row = e;
    f.read = [e] { return QJsonValue(e->isChecked()); };
    f.write = [e](const QJsonValue& v) {
        if (!v.isBool())
            return false;
        e->setChecked(v.toBool());
        return true;
    };
    f.reset = [e, def] { e->setChecked(def.toBool(false)); };
}

// A combo box of the schema's choices, their labels shown.
void choiceField(DatasetField& f, const ParamSpec& p, const QJsonValue& def, QWidget* parent)
{
    auto* e = new QComboBox(parent);
    for (qsizetype i = 0; i < p.choices.size(); ++i)
        e->addItem(p.choiceLabels.value(i, p.choices[i]), p.choices[i]);
    // As wide as the dock allows, not as its longest label: a long label would push the
    // field below its row's label (the form wraps long rows), out of sight in a narrow dock.
    // The list shows the whole labels.
    e->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    e->setMinimumContentsLength(10);
    f.editor = f.row = e;
    f.read = [e] { return QJsonValue(e->currentData().toString()); };
    f.write = [e](const QJsonValue& v) {
        const int i = v.isString() ? e->findData(v.toString()) : -1;
        if (i >= 0)
            e->setCurrentIndex(i);
        return i >= 0;
    };
    f.reset = [e, def] { e->setCurrentIndex(std::max(0, def.isString() ? e->findData(def.toString()) : 0)); };
}

// A file or folder: a line edit with a browse button; empty writes nothing.
void pathField(DatasetField& f, const ParamSpec& p, const QJsonValue& /*def*/, QWidget* parent)
{
    QLineEdit* e = nullptr;
    const bool folder = p.type == ParamType::Folder;
    f.row = withMessage(pathEditor(e, folder, p.fileFilter, parent), &f.message, parent);
    f.editor = e;
    QString placeholder = p.absentText;
    if (folder && p.key == u"dir") { // where Fashion-MNIST would be found (IdxLoader decides)
        const QString found = data::IdxLoader::fashionMnistDir();
        placeholder = found.isEmpty() ? DatasetPanel::tr("not found: choose the folder")
                                      : DatasetPanel::tr("automatic: %1").arg(found);
    }
    e->setPlaceholderText(placeholder);
    f.read = [e] {
        const QString t = e->text().trimmed();
        return t.isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(t);
    };
    f.write = [e](const QJsonValue& v) {
        if (!v.isString())
            return false;
        e->setText(v.toString());
        return true;
    };
    f.reset = [e] { e->clear(); };
}

// CSV columns (or classes): names or positions with commas; written back only as it would be read.
void columnsField(DatasetField& f, const ParamSpec& p, const QJsonValue& /*def*/, QWidget* parent)
{
    auto* e = new QLineEdit(parent);
    // Classes are no CSV columns: Fashion-MNIST's Keep classes showed the column hint.
    e->setPlaceholderText(
        p.key == u"keep_classes"
            ? DatasetPanel::tr("all; or class names or indices (0, 1, …), at least two, with commas")
            : DatasetPanel::tr("a column name or position (0, 1, …, -1 for the last); several with commas"));
    f.editor = f.row = e;
    f.read = [e] {
        QJsonArray cols;
        for (const QString& c : e->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (!c.trimmed().isEmpty())
                cols.append(columnValue(c.trimmed()));
        if (cols.isEmpty())
            return QJsonValue(QJsonValue::Undefined);
        return cols.size() == 1 ? cols.first() : QJsonValue(cols);
    };
    // Only what would be read back the same way: a name with a comma, spaces at its ends or
    // the look of a number, or a one-element list, stays in the spec untouched instead.
    auto text = [](const QJsonValue& c, QString* out) {
        if (c.isDouble()) {
            if (!integral(c, INT_MIN, INT_MAX))
                return false;
            *out = QString::number(int(c.toDouble()));
            return true;
        }
        const QString s = c.toString();
        bool number = false;
        s.toInt(&number);
        if (!c.isString() || s.isEmpty() || s.contains(QLatin1Char(',')) || s.trimmed() != s || number)
            return false;
        *out = s;
        return true;
    };
    f.write = [e, text](const QJsonValue& v) {
        QStringList cols;
        QString one;
        if (!v.isArray()) {
            if (!text(v, &one))
                return false;
            cols << one;
        } else {
            const QJsonArray a = v.toArray();
            if (a.size() < 2)
                return false; // ["y"] would come back as "y"
            for (const auto& c : a) {
                if (!text(c, &one))
                    return false;
                cols << one;
            }
        }
        e->setText(cols.join(QStringLiteral(", ")));
        return true;
    };
    f.reset = [e] { e->clear(); };
}

// Free text, or numbers typed as "0.1, 0.5": a list is read into an array when every part is a number,
// else handed on as text for the schema to name.
void textField(DatasetField& f, const ParamSpec& p, const QJsonValue& def, QWidget* parent)
{
    const bool list = p.type != ParamType::Text;
    auto* e = new QLineEdit(parent);
    e->setPlaceholderText(p.absentText);
    f.editor = f.row = e;
    f.read = [e, list] {
        const QString t = e->text().trimmed();
        if (t.isEmpty())
            return QJsonValue(QJsonValue::Undefined);
        if (!list)
            return QJsonValue(e->text());
        QJsonArray a;
        for (const QString& part :
             t.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
            bool ok = false;
            const double d = part.toDouble(&ok);
            if (!ok)
                return QJsonValue(t);
            a.append(d);
        }
        return QJsonValue(a);
    };
    f.write = [e, list](const QJsonValue& v) {
        if (!list) {
            if (!v.isString())
                return false;
            e->setText(v.toString());
            return true;
        }
        if (!v.isArray())
            return false;
        QStringList parts;
        for (const QJsonValue& x : v.toArray()) {
            if (!x.isDouble())
                return false;
            parts << QString::number(x.toDouble(), 'g', 17);
        }
        e->setText(parts.join(QStringLiteral(", ")));
        return true;
    };
    f.reset = [e, def, write = f.write] {
        e->clear();
        if (!def.isUndefined())
            write(def);
    };
}

// A seed: digits, written as a number up to 2^53 and as a string beyond.
void seedField(DatasetField& f, const ParamSpec& p, const QJsonValue& /*def*/, QWidget* parent)
{
    auto* e = new QLineEdit(parent);
    e->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("\\d{0,20}")), e));
    e->setPlaceholderText(p.absentText);
    f.editor = f.row = e;
    f.read = [e] {
        bool ok = false;
        const qulonglong s = e->text().toULongLong(&ok);
        if (!ok)
            return QJsonValue(QJsonValue::Undefined);
        return double(s) <= maxExactInteger ? QJsonValue(double(s)) : QJsonValue(e->text());
    };
    f.write = [e](const QJsonValue& v) {
        if (integral(v, 0, maxExactInteger)) {
            e->setText(QString::number(qulonglong(v.toDouble())));
            return true;
        }
        bool ok = false;
        if (v.isString() && v.toString().size() <= 20 && v.toString().toULongLong(&ok) && ok &&
            QString::number(v.toString().toULongLong()) == v.toString()) {
            e->setText(v.toString());
            return true;
        }
        return false;
    };
    f.reset = [e] { e->clear(); };
}

} // namespace

DatasetField DatasetField::make(const ParamSpec& p, QWidget* parent)
{
    DatasetField f;
    f.param = &p;
    const QJsonValue def = p.defaultValue.isValid() ? QJsonValue::fromVariant(p.defaultValue)
                                                    : QJsonValue(QJsonValue::Undefined);
    // One builder per key type; every type has one (tests/app/gui/setup/tst_datasetpanelkeys makes
    // a field of each).
    using Builder = void (*)(DatasetField&, const ParamSpec&, const QJsonValue&, QWidget*);
    static const std::map<ParamType, Builder> builders{
        {ParamType::Int, intField},         {ParamType::Real, realField}, {ParamType::Bool, boolField},
        {ParamType::Choice, choiceField},   {ParamType::Path, pathField}, {ParamType::Folder, pathField},
        {ParamType::Columns, columnsField}, {ParamType::Text, textField}, {ParamType::IntList, textField},
        {ParamType::RealList, textField},   {ParamType::Seed, seedField}};
    builders.at(p.type)(f, p, def, parent);
    f.editor->setToolTip(p.help);
    f.editor->setObjectName(p.key);
    if (f.message)
        f.message->setObjectName(p.key + QStringLiteral("_message"));
    return f;
}

} // namespace tb::gui
