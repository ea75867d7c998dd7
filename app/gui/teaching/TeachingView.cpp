#include "TeachingView.h"

#include "DecisionRegionWidget.h"
#include "NetworkDiagram.h"
#include "setup/ParamForm.h"
#include "TeachingCurves.h"

#include <data/DataSource.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFontMetrics>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

namespace tb::gui {
namespace {

/// A wrapped label at least @p lines lines tall: the tab's content is laid out at the viewport's
/// height (fitContent()), not at its height for its width, so the labels keep room of their own.
void wrapInLines(QLabel* label, int lines)
{
    label->setMinimumHeight(lines * label->fontMetrics().lineSpacing() + 2);
}

QString percent(double share)
{
    return std::isfinite(share) ? QStringLiteral("%1 %").arg(100.0 * share, 0, 'f', 1) : QStringLiteral("–");
}

/// What a condition number means for a solve in double precision (about 16 significant digits).
QString conditionMeaning(double cond)
{
    if (!std::isfinite(cond))
        return TeachingView::tr("∞: the matrix is rank-deficient; the solve used the fallback for such matrices");
    const double lost = std::max(0.0, std::log10(std::max(cond, 1.0)));
    return TeachingView::tr("Condition %1: errors in the data can be magnified up to %1 times, so about %2 of the "
                            "16 significant digits of double precision are lost and about %3 remain. Below ~1e8 "
                            "the solve is trustworthy; near 1e16 nothing is left.")
        .arg(QString::number(cond, 'e', 1))
        .arg(int(std::round(lost)))
        .arg(std::max(0, 16 - int(std::round(lost))));
}

} // namespace

const QStringList& TeachingView::sets()
{
    static const QStringList s{QStringLiteral("moons"), QStringLiteral("circles"), QStringLiteral("spirals"),
                               QStringLiteral("xor")};
    return s;
}

const QList<int>& TeachingView::paces()
{
    static const QList<int> p{0, 5, 10, 20, 40, 80, 150, 300, 500};
    return p;
}

TeachingView::TeachingView(const PluginRegistry& registry, QWidget* parent) : QWidget(parent), m_registry(registry)
{
    // The view's own data: labelled so, never mistaken for the Data set panel's.
    auto* dataBox = new QGroupBox(tr("Teaching data (this tab's own set)"));
    auto* data = new QHBoxLayout(dataBox);
    m_set = new QComboBox;
    m_set->addItems(sets());
    m_set->setToolTip(tr("Two-dimensional classification set"));
    m_samples = new QSpinBox;
    m_samples->setRange(20, 5000);
    m_samples->setValue(400);
    m_samples->setSingleStep(50);
    m_samples->setToolTip(tr("Points generated (training and test together). Default 400, 20 … 5000."));
    m_noise = new QDoubleSpinBox;
    m_noise->setRange(0.0, 1.0);
    m_noise->setSingleStep(0.05);
    m_noise->setDecimals(3);
    m_noise->setValue(0.2);
    m_noise->setToolTip(tr("Standard deviation of the Gaussian noise added to both coordinates. Default 0.2, 0 … 1."));
    m_seed = new QSpinBox;
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setValue(1);
    m_seed->setToolTip(tr("Seed of the data and of both runs: the two sides see the same points"));
    for (auto [label, w] : {std::pair<QString, QWidget*>{tr("Set"), m_set}, {tr("Samples"), m_samples},
                            {tr("Noise"), m_noise}, {tr("Seed"), m_seed}}) {
        data->addWidget(new QLabel(label));
        data->addWidget(w);
    }
    data->addStretch(1);

    auto* play = new QHBoxLayout;
    m_train = new QPushButton(tr("Train"));
    m_train->setToolTip(tr("Train both sides from the start"));
    m_pause = new QPushButton(tr("Pause"));
    m_pause->setCheckable(true);
    m_pause->setToolTip(tr("Hold both sides at their next checkpoint; press again to play on"));
    m_step = new QPushButton(tr("Step"));
    m_step->setToolTip(tr("While paused: one more epoch on both sides"));
    m_stop = new QPushButton(tr("Stop"));
    m_speed = new QSlider(Qt::Horizontal);
    m_speed->setRange(0, int(paces().size()) - 1);
    m_speed->setInvertedAppearance(true); // right = faster
    m_speed->setValue(int(paces().indexOf(20)));
    m_speed->setMinimumWidth(100);
    m_speed->setToolTip(tr("Speed: the least wall time per epoch (right: as fast as it trains)"));
    m_speedLabel = new QLabel;
    for (QWidget* w : {static_cast<QWidget*>(m_train), static_cast<QWidget*>(m_pause), static_cast<QWidget*>(m_step),
                       static_cast<QWidget*>(m_stop)})
        play->addWidget(w);
    play->addSpacing(12);
    play->addWidget(new QLabel(tr("Speed")));
    play->addWidget(m_speed, 1);
    play->addWidget(m_speedLabel);
    // The solver's numbers are for a second look: a class sees plots, captions and curves first.
    m_details = new QPushButton(tr("Solver details"));
    m_details->setCheckable(true);
    m_details->setToolTip(tr("Show how each layer was solved (BPLS): method, condition number, residual"));
    connect(m_details, &QPushButton::toggled, this, &TeachingView::applyDetails);
    // At the end of the data row, where there is room: beside the Speed slider it made the tab
    // too wide for a 1024-pixel screen with the docks open.
    data->addWidget(m_details);

    auto* sides = new QGridLayout;
    m_sidesGrid = sides;
    for (int i = 0; i < 2; ++i) {
        buildSide(sides, i);
        sides->setColumnStretch(i, 1);
    }
    sides->setRowStretch(3, 1);

    m_status = new QLabel;
    m_status->setWordWrap(true);
    // What the marks and lines mean, in plain words, once for both sides.
    m_key = new QLabel(tr("Points: <b>●</b> filled = training data, <b>○</b> hollow = test data; background = the "
                          "class the network predicts there. Curves under each plot: accuracy on the test data "
                          "(solid) and the training data (dashed), loss (grey), against epochs."));
    m_key->setWordWrap(true);
    m_key->setObjectName(QStringLiteral("teachingKey"));
    for (QLabel* l : {m_key, m_status})
        wrapInLines(l, 2);
    // Everything scrolls inside the tab: on a small screen the view never makes the window taller.
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->addWidget(dataBox);
    layout->addLayout(play);
    layout->addLayout(sides, 1);
    layout->addWidget(m_key);
    layout->addWidget(m_status);
    m_scroll = new QScrollArea;
    m_scroll->setObjectName(QStringLiteral("teachingScroll"));
    // Sized by fitContent(), not by the scroll area: with wrapped labels in it the content is
    // height-for-width, and QScrollArea then lays it out at its preferred height, not the tab's —
    // at 1366×768 the plots took 360 px and pushed the captions and curves below the fold.
    m_scroll->setWidgetResizable(false);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setWidget(content);
    m_scroll->viewport()->installEventFilter(this);
    content->installEventFilter(this);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_scroll);

