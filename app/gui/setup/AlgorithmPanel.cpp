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

#include <algorithm>

namespace tb::gui {

AlgorithmPanel::AlgorithmPanel(const PluginRegistry& registry, QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_suggestion = new QWidget(this);
    m_suggestion->setObjectName(QStringLiteral("suggestion"));
    auto* bar = new QVBoxLayout(m_suggestion);
    bar->setContentsMargins(6, 4, 6, 4);
    m_suggestionText = new QLabel(m_suggestion);
    m_suggestionText->setWordWrap(true);
    auto* use = new QPushButton(tr("Use suggested settings"), m_suggestion);
    use->setObjectName(QStringLiteral("useSuggestion"));
    use->setToolTip(tr("Each plugin's settings for small 2-D sets, the teaching view's: for the in-tree algorithms 300 "
                       "epochs (or iterations), tanh hidden layers of 16, Glorot initial weights, batches of 16, a "
                       "learning rate of at least 0.01; for BPLS 50 refinement iterations"));
    connect(use, &QPushButton::clicked, this, [this] { applySuggestion(); });
    bar->addWidget(m_suggestionText);
    bar->addWidget(use, 0, Qt::AlignLeft);
    m_suggestion->setVisible(false);
    outer->addWidget(m_suggestion);
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
        if (plugin->algorithms.isEmpty())
            continue; // a data-source plugin, or a script host (its scripts are listed as plugins of their own)
        ++loaded;
        auto* title = new QLabel(QStringLiteral("<b>%1</b> <span style='color:gray'>%2</span>")
                                     .arg(plugin->name.toHtmlEscaped(), plugin->version.toHtmlEscaped()),
                                 content);
        title->setToolTip(plugin->description + QStringLiteral("\n") + plugin->filePath);
        if (layout->count() > 0)
            layout->addSpacing(8);
        layout->addWidget(title);
        for (const auto& info : plugin->algorithms) {
            // One container per algorithm: its configurations are added to it, below the first.
            auto* group = new QWidget(content);
            auto* g = new QVBoxLayout(group);
            g->setContentsMargins(0, 0, 0, 0);
            g->setSpacing(2);
            layout->addWidget(group);
            m_groups.insert(info.id, g);
            makeEntry(info, 0);
        }
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

AlgorithmPanel::Entry* AlgorithmPanel::makeEntry(const AlgorithmInfo& info, int index)
{
    QVBoxLayout* group = m_groups.value(info.id);
    QWidget* parent = group->parentWidget();
    auto owned = std::make_unique<Entry>();
    Entry* e = owned.get();
    e->info = info;
    e->index = index;

    e->header = new QWidget(parent);
    auto* h = new QHBoxLayout(e->header);
    h->setContentsMargins(index == 0 ? 0 : 16, 0, 0, 0);
    e->expand = new QToolButton(e->header);
    e->expand->setArrowType(Qt::RightArrow);
    e->expand->setCheckable(true);
    e->expand->setAutoRaise(true);
    e->expand->setToolTip(tr("Show the parameters"));
    e->check = new QCheckBox(info.name, e->header);
    e->check->setObjectName(index == 0 ? info.id : QStringLiteral("%1#%2").arg(info.id).arg(index));
    e->check->setToolTip(QStringLiteral("%1\n%2\n%3").arg(info.name, info.description, info.id));
    // A long name ("Doubly stochastic gradients, block-preconditioned") may be cut at its end in a
    // narrow dock (the tooltip has it whole) rather than make every form wider than the dock.
    e->check->setMinimumWidth(120);
    h->addWidget(e->expand);
    h->addWidget(e->check, 1);
    if (index > 0) {
        e->remove = new QToolButton(e->header);
        e->remove->setText(QStringLiteral("✕"));
        e->remove->setAutoRaise(true);
        e->remove->setToolTip(tr("Remove this configuration"));
        h->addWidget(e->remove);
    }

    e->body = new QWidget(parent);
    auto* v = new QVBoxLayout(e->body);
    v->setContentsMargins(index == 0 ? 24 : 40, 0, 0, 6); // indented under the check box
    auto* labelRow = new QHBoxLayout;
    labelRow->addWidget(new QLabel(tr("Label"), e->body));
    e->label = new QLineEdit(e->body);
    e->label->setPlaceholderText(info.name);
    e->label->setToolTip(tr("Legend label of this configuration's curves; empty: \"%1\". Two configurations of one "
                            "algorithm need different labels.")
                             .arg(info.name));
    labelRow->addWidget(e->label, 1);
    v->addLayout(labelRow);
    if (index == 0 && !info.description.isEmpty()) {
        auto* desc = new QLabel(info.description, e->body);
        desc->setWordWrap(true);
        v->addWidget(desc);
    }
    e->form = new ParamForm(info.schema, e->body);
    v->addWidget(e->form);
    auto* buttons = new QHBoxLayout;
    auto* reset = new QPushButton(tr("Reset to defaults"), e->body);
    buttons->addWidget(reset);
    auto* add = new QPushButton(tr("Add another configuration"), e->body);
    add->setToolTip(tr("Run %1 a second time in this experiment with other settings (its own label and form)")
                        .arg(info.name));
    buttons->addWidget(add);
    buttons->addStretch(1);
    v->addLayout(buttons);
    if (index == 0 && !info.citation.isEmpty()) {
        auto* cite = new QLabel(info.citation, e->body);
        cite->setWordWrap(true);
        cite->setTextInteractionFlags(Qt::TextSelectableByMouse);
        cite->setStyleSheet(QStringLiteral("color: #555; font-style: italic;"));
        v->addWidget(cite);
    }
    e->body->setVisible(false);
    group->addWidget(e->header);
    group->addWidget(e->body);
    updateHeaderText(*e);

    QWidget* body = e->body;
    QToolButton* expand = e->expand;
    connect(e->expand, &QToolButton::toggled, body, [body, expand](bool on) {
        body->setVisible(on);
        expand->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
    });
    connect(e->check, &QCheckBox::toggled, this, [this, e](bool on) { onChecked(e, on); });
    connect(e->label, &QLineEdit::textChanged, this, [this, e] {
        updateHeaderText(*e);
        Q_EMIT changed();
    });
    connect(e->form, &ParamForm::changed, this, &AlgorithmPanel::changed);
    connect(e->form, &ParamForm::sweepRequested, this,
            [this, id = info.id](const QString& key) { Q_EMIT sweepRequested(id, key); });
    connect(reset, &QPushButton::clicked, e->form, &ParamForm::resetToDefaults);
    const QString id = info.id;
    connect(add, &QPushButton::clicked, this, [this, id] { addConfiguration(id); });
    if (e->remove)
        connect(e->remove, &QToolButton::clicked, this, [this, e] {
            // Deleting the button's own entry inside its click: do it once the click is over.
            QMetaObject::invokeMethod(this, [this, e] {
                for (const auto& owned : m_entries)
                    if (owned.get() == e) {
                        destroyEntry(e);
                        Q_EMIT changed();
                        return;
                    }
            }, Qt::QueuedConnection);
        });

    // Keep display order: configurations of one algorithm after each other, by index.
    auto at = std::find_if(m_entries.begin(), m_entries.end(), [&](const auto& x) {
        return x->info.id == info.id && x->index > index;
    });
    if (at == m_entries.end()) {
        auto last = std::find_if(m_entries.rbegin(), m_entries.rend(), [&](const auto& x) { return x->info.id == info.id; });
        at = last == m_entries.rend() ? m_entries.end() : last.base();
    }
    m_entries.insert(at, std::move(owned));
    return e;
}

void AlgorithmPanel::updateHeaderText(Entry& e)
{
    // A row shows its configuration's label when it has one (three BPLS variants read as such);
    // the algorithm's own row shows its name otherwise.
    const QString t = e.label->text().trimmed();
    if (!t.isEmpty())
        e.check->setText(t);
    else
        e.check->setText(e.index == 0 ? e.info.name : tr("%1 (configuration %2)").arg(e.info.name).arg(e.index + 1));
}

void AlgorithmPanel::onChecked(Entry* e, bool on)
{
    m_order.removeAll(e);
    if (on)
        m_order.append(e);
    Q_EMIT changed();
}

void AlgorithmPanel::destroyEntry(Entry* e)
{
    m_order.removeAll(e);
    delete e->header;
    delete e->body;
    m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(), [e](const auto& x) { return x.get() == e; }),
                    m_entries.end());
}

