#include "AlgorithmPanel.h"

#include "ParamForm.h"

#include <QCheckBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>

namespace tb::gui {

AlgorithmPanel::AlgorithmPanel(const PluginRegistry& registry, QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // forms wrap instead
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);

    auto* content = new QWidget(scroll);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(2);

    int loaded = 0;
    for (const auto& plugin : registry.plugins()) {
        if (!plugin->isLoaded())
            continue; // broken plugins are listed in the Plugins dialog
        ++loaded;
        auto* title = new QLabel(QStringLiteral("<b>%1</b> <span style='color:gray'>%2</span>")
                                     .arg(plugin->name.toHtmlEscaped(), plugin->version.toHtmlEscaped()),
                                 content);
        title->setToolTip(plugin->description + QStringLiteral("\n") + plugin->filePath);
        if (layout->count() > 0)
            layout->addSpacing(8);
        layout->addWidget(title);
        for (const auto& info : plugin->algorithms)
            addEntry(layout, info);
    }
    if (loaded == 0) {
        auto* none = new QLabel(tr("No trainer plugins are loaded. See Help → Plugins for the search path "
                                   "and the reasons."),
                                content);
        none->setWordWrap(true);
        layout->addWidget(none);
    }
    layout->addStretch(1);
    scroll->setWidget(content);
}

AlgorithmPanel::~AlgorithmPanel() = default;

void AlgorithmPanel::addEntry(QVBoxLayout* layout, const AlgorithmInfo& info)
{
    Entry e;
    e.info = info;
    QWidget* parent = layout->parentWidget();

    e.header = new QWidget(parent);
    auto* h = new QHBoxLayout(e.header);
    h->setContentsMargins(0, 0, 0, 0);
    e.expand = new QToolButton(e.header);
    e.expand->setArrowType(Qt::RightArrow);
    e.expand->setCheckable(true);
    e.expand->setAutoRaise(true);
    e.expand->setToolTip(tr("Show the parameters"));
    e.check = new QCheckBox(info.name, e.header);
    e.check->setObjectName(info.id);
    const QString tip = QStringLiteral("%1\n%2").arg(info.description, info.id);
    e.check->setToolTip(tip);
    h->addWidget(e.expand);
    h->addWidget(e.check, 1);
    layout->addWidget(e.header);

    e.body = new QWidget(parent);
    auto* v = new QVBoxLayout(e.body);
    v->setContentsMargins(24, 0, 0, 6); // indented under the check box
    auto* labelRow = new QHBoxLayout;
    labelRow->addWidget(new QLabel(tr("Label"), e.body));
    e.label = new QLineEdit(e.body);
    e.label->setPlaceholderText(info.name);
    e.label->setToolTip(tr("Legend label of this algorithm's curves; empty: \"%1\"").arg(info.name));
    labelRow->addWidget(e.label, 1);
    v->addLayout(labelRow);
    if (!info.description.isEmpty()) {
        auto* desc = new QLabel(info.description, e.body);
        desc->setWordWrap(true);
        v->addWidget(desc);
    }
    e.form = new ParamForm(info.schema, e.body);
    v->addWidget(e.form);
    auto* buttons = new QHBoxLayout;
    e.reset = new QPushButton(tr("Reset to defaults"), e.body);
    buttons->addWidget(e.reset);
    buttons->addStretch(1);
    v->addLayout(buttons);
    if (!info.citation.isEmpty()) {
        auto* cite = new QLabel(info.citation, e.body);
        cite->setWordWrap(true);
        cite->setTextInteractionFlags(Qt::TextSelectableByMouse);
        cite->setStyleSheet(QStringLiteral("color: #555; font-style: italic;"));
        v->addWidget(cite);
    }
    e.body->setVisible(false);
    layout->addWidget(e.body);

    QWidget* body = e.body;
    QToolButton* expand = e.expand;
    connect(e.expand, &QToolButton::toggled, body, [body, expand](bool on) {
        body->setVisible(on);
        expand->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
    });
    connect(e.check, &QCheckBox::toggled, this, &AlgorithmPanel::changed);
    connect(e.label, &QLineEdit::textChanged, this, &AlgorithmPanel::changed);
    connect(e.form, &ParamForm::changed, this, &AlgorithmPanel::changed);
    connect(e.form, &ParamForm::sweepRequested, this,
            [this, id = info.id](const QString& key) { Q_EMIT sweepRequested(id, key); });
    connect(e.reset, &QPushButton::clicked, e.form, &ParamForm::resetToDefaults);
    m_entries.append(e);
}