    m_retrain.setSingleShot(true);
    m_retrain.setInterval(400);
    connect(&m_retrain, &QTimer::timeout, this, &TeachingView::train);

    populateAlgorithms();

    connect(m_train, &QPushButton::clicked, this, &TeachingView::train);
    connect(m_stop, &QPushButton::clicked, this, &TeachingView::stop);
    connect(m_pause, &QPushButton::toggled, this, &TeachingView::setPaused);
    connect(m_step, &QPushButton::clicked, this, &TeachingView::step);
    connect(m_speed, &QSlider::valueChanged, this, [this](int i) { setPace(paces().value(i)); });
    auto dataChanged = [this] {
        QString error;
        if (!isRunning() && !reloadData(&error))
            setStatus(error);
        scheduleRetrain();
    };
    connect(m_set, &QComboBox::currentIndexChanged, this, dataChanged);
    connect(m_samples, &QSpinBox::valueChanged, this, dataChanged);
    connect(m_noise, &QDoubleSpinBox::valueChanged, this, dataChanged);
    connect(m_seed, &QSpinBox::valueChanged, this, dataChanged);
    QString error;
    if (!reloadData(&error))
        setStatus(error);
    setPace(20);
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
    s.pick = new QGridLayout;
    s.pick->setContentsMargins(0, 0, 0, 0);
    s.pick->setColumnStretch(0, 1);
    s.algorithm = new QComboBox;
    s.algorithm->setToolTip(i == 0 ? tr("Algorithm on the left") : tr("Algorithm on the right"));
    s.algorithm->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    s.algorithm->setMinimumContentsLength(10);
    s.showForm = new QToolButton;
    s.showForm->setText(tr("Parameters"));
    s.showForm->setCheckable(true);
    s.showForm->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    s.showForm->setArrowType(Qt::RightArrow);
    s.showForm->setToolTip(tr("This side's own parameters (not the Algorithms panel's); any change retrains"));
    s.threads = new QSpinBox;
    s.threads->setRange(1, ExperimentSpec::allCores());
    s.threads->setValue(1);
    s.threads->setToolTip(tr("Thread cap of this side (1 each lets both sides train at once on two cores)"));
    s.controls = new QWidget;
    auto* controls = new QHBoxLayout(s.controls);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(s.showForm);
    controls->addStretch(1); // stacked under the algorithm: Threads at the right edge
    controls->addWidget(new QLabel(tr("Threads")));
    controls->addWidget(s.threads);
    s.pick->addWidget(s.algorithm, 0, 0);
    s.pick->addWidget(s.controls, 0, 1);
    grid->addLayout(s.pick, 0, i);

