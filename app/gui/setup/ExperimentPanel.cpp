#include "ExperimentPanel.h"

#include <ExperimentKind.h>

#include "SweepEditor.h"
#include "widgets/KeptTextSpinBox.h"

#include <ExperimentSpec.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <cmath>

namespace tb::gui {

namespace {

const QList<double> kDefaultSigmas{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
constexpr int kDefaultMonteCarlo = 100;
const QString kDefaultName = QStringLiteral("Untitled experiment");

QString seedText(const QJsonValue& v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(qulonglong(v.toDouble()));
    return QStringLiteral("1");
}

} // namespace

ExperimentPanel::ExperimentPanel(QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_name = new QLineEdit(kDefaultName, this);
    m_name->setToolTip(tr("Shown in the run browser and as the chart title."));
    form->addRow(tr("Name"), m_name);

    m_kind = new QComboBox(this);
    QStringList kindHelp;
    for (const ExperimentKind* k : ExperimentKinds::all()) {
        m_kind->addItem(k->label(), k->id());
        m_kind->setItemData(m_kind->count() - 1, k->description(), Qt::ToolTipRole);
        kindHelp << QStringLiteral("%1: %2").arg(k->label(), k->description());
    }
    m_kind->setToolTip(kindHelp.join(QLatin1Char('\n')));
    form->addRow(tr("Kind"), m_kind);

    m_repeats = new IntField(this);
    m_repeats->setRange(1, 1000);
    m_repeats->setValue(1);
    m_repeats->setToolTip(tr("Runs per algorithm, each with its own seed; the charts show mean ± std. Default 1, 1 … 1000."));
    form->addRow(tr("Repeats"), m_repeats);
    m_repeatsRow = m_repeats;

    m_sigmas = new QLineEdit(formatSigmas(kDefaultSigmas), this);
    m_sigmas->setToolTip(tr("Noise levels σ: a list \"0, 0.1, 0.5\" or a range \"start:step:stop\" (inclusive). "
                            "Default 0:0.1:1."));
    form->addRow(tr("σ values"), m_sigmas);
    m_monteCarlo = new IntField(this);
    m_monteCarlo->setRange(1, 100000);
    m_monteCarlo->setValue(kDefaultMonteCarlo);
    m_monteCarlo->setToolTip(tr("Monte-Carlo runs per σ and algorithm (the paper uses 1000). Default 100, 1 … 100000."));
    form->addRow(tr("Monte-Carlo runs"), m_monteCarlo);
    m_sweepRows[0] = m_sigmas;
    m_sweepRows[1] = m_monteCarlo;
    m_sweepEditor = new SweepEditor(this);
    m_sweepEditor->setToolTip(tr("Parameters to sweep and their values; right-click a parameter in the Algorithms "
                                 "panel to add it here."));
    form->addRow(tr("Sweep"), m_sweepEditor);

    m_seed = new QLineEdit(QStringLiteral("1"), this);
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{1,20}")), m_seed));
    m_seed->setToolTip(tr("Base seed: every run's seed derives from it, so the same seed and thread count give the same "
                          "numbers. Default 1."));
    form->addRow(tr("Seed"), m_seed);

    m_threads = new IntField(this);
    const int cores = ExperimentSpec::allCores();
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("all cores (%1)").arg(cores));
    m_threads->setValue(0);
    m_threads->setToolTip(tr("Most worker threads the experiment may use; 0 = all %1 cores.").arg(cores));
    form->addRow(tr("Threads"), m_threads);

    m_budget = new RealField(this);
    m_budget->setRange(0, 1e6);
    m_budget->setDecimals(1);
    m_budget->setSuffix(tr(" s"));
    m_budget->setSpecialValueText(tr("none"));
    m_budget->setToolTip(tr("Training time after which each run is stopped (checked at checkpoints); 0 = none."));
    form->addRow(tr("Time budget per run"), m_budget);
    m_budgetClock = new QComboBox(this);
    m_budgetClock->addItem(tr("wall time"), QStringLiteral("wall"));
    m_budgetClock->addItem(tr("CPU time"), QStringLiteral("cpu"));
    m_budgetClock->setToolTip(tr("The clock of the budget: training time, or the CPU time of every thread of the run "
                                 "(for one run at a time: a noise sweep on one thread, a sweep of one cell at a time)."));
    m_budgetClock->setEnabled(false);
    form->addRow(tr("Budget clock"), m_budgetClock);

    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_message->hide();
    form->addRow(m_message);