const AlgorithmPanel::Entry* AlgorithmPanel::entry(const QString& id) const
{
    for (const auto& e : m_entries)
        if (e.info.id == id)
            return &e;
    return nullptr;
}

QString AlgorithmPanel::runLabel(const Entry& e) const
{
    const QString t = e.label->text().trimmed();
    return t.isEmpty() ? e.info.name : t;
}

QList<AlgorithmRun> AlgorithmPanel::selectedAlgorithms() const
{
    QList<AlgorithmRun> out;
    for (const auto& e : m_entries)
        if (e.check->isChecked() && e.header->isEnabled())
            out.append(AlgorithmRun{e.info.id, runLabel(e), e.form->values()});
    return out;
}

void AlgorithmPanel::setSelection(const QList<AlgorithmRun>& runs)
{
    m_selectionProblems.clear();
    QStringList seen;
    {
        const QSignalBlocker block(this); // one changed() for the whole selection
        for (auto& e : m_entries) {
            e.check->setChecked(false);
            e.label->clear();
            e.form->resetToDefaults();
        }
        for (int i = 0; i < runs.size(); ++i) {
            const AlgorithmRun& r = runs[i];
            const Entry* e = entry(r.id);
            if (!e) {
                m_selectionProblems << tr("algorithms[%1]: unknown algorithm \"%2\" (no loaded plugin offers it)")
                                           .arg(i)
                                           .arg(r.id);
                continue;
            }
            if (seen.contains(r.id)) {
                m_selectionProblems << tr("algorithms[%1]: \"%2\" is listed again; the panel keeps one "
                                          "configuration per algorithm (the first)")
                                           .arg(i)
                                           .arg(r.id);
                continue;
            }
            seen << r.id;
            e->check->setChecked(true);
            e->label->setText(r.label == e->info.name ? QString() : r.label);
            e->form->setValues(r.params);
            // A file's unknown parameter keys would silently vanish from the form: report them.
            for (auto it = r.params.begin(); it != r.params.end(); ++it)
                if (!e->info.schema.find(it.key()))
                    m_selectionProblems << tr("%1: unknown parameter \"%2\" ignored").arg(e->info.name, it.key());
        }
    }
    Q_EMIT changed();
}

QStringList AlgorithmPanel::problems() const
{
    QStringList out;
    for (const auto& e : m_entries) {
        if (!e.check->isChecked() || !e.header->isEnabled())
            continue;
        for (const auto& p : e.form->problems())
            out << e.info.name + QStringLiteral(": ") + p;
    }
    return out + m_selectionProblems;
}

void AlgorithmPanel::setTask(Task t)
{
    m_task = t;
    const QString taskName = t == Task::Regression ? tr("regression") : tr("classification");
    for (auto& e : m_entries) {
        const bool ok = t == Task::Regression ? e.info.regression : e.info.classification;
        e.header->setEnabled(ok);
        e.body->setEnabled(ok);
        const QString tip = QStringLiteral("%1\n%2").arg(e.info.description, e.info.id);
        e.check->setToolTip(ok ? tip : tip + QStringLiteral("\n") + tr("Not available: does not handle %1.").arg(taskName));
    }
    Q_EMIT changed();
}

ParamForm* AlgorithmPanel::form(const QString& algorithmId) const
{
    const Entry* e = entry(algorithmId);
    return e ? e->form : nullptr;
}

void AlgorithmPanel::setChecked(const QString& algorithmId, bool on)
{
    if (const Entry* e = entry(algorithmId))
        e->check->setChecked(on);
}

bool AlgorithmPanel::isChecked(const QString& algorithmId) const
{
    const Entry* e = entry(algorithmId);
    return e && e->check->isChecked();
}

bool AlgorithmPanel::isAvailable(const QString& algorithmId) const
{
    const Entry* e = entry(algorithmId);
    return e && e->header->isEnabled();
}

void AlgorithmPanel::setExpanded(const QString& algorithmId, bool on)
{
    if (const Entry* e = entry(algorithmId))
        e->expand->setChecked(on);
}

QVariantMap AlgorithmPanel::paramsFor(const QString& algorithmId) const
{
    const Entry* e = entry(algorithmId);
    return e ? e->form->values() : QVariantMap();
}

QStringList AlgorithmPanel::algorithmIds() const
{
    QStringList out;
    for (const auto& e : m_entries)
        out << e.info.id;
    return out;
}

} // namespace tb::gui
