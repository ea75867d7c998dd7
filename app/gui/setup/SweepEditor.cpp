#include "SweepEditor.h"

#include <engine/kinds/param_sweep/ParamSweep.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tb::gui {

SweepEditor::SweepEditor(QWidget* parent) : SectionEditor(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_rowsLayout = new QVBoxLayout;
    layout->addLayout(m_rowsLayout);
    auto* add = new QPushButton(tr("Add parameter"));
    add->setToolTip(tr("Sweep one more parameter: the runs cover every combination (a grid)"));
    connect(add, &QPushButton::clicked, this, [this] {
        for (const ParamSpec& s : m_specs)
            if (std::none_of(m_rows.begin(), m_rows.end(), [&](const Row& r) { return r.key->currentText() == s.key; })) {
                addAxis(s.key);
                return;
            }
        if (!m_specs.isEmpty())
            addAxis(m_specs.first().key);
    });
    layout->addWidget(add, 0, Qt::AlignLeft);
    m_message = new QLabel;
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b00020"));
    m_message->hide();
    layout->addWidget(m_message);
}

const ParamSpec* SweepEditor::spec(const QString& key) const
{
    for (const ParamSpec& s : m_specs)
        if (s.key == key)
            return &s;
    return nullptr;
}

QStringList SweepEditor::parameterKeys() const
{
    QStringList out;
    for (const ParamSpec& s : m_specs)
        out << s.key;
    return out;
}

void SweepEditor::fillKeys(QComboBox* box, const QString& current) const
{
    const QSignalBlocker block(box);
    box->clear();
    for (const ParamSpec& s : m_specs)
        box->addItem(s.key);
    if (!current.isEmpty() && box->findText(current) < 0)
        box->addItem(current); // kept, and reported by problems()
    box->setCurrentText(current);
}

void SweepEditor::setParameters(const QList<ParamSpec>& specs)
{
    m_specs = specs;
    for (const Row& r : m_rows)
        fillKeys(r.key, r.key->currentText());
    refreshMessage();
}

QString SweepEditor::suggestedValues(const ParamSpec& s)
{
    auto clip = [&](double v) { return std::clamp(v, s.minimum, s.maximum); };
    switch (s.type) {
    case ParamType::Real: {
        const double d = s.defaultValue.toDouble();
        if (s.logScale && d > 0) {
            const double lo = clip(d / 10), hi = clip(d * 10);
            if (lo > 0 && hi > lo)
                return QStringLiteral("log(%1, %2, 3)").arg(lo, 0, 'g', 6).arg(hi, 0, 'g', 6);
        }
        QStringList v;
        for (double f : {0.5, 1.0, 2.0})
            if (const double x = clip(d * f); !v.contains(QString::number(x, 'g', 6)))
                v << QString::number(x, 'g', 6);
        return v.join(QStringLiteral(", "));
    }
    case ParamType::Int: {
        const qlonglong d = s.defaultValue.toLongLong();
        QStringList v;
        for (double f : {0.5, 1.0, 2.0})
            if (const QString x = QString::number(qlonglong(clip(std::round(double(d) * f)))); !v.contains(x))
                v << x;
        return v.join(QStringLiteral(", "));
    }
    case ParamType::Bool: return QStringLiteral("true, false");
    case ParamType::Choice: return s.choices.join(QStringLiteral(", "));
    case ParamType::IntList:
    case ParamType::RealList: {
        QStringList v;
        for (const QVariant& e : s.defaultValue.toList())
            v << e.toString();
        return v.join(QLatin1Char(' '));
    }
    case ParamType::Text:
    case ParamType::Path:
    case ParamType::Folder:
    case ParamType::Columns:
    case ParamType::Seed:
        return s.defaultValue.toString(); // no sensible spread of values to suggest: the default, to edit
    }
    return {};
}