    auto emitChanged = [this] {
        if (!m_loading)
            Q_EMIT changed();
    };
    connect(m_name, &QLineEdit::textChanged, this, emitChanged);
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this, emitChanged] {
        updateVisibility();
        emitChanged();
    });
    connect(m_repeats, &QSpinBox::valueChanged, this, emitChanged);
    connect(m_sigmas, &QLineEdit::textChanged, this, [this, emitChanged] {
        refreshMessage();
        emitChanged();
    });
    connect(m_monteCarlo, &QSpinBox::valueChanged, this, emitChanged);
    connect(m_seed, &QLineEdit::textChanged, this, [this, emitChanged] {
        refreshMessage();
        emitChanged();
    });
    connect(m_threads, &QSpinBox::valueChanged, this, emitChanged);
    connect(m_sweepEditor, &SweepEditor::changed, this, [this, emitChanged] {
        refreshMessage();
        emitChanged();
    });
    connect(m_budget, &QDoubleSpinBox::valueChanged, this, emitChanged);
    connect(m_budget, &QDoubleSpinBox::valueChanged, this, [this](double v) { m_budgetClock->setEnabled(v > 0); });
    connect(m_budgetClock, &QComboBox::currentIndexChanged, this, emitChanged);
    for (QAbstractSpinBox* box : {static_cast<QAbstractSpinBox*>(m_repeats), static_cast<QAbstractSpinBox*>(m_monteCarlo),
                                  static_cast<QAbstractSpinBox*>(m_threads), static_cast<QAbstractSpinBox*>(m_budget)})
        if (auto* edit = box->findChild<QLineEdit*>())
            connect(edit, &QLineEdit::textEdited, this, [this, emitChanged] {
                refreshMessage();
                emitChanged();
            });
    updateVisibility();
}

QJsonObject ExperimentPanel::values() const
{
    QJsonObject o = m_kept;
    o.insert(QStringLiteral("name"), m_name->text().trimmed().isEmpty() ? kDefaultName : m_name->text().trimmed());
    o.insert(QStringLiteral("kind"), m_kind->currentData().toString());
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
    if (!ownsKindKeys()) {
        // A kind without fields here: its keys and sweep stay as the file wrote them (m_kept).
    } else if (isNoiseSweep()) {
        o.remove(QStringLiteral("repeats"));
        o.remove(QStringLiteral("first_repeat"));
        QList<double> sigmas;
        QJsonValue sigmaValue = m_sigmas->text();
        if (parseSigmas(m_sigmas->text(), &sigmas, nullptr)) {
            QJsonArray a;
            for (double s : sigmas)
                a.append(s);
            sigmaValue = a;
        }
        o.insert(QStringLiteral("sweep"), QJsonObject{{"sigma", sigmaValue}, {"monte_carlo", m_monteCarlo->value()}});
    } else {
        o.remove(QStringLiteral("sweep"));
        o.insert(QStringLiteral("repeats"), m_repeats->value());
        if (isParamSweep())
            o.insert(QStringLiteral("sweep"), m_sweepEditor->sweepJson());
    }
    return o;
}

void ExperimentPanel::setValues(const QJsonObject& spec)
{
    m_loading = true;
    // Every key without a field here is kept as the file had it (description, first_repeat, the
    // budget's clock, a kind's own keys …), so a save writes it back; "dataset" and "algorithms"
    // are other panels'.
    m_kept = spec;
    for (const char* key : {"name", "kind", "seed", "threads", "time_budget_s", "time_budget_clock", "dataset", "algorithms"})
        m_kept.remove(QLatin1String(key));
    m_name->setText(spec.value(QStringLiteral("name")).toString(kDefaultName));
    const QString kind = spec.value(QStringLiteral("kind")).toString();
    m_kind->setCurrentIndex(std::max(0, m_kind->findData(kind)));
    m_sweepEditor->setSweepJson(kind == QLatin1String("param-sweep") ? spec.value(QStringLiteral("sweep")).toObject()
                                                                     : QJsonObject());
    m_repeats->setValue(spec.value(QStringLiteral("repeats")).toInt(1));
    const QJsonObject sw = spec.value(QStringLiteral("sweep")).toObject();
    QList<double> sigmas;
    for (const QJsonValue& v : sw.value(QStringLiteral("sigma")).toArray())
        sigmas << v.toDouble();
    m_sigmas->setText(sw.contains(QStringLiteral("sigma")) ? formatSigmas(sigmas) : formatSigmas(kDefaultSigmas));
    m_monteCarlo->setValue(sw.value(QStringLiteral("monte_carlo")).toInt(kDefaultMonteCarlo));
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
    if (isNoiseSweep()) {
        QString error;
        QList<double> sigmas;
        if (!parseSigmas(m_sigmas->text(), &sigmas, &error))
            out << tr("σ values (sweep.sigma): ") + error;
        if (!m_noiseAvailable)
            out << tr("Kind (kind): the data set has no noise level to sweep; choose a generator (BPLS toy, Friedman #1, "
                      "moons, circles, spirals, xor)");
    }
    // A number field keeps what was typed (KeptTextSpinBox) while its value stays the last good
    // one: name it, with the form's label, so Run refuses instead of using the old value.
    const struct {
        QString label;
        const char* key;
        QAbstractSpinBox* box;
    } boxes[] = {{tr("Repeats"), "repeats", m_repeats},
                 {tr("Monte-Carlo runs"), "sweep.monte_carlo", m_monteCarlo},
                 {tr("Threads"), "threads", m_threads},
                 {tr("Time budget per run"), "time_budget_s", m_budget}};
    for (const auto& b : boxes) {
        if ((b.box == m_repeats && isNoiseSweep()) || (b.box == m_monteCarlo && !isNoiseSweep()))
            continue; // the other kind's field
        const QString p = typedTextProblem(b.box, b.label, QLatin1String(b.key));
        if (!p.isEmpty())
            out << p;
    }
    if (isParamSweep())
        out << m_sweepEditor->problems();
    bool ok = false;
    m_seed->text().toULongLong(&ok);
    if (!ok)
        out << tr("Seed (seed): expected an integer from 0 to 18446744073709551615, got \"%1\"").arg(m_seed->text());
    return out;
}