    // The parameters open over the plots, not between the picker and them: opening them pushed
    // the plots below the fold (issue 49). A popup: a click outside closes it; the side retrains
    // live behind it as values change.
    s.formArea = new QScrollArea(this);
    s.formArea->setWindowFlags(Qt::Popup);
    s.formArea->setWidgetResizable(true);
    s.formArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    s.formArea->setMaximumHeight(360);
    s.formArea->setFrameShape(QFrame::StyledPanel);
    s.formArea->hide();
    s.formArea->installEventFilter(this);

    s.title = new QLabel;
    s.title->setAlignment(Qt::AlignCenter);
    QFont bold = s.title->font();
    bold.setBold(true);
    s.title->setFont(bold);
    grid->addWidget(s.title, 2, i);
    s.region = new DecisionRegionWidget;
    grid->addWidget(s.region, 3, i);
    s.caption = new QLabel(tr("not trained yet"));
    s.caption->setAlignment(Qt::AlignCenter);
    grid->addWidget(s.caption, 4, i);
    s.curves = new TeachingCurves;
    grid->addWidget(s.curves, 5, i);
    s.network = new NetworkDiagram;
    s.network->hide();
    grid->addWidget(s.network, 6, i);

    s.solves = new QTableWidget(0, 6);
    s.solves->setHorizontalHeaderLabels({tr("Layer"), tr("Phase"), tr("Method"), tr("Cond"), tr("Residual"),
                                         tr("Fallback")});
    const QString headerTips[6] = {
        tr("Weight layer: 0 maps the inputs to the first hidden layer"),
        tr("Which solve of the sweep: the forward solve of a layer, or a refinement on misclassified rows"),
        tr("Cholesky of AᵀA + λI, or the eigen (pseudo-inverse) fallback for ill-conditioned or singular matrices"),
        tr("Condition number of AᵀA + λI: how much errors can be magnified. About log10(cond) of the 16 digits of "
           "double precision are lost: 6e7 loses ~8 and leaves ~8, still accurate; ~1e16 leaves none (∞: singular)"),
        tr("Relative residual ‖AW − B‖ / ‖B‖: how far the layer's least-squares fit is from its targets (0 = exact, 1 = "
           "no better than zero weights)"),
        tr("Whether the Cholesky solve failed and the eigen fallback was used (hover a 'yes' for the reason)")};
    for (int c = 0; c < 6; ++c)
        s.solves->horizontalHeaderItem(c)->setToolTip(headerTips[c]);
    s.solves->verticalHeader()->hide();
    s.solves->setEditTriggers(QAbstractItemView::NoEditTriggers);
    s.solves->setSelectionMode(QAbstractItemView::NoSelection);
    s.solves->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The phase takes what the numbers leave and wraps when that is short; rows are as tall as
    // their text in the font of the moment (presentation mode's is 1.6 times larger: rows sized
    // once for the normal font cut it).
    s.solves->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    s.solves->setWordWrap(true);
    s.solves->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    s.solves->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    s.solves->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Exactly as tall as its rows (a few per network), whatever the width and font: no
    // scrolling inside the table.
    s.solves->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    s.solves->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    s.solves->hide();
    // The table spans both sides, under them (the left side's first): a side's half of a
    // 1024-pixel screen left the phase a few letters in presentation mode's font.
    s.solvesTitle = new QLabel;
    s.solvesTitle->setWordWrap(true);
    wrapInLines(s.solvesTitle, 2);
    s.solvesTitle->hide();
    grid->addWidget(s.solvesTitle, 7 + 2 * i, 0, 1, 2);
    grid->addWidget(s.solves, 8 + 2 * i, 0, 1, 2);
    if (i == 1) {
        m_solvesHelp = new QLabel(tr("<small>BPLS solves each layer in closed form. <b>Cond</b>: condition number — "
                                     "about log₁₀(cond) of 16 digits are lost (6e7: ~8 lost, ~8 left, fine; ~1e16: "
                                     "none left). <b>Residual</b>: ‖AW − B‖/‖B‖, 0 = the layer meets its targets "
                                     "exactly. Hover the cells for more.</small>"));
        m_solvesHelp->setWordWrap(true);
        wrapInLines(m_solvesHelp, 3);
        m_solvesHelp->hide();
        grid->addWidget(m_solvesHelp, 11, 0, 1, 2);
    }

