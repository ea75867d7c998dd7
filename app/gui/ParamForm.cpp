#include "ParamForm.h"

#include "LayerSizeEdit.h"
#include "LogSlider.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QMenu>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace tb::gui {
namespace {

/// A QDoubleSpinBox that shows the shortest exact text of its value ("0.001", "1e-06") and
/// accepts scientific notation. The stock one rounds to a fixed number of decimals, which
/// would turn a learning rate of 1e-6 into 0.00.
class RealSpinBox : public QDoubleSpinBox {
public:
    explicit RealSpinBox(QWidget* parent) : QDoubleSpinBox(parent)
    {
        setDecimals(323); // Qt's maximum: no rounding of the stored value
        setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
        setKeyboardTracking(false); // half-typed text like "1e" must not become a value
    }

    QString textFromValue(double v) const override
    {
        return locale().toString(v, 'g', QLocale::FloatingPointShortest);
    }

    double valueFromText(const QString& text) const override
    {
        return parse(text).value_or(value());
    }

    QValidator::State validate(QString& text, int&) const override
    {
        const QString t = stripped(text);
        if (t.isEmpty() || t == u"-" || t == u"+" || t.endsWith(QLatin1Char('e'), Qt::CaseInsensitive) ||
            t.endsWith(u"e-", Qt::CaseInsensitive) || t.endsWith(u"e+", Qt::CaseInsensitive))
            return QValidator::Intermediate;
        const auto v = parse(text);
        if (!v)
            return QValidator::Invalid;
        return (*v >= minimum() && *v <= maximum()) ? QValidator::Acceptable : QValidator::Intermediate;
    }

private:
    QString stripped(const QString& text) const
    {
        QString t = text.trimmed();
        if (!prefix().isEmpty() && t.startsWith(prefix()))
            t.remove(0, prefix().size());
        if (!suffix().isEmpty() && t.endsWith(suffix()))
            t.chop(suffix().size());
        return t.trimmed();
    }

    std::optional<double> parse(const QString& text) const
    {
        const QString t = stripped(text);
        bool ok = false;
        double v = locale().toDouble(t, &ok);
        if (!ok)
            v = t.toDouble(&ok); // "1e-3" typed with a C-locale habit in any locale
        if (!ok || !std::isfinite(v))
            return std::nullopt;
        return v;
    }
};

int clampToInt(double v)
{
    if (std::isnan(v))
        return 0;
    return int(std::clamp(v, double(std::numeric_limits<int>::min()), double(std::numeric_limits<int>::max())));
}

double finiteOr(double v, double fallback)
{
    return std::isfinite(v) ? v : fallback;
}

/// ParamSchema says `parameter "lr": 5 is outside …`; in a form row the parameter is known,
/// and AlgorithmPanel prefixes the algorithm, so the shorter `lr: 5 is outside …` reads better.
QString shortMessage(const QString& key, const QString& message)
{
    const QString prefix = QStringLiteral("parameter \"%1\": ").arg(key);
    if (message.startsWith(prefix))
        return key + QStringLiteral(": ") + message.mid(prefix.size());
    return key + QStringLiteral(": ") + message;
}

} // namespace

