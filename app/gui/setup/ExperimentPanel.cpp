#include "ExperimentPanel.h"

#include "KindFields.h"
#include "ParamForm.h"
#include "SectionEditor.h"
#include "widgets/KeptTextSpinBox.h"

#include <engine/ExperimentKind.h>
#include <engine/ExperimentSpec.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tb::gui {

namespace {

const QString kDefaultName = QStringLiteral("Untitled experiment");

QString seedText(const QJsonValue& v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(qulonglong(v.toDouble()));
    return QStringLiteral("1");
}

// The keys every experiment file has, which this panel edits itself or leaves to the other panels.
const QStringList kCommonKeys{QStringLiteral("name"),          QStringLiteral("kind"),
                              QStringLiteral("seed"),          QStringLiteral("threads"),
                              QStringLiteral("time_budget_s"), QStringLiteral("time_budget_clock"),
                              QStringLiteral("dataset"),       QStringLiteral("algorithms")};

} // namespace

ExperimentPanel::ExperimentPanel(QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* top = new QFormLayout;
    top->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    outer->addLayout(top);

    m_name = new QLineEdit(kDefaultName, this);
    m_name->setToolTip(tr("Shown in the run browser and as the chart title."));
    top->addRow(tr("Name"), m_name);

    m_kind = new QComboBox(this);
    QStringList kindHelp;
    for (const ExperimentKind* k : ExperimentKinds::all()) {
        m_kind->addItem(k->label(), k->id());
        m_kind->setItemData(m_kind->count() - 1, k->description(), Qt::ToolTipRole);
        kindHelp << QStringLiteral("%1: %2").arg(k->label(), k->description());
    }
    m_kind->setToolTip(kindHelp.join(QLatin1Char('\n')));
    top->addRow(tr("Kind"), m_kind);

    // Every kind's fields, from its schemas; the chosen kind's are shown.
    for (const ExperimentKind* k : ExperimentKinds::all()) {
        auto* fields = new KindFields(*k, this);
        fields->setObjectName(QStringLiteral("kind-fields-") + k->id());
        m_fields.insert(k->id(), fields);
        outer->addWidget(fields);
        connect(fields, &KindFields::changed, this, [this] {
            refreshMessage();
            if (!m_loading)
                Q_EMIT changed();
        });
    }

    auto* bottom = new QFormLayout;
    bottom->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    outer->addLayout(bottom);
    m_seed = new QLineEdit(QStringLiteral("1"), this);
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{1,20}")), m_seed));
    m_seed->setToolTip(tr("Base seed: every run's seed derives from it, so the same seed and thread count give the same "
                          "numbers. Default 1."));
    bottom->addRow(tr("Seed"), m_seed);

    m_threads = new IntField(this);
    const int cores = ExperimentSpec::allCores();
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("all cores (%1)").arg(cores));
    m_threads->setValue(0);
    m_threads->setToolTip(tr("Most worker threads the experiment may use; 0 = all %1 cores.").arg(cores));
    bottom->addRow(tr("Threads"), m_threads);

    m_budget = new RealField(this);
    m_budget->setRange(0, 1e6);
    m_budget->setDecimals(1);
    m_budget->setSuffix(tr(" s"));
    m_budget->setSpecialValueText(tr("none"));
    m_budget->setToolTip(tr("Training time after which each run is stopped (checked at checkpoints); 0 = none."));
    bottom->addRow(tr("Time budget per run"), m_budget);
    m_budgetClock = new QComboBox(this);
    m_budgetClock->addItem(tr("wall time"), QStringLiteral("wall"));
    m_budgetClock->addItem(tr("CPU time"), QStringLiteral("cpu"));
    m_budgetClock->setToolTip(tr("The clock of the budget: training time, or the CPU time of every thread of the run "
                                 "(for runs that train one at a time in the process)."));
    m_budgetClock->setEnabled(false);
    bottom->addRow(tr("Budget clock"), m_budgetClock);

    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_message->hide();
    outer->addWidget(m_message);

    auto emitChanged = [this] {
        if (!m_loading)
            Q_EMIT changed();
    };
    connect(m_name, &QLineEdit::textChanged, this, emitChanged);
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this, emitChanged] {
        updateVisibility();
        emitChanged();
    });
    connect(m_seed, &QLineEdit::textChanged, this, [this, emitChanged] {
        refreshMessage();
        emitChanged();
    });
    connect(m_threads, &QSpinBox::valueChanged, this, emitChanged);
    connect(m_budget, &QDoubleSpinBox::valueChanged, this, emitChanged);
    connect(m_budget, &QDoubleSpinBox::valueChanged, this, [this](double v) { m_budgetClock->setEnabled(v > 0); });
    connect(m_budgetClock, &QComboBox::currentIndexChanged, this, emitChanged);
    for (QAbstractSpinBox* box : {static_cast<QAbstractSpinBox*>(m_threads), static_cast<QAbstractSpinBox*>(m_budget)})
        if (auto* edit = box->findChild<QLineEdit*>())
            connect(edit, &QLineEdit::textEdited, this, [this, emitChanged] {
                refreshMessage();
                emitChanged();
            });
    updateVisibility();
}