    s.session = new TeachingSession(m_registry, this);
    connect(s.session, &TeachingSession::frameReady, this, [this, i](const TeachingFrame& f) { showFrame(i, f); });
    connect(s.session, &TeachingSession::finished, this, [this, i](const QString& st) { sideFinished(i, st); });
    connect(s.algorithm, &QComboBox::currentIndexChanged, this, [this, i] { algorithmChosen(i); });
    QToolButton* toggle = s.showForm;
    QScrollArea* area = s.formArea;
    connect(s.showForm, &QToolButton::toggled, this, [this, toggle, area, i](bool on) {
        toggle->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
        if (!on) {
            area->hide();
            return;
        }
        // Under the button, as wide as the side's plot.
        const Side& side = m_sides[std::size_t(i)];
        const int width = std::max(side.region->width(), 280);
        area->resize(width, std::min(360, area->widget() ? area->widget()->sizeHint().height() + 8 : 240));
        const QPoint below = toggle->mapToGlobal(QPoint(0, toggle->height()));
        area->move(i == 0 ? below : QPoint(below.x() + toggle->width() - width, below.y()));
        area->show();
    });
    connect(s.threads, &QSpinBox::valueChanged, this, &TeachingView::scheduleRetrain);
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
        {
            const QSignalBlocker block(c);
            c->setCurrentIndex(at >= 0 ? at : std::min(fallback, count - 1));
        }
        algorithmChosen(i);
    };
    pick(0, QStringLiteral("bpls.classify"), 0);
    pick(1, QStringLiteral("gradient.adam"), 1);
}

bool TeachingView::eventFilter(QObject* watched, QEvent* event)
{
    // A parameters popup closed by a click outside it: its button says so.
    if (event->type() == QEvent::Hide)
        for (Side& s : m_sides)
            if (watched == s.formArea && s.showForm->isChecked())
                s.showForm->setChecked(false);
    if (m_scroll && watched == m_scroll->viewport() &&
        (event->type() == QEvent::Resize || event->type() == QEvent::FontChange)) {
        fitPicks();
        fitContent();
    }
    if (m_scroll && watched == m_scroll->widget() && event->type() == QEvent::LayoutRequest) {
        // The layout's new minimum first (it would take it only after this filter), then the size.
        if (QLayout* l = m_scroll->widget()->layout())
            l->activate();
        fitContent();
    }
    return QWidget::eventFilter(watched, event);
}