AlgorithmPanel::Entry* AlgorithmPanel::entry(const QString& id, int index) const
{
    for (const auto& e : m_entries)
        if (e->info.id == id && e->index == index)
            return e.get();
    return nullptr;
}

QList<AlgorithmPanel::Entry*> AlgorithmPanel::entriesOf(const QString& id) const
{
    QList<Entry*> out;
    for (const auto& e : m_entries)
        if (e->info.id == id)
            out << e.get();
    return out;
}

QString AlgorithmPanel::runLabel(const Entry& e) const
{
    const QString t = e.label->text().trimmed();
    return t.isEmpty() ? e.info.name : t;
}

bool AlgorithmPanel::usable(const Entry& e) const
{
    return e.check->isChecked() && e.header->isEnabled();
}

QList<AlgorithmRun> AlgorithmPanel::selectedAlgorithms() const
{
    QList<AlgorithmRun> out;
    for (const Entry* e : m_order)
        if (usable(*e))
            out.append(AlgorithmRun{e->info.id, runLabel(*e), e->form->values(), std::nullopt, e->kindKeys});
    return out;
}

QList<AlgorithmRun> AlgorithmPanel::experimentAlgorithms() const
{
    QList<AlgorithmRun> out;
    for (const Entry* e : m_order)
        if (usable(*e))
            out.append(AlgorithmRun{e->info.id, e->label->text().trimmed(), e->form->explicitValues(), std::nullopt,
                                    e->kindKeys});
    return out;
}