void ExperimentPanel::setNoiseSweepAvailable(bool on)
{
    m_noiseAvailable = on;
    if (const ExperimentKind* k = ExperimentKinds::find(kinds::NoiseSweep))
        m_kind->setItemData(m_kind->findData(kinds::NoiseSweep),
                            on ? k->description() : tr("The data set has no noise level: choose a generator."),
                            Qt::ToolTipRole);
    refreshMessage();
}

bool ExperimentPanel::ownsKindKeys() const
{
    const QString kind = m_kind->currentData().toString();
    return kind == kinds::LearningCurve || kind == kinds::NoiseSweep || kind == kinds::ParamSweep;
}

bool ExperimentPanel::isNoiseSweep() const
{
    return m_kind->currentData().toString() == kinds::NoiseSweep;
}

bool ExperimentPanel::isParamSweep() const
{
    return m_kind->currentData().toString() == kinds::ParamSweep;
}

void ExperimentPanel::sweepParameter(const QString& key)
{
    m_kind->setCurrentIndex(m_kind->findData(kinds::ParamSweep));
    m_sweepEditor->addAxis(key);
}

int ExperimentPanel::threads() const
{
    return m_threads->value();
}

void ExperimentPanel::setThreads(int n)
{
    m_threads->setValue(std::max(0, n));
}

bool ExperimentPanel::parseSigmas(const QString& text, QList<double>* out, QString* error)
{
    auto fail = [&](const QString& m) {
        if (error)
            *error = m;
        return false;
    };
    const QString t = text.trimmed();
    QList<double> values;
    if (t.contains(QLatin1Char(':'))) {
        const QStringList parts = t.split(QLatin1Char(':'));
        bool ok[3] = {false, false, false};
        if (parts.size() != 3)
            return fail(tr("\"%1\" is not a range start:step:stop").arg(text));
        const double a = parts[0].trimmed().toDouble(&ok[0]), step = parts[1].trimmed().toDouble(&ok[1]),
                     b = parts[2].trimmed().toDouble(&ok[2]);
        if (!ok[0] || !ok[1] || !ok[2] || !std::isfinite(a) || !std::isfinite(step) || !std::isfinite(b))
            return fail(tr("\"%1\" is not a range start:step:stop of numbers").arg(text));
        if (!(step > 0) || b < a)
            return fail(tr("\"%1\": the step must be positive and stop ≥ start").arg(text));
        const double count = std::floor((b - a) / step + 1e-9) + 1;
        if (count > 10000)
            return fail(tr("\"%1\" gives %2 values; at most 10000").arg(text).arg(count));
        // Rounded to 12 significant digits: 0:0.1:0.3 gives 0.3, not 0.30000000000000004.
        for (int i = 0; i < int(count); ++i)
            values << QString::number(a + i * step, 'g', 12).toDouble();
    } else {
        const QStringList parts = t.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
        for (const QString& p : parts) {
            bool ok = false;
            const double v = p.toDouble(&ok);
            if (!ok || !std::isfinite(v))
                return fail(tr("\"%1\" is not a number (in \"%2\")").arg(p, text));
            values << v;
        }
    }
    if (values.isEmpty())
        return fail(tr("give at least one σ value, e.g. \"0, 0.1, 0.2\""));
    for (double v : values)
        if (v < 0)
            return fail(tr("σ must be ≥ 0, got %1").arg(v));
    if (out)
        *out = values;
    return true;
}

QString ExperimentPanel::formatSigmas(const QList<double>& values)
{
    QStringList parts;
    for (double v : values)
        parts << QString::number(v, 'g', QLocale::FloatingPointShortest);
    return parts.join(QStringLiteral(", "));
}

void ExperimentPanel::updateVisibility()
{
    auto* form = static_cast<QFormLayout*>(layout());
    const bool sweep = isNoiseSweep();
    form->setRowVisible(m_repeatsRow, !sweep);
    form->setRowVisible(m_sweepRows[0], sweep);
    form->setRowVisible(m_sweepRows[1], sweep);
    form->setRowVisible(m_sweepEditor, isParamSweep());
    refreshMessage();
}

void ExperimentPanel::refreshMessage()
{
    const QStringList p = problems();
    m_message->setText(p.join(QLatin1Char('\n')));
    m_message->setVisible(!p.isEmpty());
}

} // namespace tb::gui