void TeachingView::fitContent()
{
    if (!m_scroll || !m_scroll->widget())
        return;
    // The viewport's size, or the content's minimum where that is larger (then it scrolls): the
    // plots take what the tab has left after the controls, captions and curves.
    QWidget* content = m_scroll->widget();
    const QSize min = content->minimumSizeHint();
    const QSize vp = m_scroll->maximumViewportSize();
    int width = std::max(vp.width(), min.width());
    const int height = std::max(vp.height(), min.height());
    if (height > vp.height()) // a vertical scroll bar will take its width
        width = std::max(min.width(), vp.width() - m_scroll->verticalScrollBar()->sizeHint().width());
    if (content->size() != QSize(width, height))
        content->resize(width, height);
}

void TeachingView::fitPicks()
{
    if (!m_scroll || !m_sidesGrid || !m_sides[1].pick)
        return;
    // What one side gets of the tab's width, and what its row needs to show the chosen
    // algorithm's whole name with Parameters and Threads beside it. The combo box's frame and
    // arrow are what its size hint (10 characters) adds to the characters themselves.
    const QMargins margins = m_scroll->widget()->layout()->contentsMargins();
    const int perSide =
        (m_scroll->viewport()->width() - margins.left() - margins.right() - m_sidesGrid->horizontalSpacing()) / 2;
    bool stack = false;
    for (const Side& s : m_sides) {
        const QFontMetrics fm(s.algorithm->font());
        const int frame = s.algorithm->sizeHint().width() - 10 * fm.horizontalAdvance(QLatin1Char('x'));
        const int name = fm.horizontalAdvance(s.algorithm->currentText()) + frame;
        if (name + s.pick->horizontalSpacing() + s.controls->sizeHint().width() > perSide)
            stack = true;
    }
    if (stack == m_picksStacked)
        return;
    m_picksStacked = stack;
    for (Side& s : m_sides) {
        s.pick->removeWidget(s.controls);
        if (stack)
            s.pick->addWidget(s.controls, 1, 0);
        else
            s.pick->addWidget(s.controls, 0, 1);
    }
}

void TeachingView::algorithmChosen(int i)
{
    Side& s = m_sides[std::size_t(i)];
    s.title->setText(s.algorithm->currentText());
    fitPicks();
    const AlgorithmEntry* entry = m_registry.algorithm(s.algorithm->currentData().toString());
    if (!entry)
        return;
    // A new form for the new algorithm, with parameters worth watching.
    delete s.form;
    s.form = new ParamForm(entry->info.schema);
    {
        const QSignalBlocker block(s.form);
        s.form->setValues(entry->info.schema.teachingPreset());
    }
    s.formArea->setWidget(s.form);
    connect(s.form, &ParamForm::changed, this, &TeachingView::scheduleRetrain);
    scheduleRetrain();
}

void TeachingView::scheduleRetrain()
{
    if (m_trainedOnce)
        m_retrain.start();
}

void TeachingView::setAlgorithms(const QString& leftId, const QString& rightId)
{
    QStringList unknown;
    const QString ids[2] = {leftId, rightId};
    for (int i = 0; i < 2; ++i) {
        QComboBox* c = m_sides[std::size_t(i)].algorithm;
        const int at = c->findData(ids[i]);
        if (at < 0)
            unknown << ids[i];
        else if (at != c->currentIndex())
            c->setCurrentIndex(at); // algorithmChosen() gives it a fresh form
    }
    if (!unknown.isEmpty())
        setStatus(tr("Not a loaded classification algorithm: %1").arg(unknown.join(QStringLiteral(", "))));
}