ParamForm::ParamForm(const ParamSchema& schema, QWidget* parent) : QWidget(parent), m_schema(schema)
{
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    // Long labels go above their editor so the form fits a narrow dock.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_rows.reserve(schema.size());
    for (const auto& spec : schema.specs()) {
        Row row;
        row.spec = spec;
        m_rows.append(row);
    }
    for (int i = 0; i < m_rows.size(); ++i) {
        Row& row = m_rows[i];
        auto* field = new QWidget(this);
        auto* v = new QVBoxLayout(field);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(1);
        auto* h = new QHBoxLayout;
        h->setContentsMargins(0, 0, 0, 0);
        row.editor = makeEditor(row);
        row.editor->setParent(field);
        row.editor->setObjectName(row.spec.key);
        row.editor->setToolTip(row.spec.help);
        h->addWidget(row.editor, 1);
        if (row.slider) {
            row.slider->setParent(field);
            row.slider->setToolTip(row.spec.help);
            h->addWidget(row.slider, 1);
        }
        v->addLayout(h);
        row.message = new QLabel(field);
        row.message->setObjectName(row.spec.key + QStringLiteral("_message"));
        row.message->setWordWrap(true);
        row.message->setStyleSheet(QStringLiteral("color: #c0392b;"));
        row.message->setVisible(false);
        v->addWidget(row.message);

        auto* label = new QLabel(row.spec.label.isEmpty() ? row.spec.key : row.spec.label, this);
        label->setToolTip(QStringLiteral("%1 (%2): %3").arg(row.spec.key, paramTypeName(row.spec.type), row.spec.help));
        label->setBuddy(row.editor);
        // Right-click a parameter's name to sweep it (ExperimentPanel::sweepParameter).
        label->setContextMenuPolicy(Qt::CustomContextMenu);
        const QString key = row.spec.key;
        connect(label, &QLabel::customContextMenuRequested, this, [this, label, key](const QPoint& at) {
            QMenu menu;
            menu.addAction(tr("Sweep this parameter…"), this, [this, key] { Q_EMIT sweepRequested(key); });
            menu.exec(label->mapToGlobal(at));
        });
        form->addRow(label, field);
    }
    // Wire edits only now: m_rows no longer reallocates, so the lambdas may capture indices.
    for (int i = 0; i < m_rows.size(); ++i) {
        Row& row = m_rows[i];
        auto edited = [this, i] { onEdited(i); };
        if (auto* s = qobject_cast<QSpinBox*>(row.editor))
            connect(s, &QSpinBox::valueChanged, this, edited);
        else if (auto* d = qobject_cast<QDoubleSpinBox*>(row.editor)) {
            connect(d, &QDoubleSpinBox::valueChanged, this, edited);
            if (row.slider) {
                connect(row.slider, &LogSlider::logValueChanged, d, [d](double x) { d->setValue(x); });
                connect(d, &QDoubleSpinBox::valueChanged, row.slider, [s = row.slider](double x) { s->setLogValue(x); });
            }
        } else if (auto* c = qobject_cast<QCheckBox*>(row.editor))
            connect(c, &QCheckBox::toggled, this, edited);
        else if (auto* cb = qobject_cast<QComboBox*>(row.editor))
            connect(cb, &QComboBox::currentIndexChanged, this, edited);
        else if (auto* l = qobject_cast<LayerSizeEdit*>(row.editor))
            connect(l, &LayerSizeEdit::valueChanged, this, edited);
    }
    const QSignalBlocker block(this); // a new form has not "changed"
    resetToDefaults();
}

QWidget* ParamForm::makeEditor(Row& row)
{
    const ParamSpec& s = row.spec;
    switch (s.type) {
    case ParamType::Int: {
        auto* e = new QSpinBox;
        e->setRange(clampToInt(finiteOr(s.minimum, std::numeric_limits<int>::min())),
                    clampToInt(finiteOr(s.maximum, std::numeric_limits<int>::max())));
        e->setKeyboardTracking(false);
        e->setAccelerated(true);
        return e;
    }
    case ParamType::Real: {
        auto* e = new RealSpinBox(nullptr);
        e->setRange(finiteOr(s.minimum, std::numeric_limits<double>::lowest()),
                    finiteOr(s.maximum, std::numeric_limits<double>::max()));
        if (s.logScale)
            row.slider = new LogSlider(s.minimum, s.maximum);
        return e;
    }
    case ParamType::Bool:
        return new QCheckBox;
    case ParamType::Choice: {
        auto* e = new QComboBox;
        e->addItems(s.choices);
        return e;
    }
    case ParamType::IntList: {
        auto* e = new LayerSizeEdit;
        e->setPlaceholderText(s.minCount == 0 ? tr("empty, or e.g. 50, 20") : tr("e.g. 50, 20"));
        return e;
    }
    }
    return new QWidget;
}

const ParamForm::Row* ParamForm::row(const QString& key) const
{
    for (const auto& r : m_rows)
        if (r.spec.key == key)
            return &r;
    return nullptr;
}

