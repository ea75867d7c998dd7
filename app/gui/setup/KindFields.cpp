#include "KindFields.h"

#include "ParamForm.h"
#include "SectionEditor.h"

#include <engine/ExperimentKind.h>

#include <QJsonArray>
#include <QVBoxLayout>

namespace tb::gui {
namespace {

// The value at @p path ("sweep.sigma") of @p file; Undefined when any step is missing.
QJsonValue valueAt(const QJsonObject& file, const QString& path)
{
    const QStringList steps = path.split(QLatin1Char('.'));
    QJsonValue v = file;
    for (const QString& step : steps) {
        if (!v.isObject())
            return QJsonValue(QJsonValue::Undefined);
        v = v.toObject().value(step);
    }
    return v;
}

// Sets @p path of @p file to @p value, creating the objects on the way.
void setAt(QJsonObject& file, const QStringList& steps, const QJsonValue& value)
{
    if (steps.size() == 1) {
        file.insert(steps.first(), value);
        return;
    }
    QJsonObject inner = file.value(steps.first()).toObject();
    setAt(inner, steps.mid(1), value);
    file.insert(steps.first(), inner);
}

} // namespace

KindFields::KindFields(const ExperimentKind& kind, QWidget* parent) : QWidget(parent), m_kind(kind)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    ParamSchema schema = kind.keys();
    for (const ParamSpec& s : schema.specs())
        m_keyKeys << s.key;
    const ParamSchema section = kind.sectionSchema();
    for (const ParamSpec& s : section.specs())
        m_sectionKeys << s.key;
    schema.append(section);
    if (!schema.specs().isEmpty()) {
        m_form = new ParamForm(schema, this);
        layout->addWidget(m_form);
        connect(m_form, &ParamForm::changed, this, &KindFields::changed);
    }
    if (!kind.sectionEditor().isEmpty()) {
        m_editor = SectionEditors::create(kind.sectionEditor(), this);
        if (m_editor) {
            layout->addWidget(m_editor);
            connect(m_editor, &SectionEditor::changed, this, &KindFields::changed);
        }
    }
}

void KindFields::setFile(const QJsonObject& file)
{
    if (m_form) {
        QVariantMap values;
        for (const QString& key : m_keyKeys + m_sectionKeys) {
            const QJsonValue v = valueAt(file, key);
            if (!v.isUndefined())
                values.insert(key, v.toVariant());
        }
        m_form->setValues(values);
    }
    if (m_editor)
        m_editor->setFile(file);
    Q_EMIT changed();
}

void KindFields::writeTo(QJsonObject& file) const
{
    if (m_form) {
        const QVariantMap given = m_form->explicitValues();
        const QVariantMap all = m_form->values();
        for (const QString& key : m_keyKeys)
            if (given.contains(key))
                file.insert(key, QJsonValue::fromVariant(given.value(key)));
        for (const QString& key : m_sectionKeys) {
            // An optional key at the value that stands for its absence (ParamSpec::absentText: a tuned
            // comparison's CPU budget of 0) stays out of the file.
            const QVariant v = all.value(key);
            const ParamSpec* spec = m_form->schema().find(key);
            if (!v.isValid() || v.isNull() || (spec && !spec->absentText.isEmpty() && v == spec->defaultValue))
                continue;
            setAt(file, key.split(QLatin1Char('.')), QJsonValue::fromVariant(v));
        }
    }
    if (m_editor)
        m_editor->writeTo(file);
}

void KindFields::removeFrom(QJsonObject& file) const
{
    for (const QString& key : m_keyKeys)
        file.remove(key);
    for (const QString& key : m_kind.sectionKeys())
        file.remove(key);
    for (const QString& key : m_sectionKeys)
        file.remove(key.section(QLatin1Char('.'), 0, 0));
}

QStringList KindFields::problems() const
{
    QStringList out;
    if (m_form)
        out << m_form->problems();
    if (m_editor)
        out << m_editor->problems();
    return out;
}

} // namespace tb::gui