void TeachingView::setFromExperiment(const QList<AlgorithmRun>& algorithms)
{
    if (algorithms.isEmpty())
        return;
    const QString left = algorithms.at(0).id;
    QString right = algorithms.size() > 1 ? algorithms.at(1).id : m_sides[1].algorithm->currentData().toString();
    if (algorithms.size() == 1 && (right == left || right.isEmpty())) {
        QComboBox* c = m_sides[1].algorithm;
        for (int i = 0; i < c->count(); ++i)
            if (const QString id = c->itemData(i).toString(); id != left) {
                right = id;
                break;
            }
    }
    setAlgorithms(left, right);
    for (int i = 0; i < 2 && i < algorithms.size(); ++i) {
        Side& s = m_sides[std::size_t(i)];
        if (!s.form || s.algorithm->currentData().toString() != algorithms.at(i).id)
            continue; // not loaded: setAlgorithms() said so
        const AlgorithmEntry* entry = m_registry.algorithm(algorithms.at(i).id);
        if (!entry)
            continue;
        QVariantMap values = entry->info.schema.teachingPreset();
        for (auto it = algorithms.at(i).params.begin(); it != algorithms.at(i).params.end(); ++it)
            values.insert(it.key(), it.value());
        s.form->setValues(values); // emits changed(): a trained view retrains with them
    }
}

QString TeachingView::algorithmId(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].algorithm->currentData().toString() : QString();
}

ParamForm* TeachingView::form(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].form : nullptr;
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
    scheduleRetrain();
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
        s.curves->clear();
    }
    for (int i = 0; i < 2; ++i)
        hideSolves(i);
    setStatus(data::DataSource::describe(spec));
    return true;
}

void TeachingView::train()
{
    m_retrain.stop();
    m_trainedOnce = true;
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
        // The side's own form: values() as they stand (an invalid one fails the run, named).
        const QVariantMap params = s.form ? s.form->values() : QVariantMap();
        s.title->setText(s.algorithm->currentText());
        // Restarted while paused, it starts paused: said where the eye is, not left to guess.
        s.caption->setText(m_paused ? tr("paused at the start — press Pause to go on, or Step") : tr("training…"));
        s.session->setPace(pace());
        s.session->setPaused(m_paused);
        s.session->start(id, params, m_data, m_bounds, gridSize, gridSize, std::uint64_t(m_seed->value()),
                         s.threads->value());
    }
    updateButtons();
}

void TeachingView::stop()
{
    m_restartPending = false;
    m_retrain.stop();
    for (Side& s : m_sides)
        s.session->stop();
    updateButtons();
}

bool TeachingView::isRunning() const
{
    return m_sides[0].session->isRunning() || m_sides[1].session->isRunning();
}

void TeachingView::setPace(int msPerEpoch)
{
    for (Side& s : m_sides)
        s.session->setPace(msPerEpoch);
    int nearest = 0;
    for (int i = 0; i < paces().size(); ++i)
        if (std::abs(paces()[i] - msPerEpoch) < std::abs(paces()[nearest] - msPerEpoch))
            nearest = i;
    {
        const QSignalBlocker block(m_speed);
        m_speed->setValue(nearest);
    }
    m_speedLabel->setText(msPerEpoch == 0 ? tr("fastest") : tr("%1 ms/epoch").arg(msPerEpoch));
}

int TeachingView::pace() const
{
    return m_sides[0].session->pace();
}

void TeachingView::setPaused(bool on)
{
    m_paused = on;
    for (Side& s : m_sides)
        s.session->setPaused(on);
    {
        const QSignalBlocker block(m_pause);
        m_pause->setChecked(on);
    }
    m_pause->setText(on ? tr("Play") : tr("Pause"));
    updateButtons();
}

bool TeachingView::isPaused() const
{
    return m_paused;
}

void TeachingView::step()
{
    for (Side& s : m_sides)
        s.session->step();
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

TeachingCurves* TeachingView::curves(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].curves : nullptr;
}

NetworkDiagram* TeachingView::network(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].network : nullptr;
}

TeachingFrame TeachingView::lastFrame(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].frame : TeachingFrame{};
}