ExperimentPanel::~ExperimentPanel()
{
    // QWidget's destructor closes the window after this one's members are gone: a field that
    // loses focus then must not reach them through a connection.
    for (QObject* child : findChildren<QObject*>())
        child->disconnect(this);
}

KindFields* ExperimentPanel::current() const
{
    return m_fields.value(kind());
}

QString ExperimentPanel::kind() const
{
    return m_kind->currentData().toString();
}

QWidget* ExperimentPanel::field(const QString& key) const
{
    const KindFields* f = current();
    return f && f->form() ? f->form()->editor(key) : nullptr;
}

QJsonObject ExperimentPanel::values() const
{
    QJsonObject o = m_kept;
    // Another kind's keys and section go (a file switched from a noise sweep to a learning curve
    // must not keep its "sweep"); the chosen kind writes its own.
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it)
        if (it.key() != kind())
            it.value()->removeFrom(o);
    if (KindFields* f = current()) {
        f->removeFrom(o);
        f->writeTo(o);
    }
    o.insert(QStringLiteral("name"), m_name->text().trimmed().isEmpty() ? kDefaultName : m_name->text().trimmed());
    o.insert(QStringLiteral("kind"), kind());
    // The forms' parameters are in the current format (a file's are converted when it is opened).
    o.insert(QStringLiteral("format"), kParamsFormat);
    bool ok = false;
    const qulonglong seed = m_seed->text().toULongLong(&ok);
    // Above 2^53 a JSON number would round: the file format takes a decimal string there.
    if (ok && seed < (qulonglong(1) << 53))
        o.insert(QStringLiteral("seed"), double(seed));
    else
        o.insert(QStringLiteral("seed"), m_seed->text());
    if (m_threads->value() > 0)
        o.insert(QStringLiteral("threads"), m_threads->value());
    else
        o.remove(QStringLiteral("threads"));
    if (m_budget->value() > 0) {
        o.insert(QStringLiteral("time_budget_s"), m_budget->value());
        // "wall" is the default: written only when the file wrote it.
        const QString clock = m_budgetClock->currentData().toString();
        if (clock != QLatin1String("wall") || m_clockWritten)
            o.insert(QStringLiteral("time_budget_clock"), clock);
    } else {
        o.remove(QStringLiteral("time_budget_s"));
        o.remove(QStringLiteral("time_budget_clock"));  // a clock without a budget is an error
    }
    return o;
}