void AlgorithmPanel::setSelection(const QList<AlgorithmRun>& runs)
{
    m_selectionProblems.clear();
    {
        const QSignalBlocker block(this); // one changed() for the whole selection
        QList<Entry*> extras;
        for (const auto& e : m_entries)
            if (e->index > 0)
                extras << e.get();
        for (Entry* e : extras)
            destroyEntry(e);
        for (const auto& e : m_entries) {
            e->check->setChecked(false);
            e->label->clear();
            e->kindKeys = {};
            e->form->resetToDefaults();
        }
        m_order.clear();
        for (int i = 0; i < runs.size(); ++i) {
            const AlgorithmRun& r = runs[i];
            Entry* e = entry(r.id, 0);
            if (!e) {
                m_selectionProblems << tr("algorithms[%1]: unknown algorithm \"%2\" (no loaded plugin offers it)")
                                           .arg(i)
                                           .arg(r.id);
                continue;
            }
            if (e->check->isChecked()) // listed again: another configuration of it
                e = entry(r.id, addConfiguration(r.id));
            e->label->setText(r.label);
            e->kindKeys = r.kindKeys;
            e->form->setValues(r.params);
            e->check->setChecked(true);
            e->expand->setChecked(false);
            // A file's unknown parameter keys would silently vanish from the form: report them.
            for (auto it = r.params.begin(); it != r.params.end(); ++it)
                if (!e->info.schema.find(it.key()))
                    m_selectionProblems << tr("%1: unknown parameter \"%2\" ignored").arg(runLabel(*e), it.key());
        }
    }
    Q_EMIT changed();
}

QStringList AlgorithmPanel::problems() const
{
    QStringList out;
    QHash<QString, QStringList> labels; // algorithm id → labels of its selected configurations
    for (const Entry* e : m_order) {
        if (!usable(*e))
            continue;
        for (const auto& p : e->form->problems())
            out << runLabel(*e) + QStringLiteral(": ") + p;
        QStringList& seen = labels[e->info.id];
        if (seen.contains(runLabel(*e)))
            out << tr("%1: two configurations of %2 have this label; give each its own label (the charts and the "
                      "run browser tell them apart by label)")
                       .arg(runLabel(*e), e->info.name);
        seen << runLabel(*e);
    }
    return out + m_selectionProblems;
}

