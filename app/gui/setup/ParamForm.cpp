#include "ParamForm.h"

#include "widgets/KeptTextSpinBox.h"
#include "widgets/LayerSizeEdit.h"
#include "widgets/LogSlider.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QMenu>
#include <QMetaMethod>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
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

/// Spin boxes whose editor range is wider than the parameter's valid range: a typed value
/// outside the valid range stays in the field as typed (the row shows why it is invalid and
/// Run refuses) instead of being reverted silently when the field loses focus, and so does text
/// that is no number of the type at all ("2.5" for an integer: KeptTextSpinBox). The arrow keys
/// and the wheel step inside the valid range only.
template <typename Base, typename T>
class BoundedSpinBox : public KeptTextSpinBox<Base> {
public:
    using KeptTextSpinBox<Base>::KeptTextSpinBox;
    void setValidRange(T lo, T hi)
    {
        m_lo = lo;
        m_hi = hi;
    }
    T validMinimum() const { return m_lo; }
    T validMaximum() const { return m_hi; }

    void stepBy(int steps) override
    {
        const T before = this->value();
        Base::stepBy(steps);
        // Stepping never leaves the valid range; a typed value outside it steps back in.
        if (this->value() > m_hi || (steps < 0 && before > m_hi))
            this->setValue(m_hi);
        else if (this->value() < m_lo || (steps > 0 && before < m_lo))
            this->setValue(m_lo);
    }

private:
    T m_lo = std::numeric_limits<T>::lowest();
    T m_hi = std::numeric_limits<T>::max();
};

class IntSpinBox : public BoundedSpinBox<QSpinBox, int> {
public:
    explicit IntSpinBox(QWidget* parent) : BoundedSpinBox(parent) { setKeyboardTracking(false); }
};

/// A QDoubleSpinBox that shows the shortest exact text of its value ("0.001", "1e-06") and
/// accepts scientific notation. The stock one rounds to a fixed number of decimals, which
/// would turn a learning rate of 1e-6 into 0.00.
class RealSpinBox : public BoundedSpinBox<QDoubleSpinBox, double> {
public:
    explicit RealSpinBox(QWidget* parent) : BoundedSpinBox(parent)
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
            return QValidator::Intermediate; // kept as typed; the schema names it
        return (*v >= minimum() && *v <= maximum()) ? QValidator::Acceptable : QValidator::Intermediate;
    }

    /// The number the text says, or nullopt.
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

