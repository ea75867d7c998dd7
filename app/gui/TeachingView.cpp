#include "TeachingView.h"

#include "DecisionRegionWidget.h"

#include <DataSource.h>
#include <ExperimentSpec.h>
#include <PluginRegistry.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

namespace tb::gui {
namespace {


QString percent(double share)
{
    return std::isfinite(share) ? QStringLiteral("%1 %").arg(100.0 * share, 0, 'f', 1) : QStringLiteral("–");
}

} // namespace

const QStringList& TeachingView::sets()
{
    static const QStringList s{QStringLiteral("moons"), QStringLiteral("circles"), QStringLiteral("spirals"),
                               QStringLiteral("xor")};
    return s;
}

TeachingView::TeachingView(const PluginRegistry& registry, QWidget* parent) : QWidget(parent), m_registry(registry)
{
    auto* controls = new QGridLayout;
    m_set = new QComboBox;
    m_set->addItems(sets());
    m_set->setToolTip(tr("Two-dimensional classification set"));
    m_samples = new QSpinBox;
    m_samples->setRange(20, 5000);
    m_samples->setValue(400);
    m_samples->setSingleStep(50);
    m_samples->setToolTip(tr("Points generated (training and test together)"));
    m_noise = new QDoubleSpinBox;
    m_noise->setRange(0.0, 1.0);
    m_noise->setSingleStep(0.05);
    m_noise->setDecimals(3);
    m_noise->setValue(0.1);
    m_noise->setToolTip(tr("Standard deviation of the Gaussian noise added to both coordinates"));
    m_seed = new QSpinBox;
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setValue(1);
    m_seed->setToolTip(tr("Seed of the data and of both runs: the two sides see the same points"));
    m_train = new QPushButton(tr("Train"));
    m_stop = new QPushButton(tr("Stop"));
    m_status = new QLabel;
    m_status->setWordWrap(true);

    int col = 0;
    auto add = [&](const QString& label, QWidget* w) {
        controls->addWidget(new QLabel(label), 0, col++);
        controls->addWidget(w, 0, col++);
    };
    add(tr("Set"), m_set);
    add(tr("Samples"), m_samples);
    add(tr("Noise"), m_noise);
    add(tr("Seed"), m_seed);
    controls->addWidget(m_train, 0, col++);
    controls->addWidget(m_stop, 0, col++);
    controls->setColumnStretch(col, 1);

    // One grid for both sides: the two plots share a row and so always have the same size,
    // whether or not a side shows a solve table below its plot.
    auto* sides = new QGridLayout;
    for (int i = 0; i < 2; ++i) {
        buildSide(sides, i);
        sides->setColumnStretch(i, 1);
    }
    sides->setRowStretch(2, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(sides, 1);
    layout->addWidget(m_status);

    populateAlgorithms();

    connect(m_train, &QPushButton::clicked, this, &TeachingView::train);
    connect(m_stop, &QPushButton::clicked, this, &TeachingView::stop);
    auto dataChanged = [this] {
        QString error;
        if (!isRunning() && !reloadData(&error))
            setStatus(error);
    };
    connect(m_set, &QComboBox::currentIndexChanged, this, dataChanged);
    connect(m_samples, &QSpinBox::valueChanged, this, dataChanged);
    connect(m_noise, &QDoubleSpinBox::valueChanged, this, dataChanged);
    connect(m_seed, &QSpinBox::valueChanged, this, dataChanged);
    QString error;
    if (!reloadData(&error))
        setStatus(error);
    updateButtons();
}

TeachingView::~TeachingView()
{
    // Both workers stop together; each session's destructor then only joins.
    for (Side& s : m_sides)
        s.session->stop();
    for (Side& s : m_sides) {
        s.session->disconnect(this);
        delete s.session;
        s.session = nullptr;
    }
}

void TeachingView::buildSide(QGridLayout* grid, int i)
{
    Side& s = m_sides[std::size_t(i)];
    auto* pick = new QHBoxLayout;
    s.algorithm = new QComboBox;
    s.algorithm->setToolTip(i == 0 ? tr("Algorithm on the left") : tr("Algorithm on the right"));
    s.threads = new QSpinBox;
    s.threads->setRange(1, ExperimentSpec::allCores());
    s.threads->setValue(1);
    s.threads->setToolTip(tr("Thread cap of this side (1 each lets both sides train at once on two cores)"));
    pick->addWidget(s.algorithm, 1);
    pick->addWidget(new QLabel(tr("Threads")));
    pick->addWidget(s.threads);
    grid->addLayout(pick, 0, i);
    s.title = new QLabel;
    s.title->setAlignment(Qt::AlignCenter);
    QFont bold = s.title->font();
    bold.setBold(true);
    s.title->setFont(bold);
    grid->addWidget(s.title, 1, i);
    s.region = new DecisionRegionWidget;
    grid->addWidget(s.region, 2, i);
    s.caption = new QLabel(tr("not trained yet"));
    s.caption->setAlignment(Qt::AlignCenter);
    grid->addWidget(s.caption, 3, i);
    s.solves = new QTableWidget(0, 6);
    s.solves->setHorizontalHeaderLabels({tr("Layer"), tr("Phase"), tr("Method"), tr("Cond"), tr("Residual"),
                                         tr("Fallback")});
    s.solves->verticalHeader()->hide();
    s.solves->setEditTriggers(QAbstractItemView::NoEditTriggers);
    s.solves->setSelectionMode(QAbstractItemView::NoSelection);
    s.solves->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    s.solves->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    s.solves->setToolTip(tr("BPLS: the least-squares solves of the latest sweep. Cond = condition estimate of "
                            "AᵀA + λI (∞ when rank-deficient), Residual = ‖AW − B‖ / ‖B‖"));
    s.solves->verticalHeader()->setDefaultSectionSize(s.solves->fontMetrics().height() + 4);
    s.solves->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    s.solves->hide();
    grid->addWidget(s.solves, 4, i);

    s.session = new TeachingSession(m_registry, this);
    connect(s.session, &TeachingSession::frameReady, this, [this, i](const TeachingFrame& f) { showFrame(i, f); });
    connect(s.session, &TeachingSession::finished, this, [this, i](const QString& st) { sideFinished(i, st); });
    connect(s.algorithm, &QComboBox::currentIndexChanged, this,
            [this, i] { m_sides[std::size_t(i)].title->setText(m_sides[std::size_t(i)].algorithm->currentText()); });
}

void TeachingView::populateAlgorithms()
{
    for (Side& s : m_sides) {
        const QSignalBlocker block(s.algorithm);
        s.algorithm->clear();
        for (const AlgorithmEntry& a : m_registry.algorithms()) {
            if (!a.info.classification)
                continue;
            s.algorithm->addItem(a.info.name, a.info.id);
            s.algorithm->setItemData(s.algorithm->count() - 1,
                                     QStringLiteral("%1 (%2)\n%3").arg(a.info.id, a.info.citation, a.info.description),
                                     Qt::ToolTipRole);
        }
    }
    const int count = m_sides[0].algorithm->count();
    if (count == 0) {
        setStatus(tr("No classification algorithm is loaded: check the plugin folders (Plugins dialog)."));
        return;
    }
    auto pick = [&](int i, const QString& preferred, int fallback) {
        QComboBox* c = m_sides[std::size_t(i)].algorithm;
        const int at = c->findData(preferred);
        c->setCurrentIndex(at >= 0 ? at : std::min(fallback, count - 1));
        m_sides[std::size_t(i)].title->setText(c->currentText());
    };
    pick(0, QStringLiteral("bpls.classify"), 0);
    pick(1, QStringLiteral("gradient.adam"), 1);
}

void TeachingView::setParamsProvider(std::function<QVariantMap(const QString&)> provider)
{
    m_paramsProvider = std::move(provider);
}

void TeachingView::setAlgorithms(const QString& leftId, const QString& rightId)
{
    QStringList unknown;
    const QString ids[2] = {leftId, rightId};
    for (int i = 0; i < 2; ++i) {
        QComboBox* c = m_sides[std::size_t(i)].algorithm;
        const int at = c->findData(ids[i]);
        if (at >= 0)
            c->setCurrentIndex(at);
        else
            unknown << ids[i];
    }
    if (!unknown.isEmpty())
        setStatus(tr("Not a loaded classification algorithm: %1").arg(unknown.join(QStringLiteral(", "))));
}

void TeachingView::setDataset(const QJsonObject& spec)
{
    const QString source = spec.value(QStringLiteral("source")).toString();
    if (!sets().contains(source)) {
        setStatus(tr("The teaching view shows 2-D sets (%1); dataset.source \"%2\" is not one.")
                      .arg(sets().join(QStringLiteral(", ")), source));
        return;
    }
    const QString invalid = data::DataSource::validate(spec);
    if (!invalid.isEmpty()) {
        setStatus(invalid);
        return;
    }
    m_baseSpec = spec;
    {
        const QSignalBlocker b1(m_set), b2(m_samples), b3(m_noise), b4(m_seed);
        m_set->setCurrentIndex(int(sets().indexOf(source)));
        if (spec.contains(QStringLiteral("samples")))
            m_samples->setValue(spec.value(QStringLiteral("samples")).toInt());
        if (spec.contains(QStringLiteral("noise")))
            m_noise->setValue(spec.value(QStringLiteral("noise")).toDouble());
        if (spec.contains(QStringLiteral("seed"))) {
            const QJsonValue seed = spec.value(QStringLiteral("seed"));
            m_seed->setValue(seed.isString() ? seed.toString().toInt() : seed.toInt());
        }
    }
    QString error;
    if (!isRunning() && !reloadData(&error))
        setStatus(error);
}

QJsonObject TeachingView::datasetSpec() const
{
    QJsonObject spec = m_baseSpec;
    spec.insert(QStringLiteral("source"), m_set->currentText());
    spec.insert(QStringLiteral("samples"), m_samples->value());
    spec.insert(QStringLiteral("noise"), m_noise->value());
    spec.insert(QStringLiteral("seed"), m_seed->value());
    return spec;
}

bool TeachingView::reloadData(QString* error)
{
    const QJsonObject spec = datasetSpec();
    std::shared_ptr<data::DatasetPair> pair;
    try {
        pair = std::make_shared<data::DatasetPair>(data::DataSource::load(spec, QString()));
    } catch (const std::exception& e) {
        *error = tr("dataset: %1").arg(QString::fromUtf8(e.what()));
        return false;
    }
    if (pair->train.inputs() != 2 || !pair->train.isClassification()) {
        *error = tr("dataset: the teaching view needs 2 inputs and classes, got %1 inputs").arg(pair->train.inputs());
        return false;
    }
    m_data = pair;
    m_bounds = DecisionRegionWidget::dataBounds(pair->train.x, pair->test.x);
    for (Side& s : m_sides) {
        s.region->setPoints(pair->train.x, pair->train.labels, pair->test.x, pair->test.labels,
                            pair->train.classNames);
        s.region->setBounds(m_bounds);
        s.frame = TeachingFrame{};
        s.caption->setText(tr("not trained yet"));
        s.solves->hide();
    }
    setStatus(data::DataSource::describe(spec));
    return true;
}

void TeachingView::train()
{
    if (isRunning()) {
        m_restartPending = true;
        for (Side& s : m_sides)
            s.session->stop();
        updateButtons();
        return;
    }
    m_restartPending = false;
    QString error;
    if (!reloadData(&error)) {
        setStatus(error);
        for (int i = 0; i < 2; ++i)
            Q_EMIT finished(i, QStringLiteral("failed: ") + error);
        return;
    }
    for (int i = 0; i < 2; ++i) {
        Side& s = m_sides[std::size_t(i)];
        const QString id = s.algorithm->currentData().toString();
        const QVariantMap params = m_paramsProvider ? m_paramsProvider(id) : QVariantMap();
        s.title->setText(s.algorithm->currentText());
        s.caption->setText(tr("training…"));
        s.session->start(id, params, m_data, m_bounds, gridSize, gridSize, std::uint64_t(m_seed->value()),
                         s.threads->value());
    }
    updateButtons();
}

void TeachingView::stop()
{
    m_restartPending = false;
    for (Side& s : m_sides)
        s.session->stop();
    updateButtons();
}

bool TeachingView::isRunning() const
{
    return m_sides[0].session->isRunning() || m_sides[1].session->isRunning();
}

DecisionRegionWidget* TeachingView::side(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].region : nullptr;
}

QString TeachingView::caption(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].caption->text() : QString();
}