void AlgorithmPanel::setTask(Task t)
{
    m_task = t;
    const QString taskName = t == Task::Regression ? tr("regression") : tr("classification");
    for (const auto& e : m_entries) {
        const bool ok = t == Task::Regression ? e->info.regression : e->info.classification;
        e->header->setEnabled(ok);
        e->body->setEnabled(ok);
        const QString tip = QStringLiteral("%1\n%2\n%3").arg(e->info.name, e->info.description, e->info.id);
        e->check->setToolTip(ok ? tip
                                : tip + QStringLiteral("\n") + tr("Not available: does not handle %1.").arg(taskName));
    }
    Q_EMIT changed();
}

void AlgorithmPanel::setSuggestion(const QString& why)
{
    m_suggestionText->setText(
        why.isEmpty() ? QString()
                      : tr("The defaults suit large data sets; on %1 some stay at chance (Adam: 10 epochs, lr 0.001, "
                           "sigmoid). Suggested for the ticked algorithms:")
                            .arg(why));
    m_suggestion->setVisible(!why.isEmpty());
}

int AlgorithmPanel::applySuggestion()
{
    int filled = 0;
    for (Entry* e : m_order) {
        if (!usable(*e))
            continue;
        QVariantMap v = e->form->explicitValues();
        const QVariantMap suggested = e->info.schema.teachingPreset();
        for (auto it = suggested.begin(); it != suggested.end(); ++it)
            if (const ParamSpec* spec = e->info.schema.find(it.key());
                spec && (it.value() != spec->defaultValue || v.contains(it.key())))
                v.insert(it.key(), it.value());
        e->form->setValues(v);
        ++filled;
    }
    if (filled > 0)
        Q_EMIT changed();
    return filled;
}

int AlgorithmPanel::addConfiguration(const QString& algorithmId)
{
    const QList<Entry*> existing = entriesOf(algorithmId);
    if (existing.isEmpty())
        return -1;
    int index = 0;
    for (const Entry* e : existing)
        index = std::max(index, e->index + 1);
    Entry* e = makeEntry(existing.first()->info, index);
    e->header->setEnabled(existing.first()->header->isEnabled());
    e->body->setEnabled(existing.first()->body->isEnabled());
    e->check->setToolTip(existing.first()->check->toolTip());
    {
        const QSignalBlocker block(e->label);
        e->label->setText(QStringLiteral("%1 %2").arg(e->info.name).arg(index + 1));
    }
    updateHeaderText(*e);
    e->expand->setChecked(true);
    e->check->setChecked(true); // emits changed()
    return index;
}

bool AlgorithmPanel::removeConfiguration(const QString& algorithmId, int index)
{
    Entry* e = index > 0 ? entry(algorithmId, index) : nullptr;
    if (!e)
        return false;
    destroyEntry(e);
    Q_EMIT changed();
    return true;
}

int AlgorithmPanel::configurationCount(const QString& algorithmId) const
{
    return int(entriesOf(algorithmId).size());
}

ParamForm* AlgorithmPanel::form(const QString& algorithmId, int index) const
{
    const Entry* e = entry(algorithmId, index);
    return e ? e->form : nullptr;
}

QLineEdit* AlgorithmPanel::labelEdit(const QString& algorithmId, int index) const
{
    const Entry* e = entry(algorithmId, index);
    return e ? e->label : nullptr;
}

void AlgorithmPanel::setChecked(const QString& algorithmId, bool on, int index)
{
    if (const Entry* e = entry(algorithmId, index))
        e->check->setChecked(on);
}

bool AlgorithmPanel::isChecked(const QString& algorithmId, int index) const
{
    const Entry* e = entry(algorithmId, index);
    return e && e->check->isChecked();
}

bool AlgorithmPanel::isAvailable(const QString& algorithmId) const
{
    const Entry* e = entry(algorithmId);
    return e && e->header->isEnabled();
}

void AlgorithmPanel::setExpanded(const QString& algorithmId, bool on, int index)
{
    if (const Entry* e = entry(algorithmId, index))
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
        if (e->index == 0)
            out << e->info.id;
    return out;
}

} // namespace tb::gui