/// ParamSchema says `parameter "lr": expected a number …`; in a form row the parameter is known
/// by its label, and AlgorithmPanel prefixes the algorithm, so `Learning rate (lr): expected a
/// number …` reads better: the form's words first, the file's key for the experiment file.
QString shortMessage(const QString& key, const QString& label, const QString& message)
{
    const QString name = label.isEmpty() || label == key ? key : QStringLiteral("%1 (%2)").arg(label, key);
    const QString prefix = QStringLiteral("parameter \"%1\": ").arg(key);
    if (message.startsWith(prefix))
        return name + QStringLiteral(": ") + message.mid(prefix.size());
    return name + QStringLiteral(": ") + message;
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
            // Only where someone can sweep it (an algorithm's form; not an experiment kind's fields).
            if (!isSignalConnected(QMetaMethod::fromSignal(&ParamForm::sweepRequested)))
                return;
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
        // Spin boxes: every keystroke updates the row's message at once (textChanged), not only
        // Enter or Tab, so an invalid value is named while it is typed.
        if (auto* s = qobject_cast<QSpinBox*>(row.editor)) {
            connect(s, &QSpinBox::valueChanged, this, edited);
            connect(static_cast<IntSpinBox*>(s)->edit(), &QLineEdit::textEdited, this, edited);
        } else if (auto* d = qobject_cast<QDoubleSpinBox*>(row.editor)) {
            connect(d, &QDoubleSpinBox::valueChanged, this, edited);
            connect(static_cast<RealSpinBox*>(d)->edit(), &QLineEdit::textEdited, this, edited);
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

ParamForm::~ParamForm()
{
    // ~QWidget closes the window after m_rows is gone, and a spin box losing focus then commits
    // its typed text (valueChanged): nothing of an editor may reach this form any more.
    for (const Row& r : m_rows) {
        r.editor->blockSignals(true);
        for (QObject* child : r.editor->findChildren<QObject*>())
            child->blockSignals(true);
        if (r.slider)
            r.slider->blockSignals(true);
    }
}

QWidget* ParamForm::makeEditor(Row& row)
{
    const ParamSpec& s = row.spec;
    switch (s.type) {
    case ParamType::Int: {
        auto* e = new IntSpinBox(nullptr);
        e->setRange(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
        e->setValidRange(clampToInt(finiteOr(s.minimum, std::numeric_limits<int>::min())),
                         clampToInt(finiteOr(s.maximum, std::numeric_limits<int>::max())));
        e->setAccelerated(true);
        return e;
    }
    case ParamType::Real: {
        auto* e = new RealSpinBox(nullptr);
        e->setRange(std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
        e->setValidRange(finiteOr(s.minimum, std::numeric_limits<double>::lowest()),
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
    case ParamType::RealList: {
        // The same line edit: the schema parses and checks the text ("0.1, 0.01").
        auto* e = new LayerSizeEdit;
        e->setPlaceholderText(s.minCount == 0 ? tr("empty, or e.g. 0.1, 0.01") : tr("e.g. 0.1, 0.01"));
        return e;
    }
    case ParamType::Text:
    case ParamType::Path:
    case ParamType::Folder:
    case ParamType::Columns:
    case ParamType::Seed:
        break; // keys of data sets and experiments; an algorithm that declares one keeps its default here
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
    // The typed text, not value(): a spin box commits its text only on Enter or focus-out, and
    // Run (Ctrl+R) can come before either. Text that is not a number yet ("1e", "") is returned
    // as text, so the schema names it.
    if (auto* s = qobject_cast<QSpinBox*>(row.editor)) {
        bool ok = false;
        const qlonglong v = s->locale().toLongLong(s->cleanText(), &ok);
        return ok ? QVariant(v) : QVariant(s->cleanText());
    }
    if (auto* d = dynamic_cast<RealSpinBox*>(row.editor)) {
        const auto v = d->parse(d->cleanText());
        return v ? QVariant(*v) : QVariant(d->cleanText());
    }
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
    return shortMessage(row.spec.key, row.spec.label, error);
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

QVariantMap ParamForm::explicitValues() const
{
    const QVariantMap all = values();
    QVariantMap out;
    for (const auto& r : m_rows) {
        const QVariant v = all.value(r.spec.key);
        if (r.explicitlySet || v != r.spec.defaultValue)
            out.insert(r.spec.key, v);
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
        // Editors show an invalid value as it was given when they can (a list as text, a number
        // outside its range as that number: their editor range is wider than the valid one), so
        // the field and its red message agree. Only what an editor cannot hold (2.5 for an
        // integer, an unknown choice) is kept beside it and named in the message.
        bool numeric = false;
        const double asNumber = given.toDouble(&numeric);
        const bool showableNumber = numeric && std::isfinite(asNumber) &&
                                    (r.spec.type == ParamType::Real ||
                                     (r.spec.type == ParamType::Int && asNumber == std::trunc(asNumber) &&
                                      std::abs(asNumber) <= double(std::numeric_limits<int>::max())));
        const bool list = r.spec.type == ParamType::IntList || r.spec.type == ParamType::RealList;
        r.hasRejected = !canonical && !list && !showableNumber;
        r.rejected = r.hasRejected ? given : QVariant();
        QVariant shown = canonical ? *canonical : r.spec.defaultValue;
        if (!canonical && (list || showableNumber))
            shown = given;
        setEditorValue(r, shown);
        r.explicitlySet = v.contains(r.spec.key);
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
    r.explicitlySet = true;
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