QTableWidget* TeachingView::solveTable(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].solves : nullptr;
}

TeachingFrame TeachingView::lastFrame(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].frame : TeachingFrame{};
}

void TeachingView::showFrame(int i, const TeachingFrame& f)
{
    Side& s = m_sides[std::size_t(i)];
    s.frame = f;
    s.region->setRegion(f.region);
    s.caption->setText(QStringLiteral("epoch %1 · train %2 · test %3 · %4 s")
                           .arg(QString::number(f.epoch, 'g', 4), percent(f.trainAccuracy), percent(f.testAccuracy),
                                QString::number(f.trainSeconds, 'f', 2)));
    s.caption->setToolTip(f.note);
    if (f.layerSolves.isEmpty()) {
        s.solves->hide();
    } else {
        s.solves->setRowCount(int(f.layerSolves.size()));
        for (int r = 0; r < f.layerSolves.size(); ++r) {
            const QJsonObject o = f.layerSolves[r].toObject();
            const QJsonValue cond = o.value(QStringLiteral("cond"));
            const QString cells[6] = {
                QString::number(o.value(QStringLiteral("layer")).toInt()),
                o.value(QStringLiteral("phase")).toString(),
                o.value(QStringLiteral("method")).toString(),
                cond.isDouble() ? QString::number(cond.toDouble(), 'e', 2) : QStringLiteral("∞"),
                QString::number(o.value(QStringLiteral("residual")).toDouble(), 'e', 2),
                o.value(QStringLiteral("fallback")).toBool() ? tr("yes") : tr("no")};
            for (int c = 0; c < 6; ++c) {
                auto* item = new QTableWidgetItem(cells[c]);
                if (c == 1)
                    item->setToolTip(cells[1]); // long phase names are elided in narrow windows
                if (c == 5 && o.value(QStringLiteral("fallback")).toBool())
                    item->setToolTip(o.value(QStringLiteral("reason")).toString());
                s.solves->setItem(r, c, item);
            }
        }
        // Exactly as tall as its rows (a few per network): no scrolling inside the table.
        s.solves->setFixedHeight(s.solves->horizontalHeader()->sizeHint().height() +
                                 s.solves->verticalHeader()->defaultSectionSize() * s.solves->rowCount() +
                                 2 * s.solves->frameWidth());
        s.solves->show();
    }
    Q_EMIT checkpointShown(i, f.epoch);
}

void TeachingView::sideFinished(int i, const QString& status)
{
    Side& s = m_sides[std::size_t(i)];
    if (status != QLatin1String("finished"))
        s.caption->setText(s.frame.region.isNull() ? status : s.caption->text() + QStringLiteral(" · ") + status);
    Q_EMIT finished(i, status);
    if (!isRunning() && m_restartPending)
        train();
    updateButtons();
}

void TeachingView::updateButtons()
{
    const bool running = isRunning();
    m_stop->setEnabled(running);
    m_train->setText(running ? tr("Restart") : tr("Train"));
    for (QWidget* w : {static_cast<QWidget*>(m_set), static_cast<QWidget*>(m_samples),
                       static_cast<QWidget*>(m_noise), static_cast<QWidget*>(m_seed)})
        w->setEnabled(!running);
}

void TeachingView::setStatus(const QString& text)
{
    m_status->setText(text);
}

} // namespace tb::gui