QVariant ParamForm::rawValue(const Row& row) const
{
    if (row.hasRejected)
        return row.rejected;
    if (auto* s = qobject_cast<QSpinBox*>(row.editor))
        return QVariant(qlonglong(s->value()));
    if (auto* d = qobject_cast<QDoubleSpinBox*>(row.editor))
        return QVariant(d->value());
    if (auto* c = qobject_cast<QCheckBox*>(row.editor))
        return QVariant(c->isChecked());
    if (auto* cb = qobject_cast<QComboBox*>(row.editor))
        return QVariant(cb->currentText());
    if (auto* l = qobject_cast<LayerSizeEdit*>(row.editor))
        return l->value();
    return row.spec.defaultValue;
}

QString ParamForm::problem(const Row& row) const
{
    QString error;
    if (ParamSchema::convert(row.spec, rawValue(row), &error))
        return {};
    return shortMessage(row.spec.key, error);
}

QVariantMap ParamForm::values() const
{
    QVariantMap out;
    for (const auto& r : m_rows) {
        const QVariant raw = rawValue(r);
        const auto canonical = ParamSchema::convert(r.spec, raw, nullptr);
        out.insert(r.spec.key, canonical ? *canonical : raw);
    }
    return out;
}

void ParamForm::setEditorValue(Row& row, const QVariant& v)
{
    const QSignalBlocker blockEditor(row.editor);
    if (auto* s = qobject_cast<QSpinBox*>(row.editor))
        s->setValue(clampToInt(v.toDouble()));
    else if (auto* d = qobject_cast<QDoubleSpinBox*>(row.editor))
        d->setValue(v.toDouble());
    else if (auto* c = qobject_cast<QCheckBox*>(row.editor))
        c->setChecked(v.toBool());
    else if (auto* cb = qobject_cast<QComboBox*>(row.editor))
        cb->setCurrentIndex(std::max(0, int(cb->findText(v.toString()))));
    else if (auto* l = qobject_cast<LayerSizeEdit*>(row.editor))
        l->setValue(v);
    if (row.slider)
        row.slider->setLogValue(v.toDouble());
}

void ParamForm::setValues(const QVariantMap& v)
{
    for (auto& r : m_rows) {
        const QVariant given = v.contains(r.spec.key) ? v.value(r.spec.key) : r.spec.defaultValue;
        const auto canonical = ParamSchema::convert(r.spec, given, nullptr);
        // A line edit can show any text, so a bad list stays editable in place; the other
        // editors would clamp or coerce it, so keep the rejected value beside them.
        r.hasRejected = !canonical && r.spec.type != ParamType::IntList;
        r.rejected = r.hasRejected ? given : QVariant();
        QVariant shown = canonical ? *canonical : r.spec.defaultValue;
        if (!canonical && r.spec.type == ParamType::IntList)
            shown = given;
        bool numeric = false;
        const double asNumber = given.toDouble(&numeric);
        if (!canonical && numeric && std::isfinite(asNumber) && (r.spec.type == ParamType::Int || r.spec.type == ParamType::Real))
            shown = given; // the spin box clamps it: the nearest valid value is the likely fix
        setEditorValue(r, shown);
        refreshMessage(r);
    }
    Q_EMIT changed();
}

void ParamForm::resetToDefaults()
{
    setValues({});
}

QStringList ParamForm::problems() const
{
    QStringList out;
    for (const auto& r : m_rows) {
        const QString p = problem(r);
        if (!p.isEmpty())
            out << p;
    }
    return out;
}

QWidget* ParamForm::editor(const QString& key) const
{
    const Row* r = row(key);
    return r ? r->editor : nullptr;
}

LogSlider* ParamForm::slider(const QString& key) const
{
    const Row* r = row(key);
    return r ? r->slider : nullptr;
}

QLabel* ParamForm::messageLabel(const QString& key) const
{
    const Row* r = row(key);
    return r ? r->message : nullptr;
}

void ParamForm::onEdited(int index)
{
    Row& r = m_rows[index];
    r.hasRejected = false; // the user's edit replaces a value the editor could not hold
    r.rejected = QVariant();
    refreshMessage(r);
    Q_EMIT changed();
}

void ParamForm::refreshMessage(const Row& row)
{
    const QString p = problem(row);
    row.message->setText(p);
    row.message->setVisible(!p.isEmpty());
}

} // namespace tb::gui