void SweepEditor::addAxis(const QString& key, const QString& values)
{
    for (const Row& r : m_rows)
        if (r.key->currentText() == key) {
            r.values->setFocus();
            r.values->selectAll();
            return;
        }
    Row row;
    // Parameter and remove button on one line, the values below at full width: the experiment
    // dock is narrow and value lists are long.
    row.widget = new QWidget;
    auto* v = new QVBoxLayout(row.widget);
    v->setContentsMargins(0, 0, 0, 4);
    v->setSpacing(2);
    auto* h = new QHBoxLayout;
    h->setContentsMargins(0, 0, 0, 0);
    row.key = new QComboBox;
    fillKeys(row.key, key);
    row.values = new QLineEdit;
    const ParamSpec* s = spec(key);
    row.values->setText(!values.isEmpty() ? values : (s ? suggestedValues(*s) : QString()));
    row.values->setPlaceholderText(tr("0.001, 0.01 or log(1e-4, 1e-1, 4)"));
    row.values->setToolTip(tr("Values to try: a list (\"0.001, 0.01\"), a range \"log(from, to, count)\" or "
                              "\"lin(from, to, count)\", choice names, true/false; int lists separated by ';'"));
    auto* remove = new QToolButton;
    remove->setText(QStringLiteral("✕"));
    remove->setToolTip(tr("Stop sweeping this parameter"));
    h->addWidget(row.key, 1);
    h->addWidget(remove);
    v->addLayout(h);
    v->addWidget(row.values);
    m_rowsLayout->addWidget(row.widget);
    m_rows << row;
    QWidget* w = row.widget;
    connect(remove, &QToolButton::clicked, this, [this, w] {
        for (int i = 0; i < m_rows.size(); ++i)
            if (m_rows[i].widget == w) {
                removeAxis(i);
                return;
            }
    });
    QLineEdit* edit = row.values;
    connect(row.key, &QComboBox::currentTextChanged, this, [this, edit](const QString& k) {
        if (const ParamSpec* sp = spec(k))
            edit->setText(suggestedValues(*sp));
        refreshMessage();
        if (!m_loading)
            Q_EMIT changed();
    });
    connect(row.values, &QLineEdit::textChanged, this, [this] {
        refreshMessage();
        if (!m_loading)
            Q_EMIT changed();
    });
    refreshMessage();
    if (!m_loading)
        Q_EMIT changed();
}

void SweepEditor::removeAxis(int row)
{
    if (row < 0 || row >= m_rows.size())
        return;
    delete m_rows[row].widget;
    m_rows.removeAt(row);
    refreshMessage();
    if (!m_loading)
        Q_EMIT changed();
}

QComboBox* SweepEditor::keyBox(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows[row].key : nullptr;
}

QLineEdit* SweepEditor::valuesEdit(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows[row].values : nullptr;
}

QJsonObject SweepEditor::sweepJson() const
{
    QJsonObject o = m_kept;
    if (!m_rows.isEmpty()) {
        QJsonObject grid;
        for (const Row& r : m_rows) {
            const QString key = r.key->currentText();
            const ParamSpec* s = spec(key);
            QString err;
            const auto v = s ? ParamSweep::parseValues(r.values->text(), *s, &err) : std::nullopt;
            grid.insert(key, v ? *v : QJsonValue(r.values->text()));
        }
        o.insert(QStringLiteral("grid"), grid);
        o.remove(QStringLiteral("list")); // the rows replace an opened file's list
    }
    return o;
}

void SweepEditor::setSweepJson(const QJsonObject& sweep)
{
    m_loading = true;
    while (!m_rows.isEmpty())
        removeAxis(int(m_rows.size()) - 1);
    m_kept = sweep;
    m_kept.remove(QStringLiteral("grid"));
    const QJsonObject grid = sweep.value(QStringLiteral("grid")).toObject();
    for (auto it = grid.begin(); it != grid.end(); ++it)
        addAxis(it.key(), it.value().isString() ? it.value().toString() : ParamSweep::formatValues(it.value()));
    m_loading = false;
    refreshMessage();
    Q_EMIT changed();
}

QStringList SweepEditor::problems() const
{
    QStringList out;
    QStringList seen;
    for (const Row& r : m_rows) {
        const QString key = r.key->currentText();
        const QString path = QStringLiteral("sweep.grid.") + key;
        if (seen.contains(key)) {
            out << QStringLiteral("%1: swept twice").arg(path);
            continue;
        }
        seen << key;
        const ParamSpec* s = spec(key);
        if (!s) {
            out << QStringLiteral("%1: not a parameter of every selected algorithm").arg(path);
            continue;
        }
        QString err;
        if (!ParamSweep::parseValues(r.values->text(), *s, &err))
            out << QStringLiteral("sweep.grid.%1").arg(err);
    }
    return out;
}

void SweepEditor::refreshMessage()
{
    const QStringList p = problems();
    m_message->setText(p.join(QLatin1Char('\n')));
    m_message->setVisible(!p.isEmpty());
}

} // namespace tb::gui