TeachingSession* TeachingView::session(int i) const
{
    return i == 0 || i == 1 ? m_sides[std::size_t(i)].session : nullptr;
}

void TeachingView::showFrame(int i, const TeachingFrame& f)
{
    Side& s = m_sides[std::size_t(i)];
    for (const MetricPoint& p : f.points)
        s.curves->append(p.epoch, p.trainAccuracy, p.testAccuracy, p.loss);
    s.curves->setKeptEpoch(f.keptEpoch);
    s.frame = f;
    s.region->setRegion(f.region);
    s.caption->setText(QStringLiteral("epoch %1 · train %2 · test %3 · %4 s")
                           .arg(QString::number(f.epoch, 'g', 4), percent(f.trainAccuracy), percent(f.testAccuracy),
                                QString::number(f.trainSeconds, 'f', 2)) +
                        (m_paused && !f.final ? tr(" · paused") : QString()));
    s.network->setVisible(s.network->setNetwork(f.network));
    s.network->setLayerSolves(f.layerSolves);
    showSolves(i, f.layerSolves);
    Q_EMIT checkpointShown(i, f.epoch);
}

void TeachingView::hideSolves(int i)
{
    m_sides[std::size_t(i)].hasSolves = false;
    applyDetails();
}

void TeachingView::applyDetails()
{
    const bool on = m_details && m_details->isChecked();
    bool any = false;
    for (Side& s : m_sides) {
        const bool show = on && s.hasSolves;
        s.solves->setVisible(show);
        s.solvesTitle->setVisible(show);
        any = any || show;
    }
    m_solvesHelp->setVisible(any);
}

void TeachingView::showSolves(int i, const QJsonArray& solves)
{
    if (solves.isEmpty()) {
        hideSolves(i);
        return;
    }
    Side& s = m_sides[std::size_t(i)];
    s.solvesTitle->setText((i == 0 ? tr("Left, %1: each layer's solve in the latest sweep")
                                   : tr("Right, %1: each layer's solve in the latest sweep"))
                               .arg(s.algorithm->currentText()));
    s.solves->setRowCount(int(solves.size()));
    for (int r = 0; r < solves.size(); ++r) {
        const QJsonObject o = solves[r].toObject();
        const QJsonValue cond = o.value(QStringLiteral("cond"));
        const double residual = o.value(QStringLiteral("residual")).toDouble();
        const QString cells[6] = {QString::number(o.value(QStringLiteral("layer")).toInt()),
                                  o.value(QStringLiteral("phase")).toString(),
                                  o.value(QStringLiteral("method")).toString(),
                                  // Two significant digits ("1.4e+07", "0.051"): the table fits a side at
                                  // 1024×768 in presentation mode, the phase no longer cut to "r…".
                                  cond.isDouble() ? QString::number(cond.toDouble(), 'g', 2) : QStringLiteral("∞"),
                                  QString::number(residual, 'g', 2),
                                  o.value(QStringLiteral("fallback")).toBool() ? tr("yes") : tr("no")};
        for (int c = 0; c < 6; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == 1)
                item->setToolTip(cells[1]); // whole in the tooltip too, wrapped in the cell
            if (c == 3)
                item->setToolTip(conditionMeaning(cond.isDouble() ? cond.toDouble() : INFINITY));
            if (c == 4)
                item->setToolTip(tr("‖AW − B‖/‖B‖ = %1: the layer's fit misses its targets by %2 % of their size")
                                     .arg(cells[4])
                                     .arg(100 * residual, 0, 'g', 3));
            if (c == 5 && o.value(QStringLiteral("fallback")).toBool())
                item->setToolTip(o.value(QStringLiteral("reason")).toString());
            s.solves->setItem(r, c, item);
        }
    }
    s.hasSolves = true;
    applyDetails();
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
    m_step->setEnabled(running && m_paused);
    m_train->setText(running ? tr("Restart") : tr("Train"));
}

void TeachingView::setStatus(const QString& text)
{
    m_status->setText(text);
}

} // namespace tb::gui