void ExperimentPanel::setValues(const QJsonObject& spec)
{
    m_loading = true;
    // Every key without a field here is kept as the file had it (description, the budget's clock,
    // a kind's key it has no field for …), so a save writes it back; "dataset" and "algorithms"
    // are other panels'.
    m_kept = spec;
    for (const QString& key : kCommonKeys)
        m_kept.remove(key);
    m_name->setText(spec.value(QStringLiteral("name")).toString(kDefaultName));
    const QString kindId = spec.value(QStringLiteral("kind")).toString();
    m_kind->setCurrentIndex(std::max(0, m_kind->findData(kindId)));
    // Every kind's fields show what the file has of them (a file's keys of another kind leave
    // defaults there); the chosen kind's keys are written back by its fields, not kept.
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it)
        it.value()->setFile(it.key() == kind() ? spec : QJsonObject());
    if (KindFields* f = current())
        f->removeFrom(m_kept);
    m_seed->setText(spec.contains(QStringLiteral("seed")) ? seedText(spec.value(QStringLiteral("seed"))) : QStringLiteral("1"));
    if (spec.contains(QStringLiteral("threads")))
        m_threads->setValue(spec.value(QStringLiteral("threads")).toInt());
    m_budget->setValue(spec.value(QStringLiteral("time_budget_s")).toDouble(0));
    const QJsonValue clock = spec.value(QStringLiteral("time_budget_clock"));
    m_clockWritten = clock.isString() && m_budgetClock->findData(clock.toString()) >= 0;
    if (m_clockWritten)
        m_budgetClock->setCurrentIndex(m_budgetClock->findData(clock.toString()));
    else {
        m_budgetClock->setCurrentIndex(0);
        if (spec.contains(QStringLiteral("time_budget_clock")))
            m_kept.insert(QStringLiteral("time_budget_clock"), clock); // not one of ours: kept for the checker to name
    }
    m_budgetClock->setEnabled(m_budget->value() > 0);
    m_loading = false;
    updateVisibility();
    refreshMessage();
    Q_EMIT changed();
}

QStringList ExperimentPanel::problems() const
{
    QStringList out;
    if (const KindFields* f = current())
        out << f->problems();
    out << m_kindProblems;
    // A number field keeps what was typed (KeptTextSpinBox) while its value stays the last good
    // one: name it, with the form's label, so Run refuses instead of using the old value.
    const struct {
        QString label;
        const char* key;
        QAbstractSpinBox* box;
    } boxes[] = {{tr("Threads"), "threads", m_threads}, {tr("Time budget per run"), "time_budget_s", m_budget}};
    for (const auto& b : boxes) {
        const QString p = typedTextProblem(b.box, b.label, QLatin1String(b.key));
        if (!p.isEmpty())
            out << p;
    }
    bool ok = false;
    m_seed->text().toULongLong(&ok);
    if (!ok)
        out << tr("Seed (seed): expected an integer from 0 to 18446744073709551615, got \"%1\"").arg(m_seed->text());
    return out;
}

void ExperimentPanel::setKindProblems(const QStringList& problems)
{
    if (problems == m_kindProblems)
        return;
    m_kindProblems = problems;
    refreshMessage();
}

bool ExperimentPanel::sweepParameter(const QString& key)
{
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it)
        if (it.value()->editor() && it.value()->editor()->addParameter(key)) {
            m_kind->setCurrentIndex(m_kind->findData(it.key()));
            return true;
        }
    return false;
}

void ExperimentPanel::setParameters(const QList<ParamSpec>& specs)
{
    for (KindFields* f : std::as_const(m_fields))
        if (f->editor())
            f->editor()->setParameters(specs);
}

int ExperimentPanel::threads() const
{
    return m_threads->value();
}

void ExperimentPanel::setThreads(int n)
{
    m_threads->setValue(std::max(0, n));
}

void ExperimentPanel::updateVisibility()
{
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it)
        it.value()->setVisible(it.key() == kind() && !it.value()->isEmpty());
    refreshMessage();
}

void ExperimentPanel::refreshMessage()
{
    const QStringList p = problems();
    m_message->setText(p.join(QLatin1Char('\n')));
    m_message->setVisible(!p.isEmpty());
}

} // namespace tb::gui
