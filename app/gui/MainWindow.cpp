#include "MainWindow.h"

#include "AlgorithmPanel.h"
#include "ChartTabs.h"
#include "ComparisonTab.h"
#include "DatasetPanel.h"
#include "ExperimentController.h"
#include "ExperimentPanel.h"
#include "PluginsDialog.h"
#include "RunBrowser.h"
#include "SweepEditor.h"
#include "SweepResultView.h"
#include "TeachingView.h"
#include "WheelGuard.h"

#include <DataSource.h>
#include <HostBudget.h>
#include <ParamSweep.h>
#include <PluginRegistry.h>
#include <RunStore.h>
#include <SavedResult.h>
#include <StoredRuns.h>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScreen>
#include <QScrollArea>
#include <QHash>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTime>
#include <QToolBar>
#include <QVBoxLayout>

namespace tb::gui {

namespace {

/// Folders holding the shipped example experiments: installed, then the source tree.
QStringList exampleDirs()
{
    QStringList dirs{QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/trainbench/experiments"))};
#ifdef TB_SOURCE_RESOURCES
    dirs << QStringLiteral(TB_SOURCE_RESOURCES "/experiments");
#endif
    return dirs;
}

/// What a new experiment starts with: the BPLS paper's linear toy problem, whose noise sweep
/// runs in a second, so a newcomer sees a result at once.
QJsonObject defaultExperiment()
{
    return QJsonObject{{"name", "Untitled experiment"},
                       {"kind", "noise-sweep"},
                       {"dataset", QJsonObject{{"source", "bpls-toy"}, {"function", "linear"}}},
                       {"sweep", QJsonObject{{"sigma", QJsonArray{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}},
                                             {"monte_carlo", 100}}},
                       {"seed", 1},
                       {"algorithms", QJsonArray{}}};
}

/// Whether @p path is one of the bundled examples (File → Open example).
bool isExample(const QString& path)
{
    const QString dir = QFileInfo(path).absoluteDir().canonicalPath();
    for (const QString& d : exampleDirs())
        if (!dir.isEmpty() && QDir(d).canonicalPath() == dir)
            return true;
    return false;
}

} // namespace

MainWindow::MainWindow(const PluginRegistry& registry, QWidget* parent) : QMainWindow(parent), m_registry(registry)
{
    m_controller = new ExperimentController(registry, this);
    qApp->installEventFilter(new WheelGuard(this)); // removed with the window
    buildUi();
    buildMenus();

    connect(m_controller, &ExperimentController::started, this, &MainWindow::onStarted);
    connect(m_controller, &ExperimentController::updated, this, &MainWindow::onUpdated);
    connect(m_controller, &ExperimentController::finished, this, &MainWindow::onFinished);
    connect(m_controller, &ExperimentController::statusText, m_status, &QLabel::setText);
    connect(m_controller, &ExperimentController::logMessage, this, &MainWindow::appendLog);
    connect(m_controller, &ExperimentController::progressChanged, this, [this](int done, int total) {
        m_progress->setRange(0, total); // 0 of 0: busy while the data load
        m_progress->setValue(std::min(done, total));
        m_progress->setFormat(m_controller->progressFormat());
    });
    connect(m_controller, &ExperimentController::runProgressChanged, this, [this](double f) {
        if (f < 0) {
            m_runProgress->setRange(0, 0); // busy: the run's length is unknown
        } else {
            m_runProgress->setRange(0, 1000);
            m_runProgress->setValue(int(1000 * f));
        }
    });

    auto changed = [this] { markModified(); };
    connect(m_dataset, &DatasetPanel::changed, this, [this, changed] {
        updateTaskAndKind();
        changed();
    });
    connect(m_algorithms, &AlgorithmPanel::changed, this, changed);
    // Comparisons: the sweep's parameters follow the selection; a form's "Sweep this parameter…"
    // turns the experiment into a param sweep; the browser's Compare fills the Comparison tab.
    connect(m_algorithms, &AlgorithmPanel::changed, this, &MainWindow::updateSweepParameters);
    connect(m_algorithms, &AlgorithmPanel::sweepRequested, this, [this](const QString& id, const QString& key) {
        m_algorithms->setChecked(id, true);
        updateSweepParameters();
        m_experiment->sweepParameter(key);
    });
    connect(m_browser, &RunBrowser::compareRequested, this, [this](const QList<qint64>& ids) {
        if (m_store && m_comparison->showRuns(*m_store, ids) > 0)
            m_centre->setCurrentWidget(m_comparisonPage);
    });
    connect(m_centre, &QTabWidget::currentChanged, this, [this] {
        if (m_comparisonDirty && m_centre->currentWidget() == m_comparisonPage && m_controller->isRunning()) {
            m_comparisonDirty = false;
            m_comparison->showLive(m_controller->spec(), m_controller->curves());
        }
    });
    connect(m_experiment, &ExperimentPanel::changed, this, [this, changed] {
        updateTaskAndKind();
        changed();
    });
    connect(m_browser, &RunBrowser::overlayRequested, this, [this](const QList<qint64>& ids) { overlayRuns(ids); });
    connect(m_browser, &RunBrowser::runsDeleted, this, &MainWindow::onRunsDeleted);
    connect(m_browser, &RunBrowser::rerunRequested, this, [this](qint64 id) {
        QString error;
        if (!rerun(id, &error))
            showProblems(tr("Cannot re-run run %1").arg(id), error);
    });
    connect(m_browser, &RunBrowser::rerunExperimentRequested, this, [this](qint64 id) {
        QString error;
        if (!rerunExperiment(id, &error))
            showProblems(tr("Cannot re-run experiment %1").arg(id), error);
    });

    m_loading = true;
    setExperiment(defaultExperiment());
    m_loading = false;
    setWindowModified(false);
    restoreSettings();
    restoreSession();
    updateTitle();
    updateActions();
    // Unsaved edits survive a crash: the panels are written to the settings shortly after
    // every change, and the next start continues from them.
    m_sessionTimer.setSingleShot(true);
    m_sessionTimer.setInterval(500);
    connect(&m_sessionTimer, &QTimer::timeout, this, &MainWindow::saveSession);
}

MainWindow::~MainWindow()
{
    // The controller joins its worker (Stop honoured within 200 ms) before the store closes.
    delete m_controller;
    m_controller = nullptr;
    m_browser->setStore(nullptr);
}

void MainWindow::buildUi()
{
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    m_centre = new QTabWidget(this);
    m_charts = new ChartTabs;
    m_teaching = new TeachingView(m_registry);
    m_comparison = new ComparisonTab(m_registry);
    m_centre->addTab(m_charts, tr("Charts"));
    // Its tables and charts scroll rather than set the window's smallest height (1024×768 screens).
    m_comparisonPage = new QScrollArea;
    m_comparisonPage->setWidgetResizable(true);
    m_comparisonPage->setFrameShape(QFrame::NoFrame);
    m_comparisonPage->setWidget(m_comparison);
    m_centre->addTab(m_comparisonPage, tr("Comparison"));
    m_centre->addTab(m_teaching, tr("Teaching"));
    setCentralWidget(m_centre);

    // Experiment: settings, Run and Stop.
    m_experiment = new ExperimentPanel;
    auto* runButton = new QPushButton(tr("Run"));
    auto* stopButton = new QPushButton(tr("Stop"));
    runButton->setDefault(true);
    // The settings scroll (a param sweep's editor makes them tall); Run and Stop stay in sight.
    auto* expScroll = new QScrollArea;
    expScroll->setWidgetResizable(true);
    expScroll->setFrameShape(QFrame::NoFrame);
    expScroll->setWidget(m_experiment);
    auto* expBox = new QWidget;
    auto* expLayout = new QVBoxLayout(expBox);
    expLayout->setContentsMargins(0, 0, 0, 0);
    expLayout->addWidget(expScroll, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runButton);
    buttons->addWidget(stopButton);
    expLayout->addLayout(buttons);
    auto* expDock = new QDockWidget(tr("Experiment"), this);
    expDock->setObjectName(QStringLiteral("experimentDock"));
    expDock->setWidget(expBox);
    addDockWidget(Qt::LeftDockWidgetArea, expDock);

    m_dataset = new DatasetPanel;
    auto* dataScroll = new QScrollArea;
    dataScroll->setWidgetResizable(true);
    dataScroll->setFrameShape(QFrame::NoFrame);
    dataScroll->setWidget(m_dataset);
    auto* dataDock = new QDockWidget(tr("Data set"), this);
    dataDock->setObjectName(QStringLiteral("datasetDock"));
    dataDock->setWidget(dataScroll);
    addDockWidget(Qt::LeftDockWidgetArea, dataDock);
    splitDockWidget(expDock, dataDock, Qt::Vertical);

    m_algorithms = new AlgorithmPanel(m_registry);
    auto* algDock = new QDockWidget(tr("Algorithms"), this);
    algDock->setObjectName(QStringLiteral("algorithmsDock"));
    algDock->setWidget(m_algorithms);
    addDockWidget(Qt::RightDockWidgetArea, algDock);

    m_browser = new RunBrowser;
    auto* runsDock = new QDockWidget(tr("Runs"), this);
    runsDock->setObjectName(QStringLiteral("runsDock"));
    runsDock->setWidget(m_browser);
    addDockWidget(Qt::BottomDockWidgetArea, runsDock);
    m_log = new QPlainTextEdit;
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    auto* logDock = new QDockWidget(tr("Log"), this);
    logDock->setObjectName(QStringLiteral("logDock"));
    logDock->setWidget(m_log);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    tabifyDockWidget(runsDock, logDock);
    runsDock->raise();
    m_experimentDock = expDock;
    m_datasetDock = dataDock;
    m_algorithmsDock = algDock;
    m_runsDock = runsDock;
    m_logDock = logDock;
    // Narrow screens: every dock keeps a usable width (the Algorithms panel was ~70 px wide at
    // 1024×768), and the central charts keep room too.
    expDock->setMinimumWidth(220);
    dataDock->setMinimumWidth(220);
    algDock->setMinimumWidth(240);
    m_centre->setMinimumWidth(320);

    m_runAction = new QAction(tr("&Run"), this);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setToolTip(tr("Run the experiment (Ctrl+R)"));
    m_stopAction = new QAction(tr("&Stop"), this);
    m_stopAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_stopAction->setToolTip(tr("Stop the running experiment (Esc); finished runs are kept"));
    connect(m_runAction, &QAction::triggered, this, [this] {
        QString error;
        if (!runExperiment(&error))
            showProblems(tr("Cannot run the experiment"), error);
    });
    connect(m_stopAction, &QAction::triggered, this, &MainWindow::stopExperiment);
    connect(runButton, &QPushButton::clicked, m_runAction, &QAction::trigger);
    connect(stopButton, &QPushButton::clicked, m_stopAction, &QAction::trigger);
    connect(m_runAction, &QAction::enabledChanged, runButton, &QPushButton::setEnabled);
    connect(m_stopAction, &QAction::enabledChanged, stopButton, &QPushButton::setEnabled);

    m_status = new QLabel(tr("Ready"));
    m_status->setMinimumWidth(200);
    m_runProgress = new QProgressBar;
    m_runProgress->setFixedWidth(140);
    m_runProgress->setToolTip(tr("Current run: epochs done of those planned (busy when unknown)"));
    m_runProgress->setTextVisible(false);
    m_progress = new QProgressBar;
    m_progress->setFixedWidth(220);
    m_progress->setToolTip(tr("Whole experiment"));
    m_progress->setValue(0);
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_runProgress);
    statusBar()->addPermanentWidget(m_progress);
    m_runProgress->hide();
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newAct = file->addAction(tr("&New experiment"), this, &MainWindow::newExperiment);
    newAct->setShortcut(QKeySequence::New);
    QAction* openAct = file->addAction(tr("&Open experiment…"), this, &MainWindow::openExperimentDialog);
    openAct->setShortcut(QKeySequence::Open);
    QMenu* examples = file->addMenu(tr("Open e&xample"));
    for (const QString& dir : exampleDirs()) {
        const QDir d(dir);
        const QStringList files = d.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QString& f : files) {
            const QString path = d.filePath(f);
            examples->addAction(QFileInfo(f).completeBaseName(), this, [this, path] {
                if (!maybeSave())
                    return;
                QString error;
                if (!openExperiment(path, &error))
                    showProblems(tr("Cannot open the example"), error);
            });
        }
        if (!files.isEmpty())
            break;
    }
    examples->setEnabled(!examples->isEmpty());
    QAction* saveAct = file->addAction(tr("&Save experiment"), this, [this] { saveExperimentDialog(false); });
    saveAct->setShortcut(QKeySequence::Save);
    QAction* saveAsAct = file->addAction(tr("Save experiment &as…"), this, [this] { saveExperimentDialog(true); });
    saveAsAct->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    m_openDbAction = file->addAction(tr("Open &database…"), this, &MainWindow::openDatabaseDialog);
    m_saveResultsAction = file->addAction(tr("Save &results to another database…"), this, &MainWindow::saveResultsDialog);
    m_saveResultsAction->setEnabled(false);
    m_saveResultsAction->setToolTip(tr("After the database failed during an experiment: keep its results in another file"));
    file->addSeparator();
    file->addAction(tr("Export chart as &PNG or SVG…"), this, &MainWindow::exportChartDialog);
    file->addAction(tr("Export selected runs as &CSV…"), this, &MainWindow::exportRunsDialog);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAction);
    run->addAction(m_stopAction);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : findChildren<QDockWidget*>())
        view->addAction(d->toggleViewAction());
    view->addSeparator();
    QAction* logTime = view->addAction(tr("Log time axis"));
    logTime->setCheckable(true);
    connect(logTime, &QAction::toggled, m_charts, &ChartTabs::setLogTime);
    view->addAction(tr("Reset zoom"), m_charts, &ChartTabs::resetZoom);
    view->addSeparator();
    view->addAction(tr("Reset &layout"), this, &MainWindow::resetLayout);
    m_presentAction = view->addAction(tr("&Presentation mode"));
    m_presentAction->setCheckable(true);
    m_presentAction->setShortcut(QKeySequence(Qt::Key_F11));
    m_presentAction->setToolTip(tr("The teaching view alone, full screen, large fonts (F11 to enter and leave)"));
    addAction(m_presentAction); // its shortcut works while the menu bar is hidden
    connect(m_presentAction, &QAction::toggled, this, &MainWindow::setPresentationMode);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Plugins…"), this, &MainWindow::showPlugins);
    help->addAction(tr("&About Trainbench"), this, &MainWindow::showAbout);

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(newAct);
    bar->addAction(openAct);
    bar->addAction(saveAct);
    bar->addSeparator();
    bar->addAction(m_runAction);
    bar->addAction(m_stopAction);
}

QSize MainWindow::initialSize(const QSize& available)
{
    // 90 % of the screen, no larger than 1600×1000 (the layout's comfortable size), no smaller than
    // the screen allows.
    return QSize(std::min(1600, int(available.width() * 0.9)), std::min(1000, int(available.height() * 0.9)))
        .expandedTo(QSize(640, 480))
        .boundedTo(available);
}

QRect MainWindow::fitToScreen(const QRect& window, const QRect& available)
{
    if (available.isEmpty())
        return window;
    QRect r(window.topLeft(), window.size().boundedTo(available.size()));
    // Keep the whole frame on the screen: a window restored from a larger monitor comes back.
    if (r.right() > available.right())
        r.moveRight(available.right());
    if (r.bottom() > available.bottom())
        r.moveBottom(available.bottom());
    if (r.left() < available.left())
        r.moveLeft(available.left());
    if (r.top() < available.top())
        r.moveTop(available.top());
    return r;
}

QRect MainWindow::availableScreen() const
{
    const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
    return s ? s->availableGeometry() : QRect();
}

void MainWindow::setPresentationMode(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    if (m_presentAction->isChecked() != on)
        m_presentAction->setChecked(on);
    if (on) {
        m_normalState = saveState();
        m_normalGeometry = saveGeometry();
        for (QDockWidget* d : findChildren<QDockWidget*>())
            d->hide();
        for (QToolBar* t : findChildren<QToolBar*>())
            t->hide();
        menuBar()->hide();
        statusBar()->hide();
        m_centre->setCurrentWidget(m_teaching);
        m_centre->tabBar()->hide();
        // Readable from the back of a classroom.
        QFont f = m_teaching->font();
        f.setPointSizeF(QApplication::font().pointSizeF() * 1.6);
        m_teaching->setFont(f);
        showFullScreen();
    } else {
        m_teaching->setFont(QApplication::font());
        m_centre->tabBar()->show();
        menuBar()->show();
        statusBar()->show();
        showNormal();
        restoreGeometry(m_normalGeometry);
        restoreState(m_normalState);
    }
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState);
    for (QDockWidget* d : {m_experimentDock, m_datasetDock, m_algorithmsDock, m_runsDock, m_logDock}) {
        d->setFloating(false);
        d->show();
    }
    m_runsDock->raise();
    const QRect avail = availableScreen();
    if (!isMaximized() && !isFullScreen()) {
        const QSize want = initialSize(avail.size());
        setGeometry(fitToScreen(QRect(geometry().topLeft(), want), avail));
    }
    applyDockSizes();
}

void MainWindow::applyDockSizes()
{
    // Side docks take about a quarter of the width each, the runs about a quarter of the height.
    const int w = std::max(width(), 800), h = std::max(height(), 600);
    resizeDocks({m_experimentDock, m_algorithmsDock},
                {std::clamp(w * 22 / 100, 220, 340), std::clamp(w * 25 / 100, 240, 400)}, Qt::Horizontal);
    resizeDocks({m_runsDock}, {std::clamp(h * 22 / 100, 140, 240)}, Qt::Vertical);
}

void MainWindow::restoreSettings()
{
    QSettings s;
    m_defaultState = saveState();
    const QRect avail = availableScreen();
    if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
        // First start: size from the screen, not a fixed 1600×1000.
        const QSize size = initialSize(avail.size());
        setGeometry(QRect(avail.topLeft() + QPoint((avail.width() - size.width()) / 2, (avail.height() - size.height()) / 2),
                          size));
        applyDockSizes();
    } else if (!isMaximized() && !isFullScreen()) {
        // A size saved on a larger screen is clamped to this one.
        const QRect fitted = fitToScreen(geometry(), avail);
        if (fitted != geometry())
            setGeometry(fitted);
    }
    m_sizeDocksOnShow = !restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    m_lastDir = s.value(QStringLiteral("lastDir"), QDir::homePath()).toString();
    if (isExample(QDir(m_lastDir).filePath(QStringLiteral("x.json"))))
        m_lastDir = QDir::homePath(); // saved by an older version that followed File → Open example
    m_experiment->setThreads(s.value(QStringLiteral("threads"), 0).toInt());
    m_charts->setLogTime(s.value(QStringLiteral("charts/logTime"), false).toBool());
    setWindowModified(false);

    const QString db = s.value(QStringLiteral("database"), RunStore::defaultPath()).toString();
    QString error;
    if (!openDatabase(db, &error)) {
        appendLog(error);
        m_status->setText(tr("No run database: %1 (File → Open database…)").arg(error));
    }
}

void MainWindow::saveSettings() const
{
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("lastDir"), m_lastDir);
    s.setValue(QStringLiteral("threads"), m_experiment->threads());
    s.setValue(QStringLiteral("charts/logTime"), m_charts->logTime());
    if (m_store)
        s.setValue(QStringLiteral("database"), m_store->path());
}

QJsonObject MainWindow::experimentJson() const
{
    QJsonObject o = m_experiment->values();
    o.insert(QStringLiteral("dataset"), m_dataset->spec());
    QJsonArray algs;
    // As written in a file: labels only where typed, parameters only where given or changed, so
    // a file opened and saved again keeps what it said.
    for (const AlgorithmRun& a : m_algorithms->experimentAlgorithms()) {
        QJsonObject ao{{"id", a.id}, {"params", QJsonObject::fromVariantMap(a.params)}};
        if (!a.label.isEmpty())
            ao.insert(QStringLiteral("label"), a.label);
        algs.append(ao);
    }
    o.insert(QStringLiteral("algorithms"), algs);
    return o;
}

std::optional<ExperimentSpec> MainWindow::currentSpec(QStringList* problems) const
{
    QStringList p = m_experiment->problems();
    if (m_algorithms->selectedAlgorithms().isEmpty())
        p << tr("algorithms: choose at least one algorithm in the Algorithms panel");
    p << m_algorithms->problems();
    std::optional<ExperimentSpec> spec;
    if (p.isEmpty()) {
        QString error;
        spec = ExperimentSpec::fromObject(experimentJson(), m_path.isEmpty() ? tr("experiment") : QFileInfo(m_path).fileName(),
                                          &error);
        if (!spec)
            p << error;
        else {
            spec->baseDir = m_dataset->baseDir();
            spec->sourcePath = m_path;
            p << spec->validate(m_registry);
        }
    }
    if (problems)
        *problems = p;
    if (!p.isEmpty())
        return std::nullopt;
    return spec;
}

QStringList MainWindow::setExperiment(const QJsonObject& spec, const QString& baseDir)
{
    const bool wasLoading = m_loading;
    m_loading = true;
    m_experiment->setValues(spec);
    if (!baseDir.isEmpty())
        m_dataset->setBaseDir(baseDir);
    m_dataset->setSpec(spec.value(QStringLiteral("dataset")).toObject());
    ExperimentSpec upgraded; // former parameter spellings shown under their current names, noted
    upgraded.sourcePath = m_path;
    for (const QJsonValue& v : spec.value(QStringLiteral("algorithms")).toArray()) {
        const QJsonObject a = v.toObject();
        upgraded.algorithms << AlgorithmRun{a.value(QStringLiteral("id")).toString(), a.value(QStringLiteral("label")).toString(),
                                            a.value(QStringLiteral("params")).toObject().toVariantMap(),
                                            HostBudget::fromJson(a, nullptr)};
    }
    for (const QString& note : upgraded.upgradeParams(m_registry))
        appendLog(tr("Note: %1").arg(note));
    // The workbench keeps one budget per experiment: algorithms' own budgets (an entry's, or bld
    // 1.1.0's time_limit, upgraded) that all agree become it when the file gives none.
    if (!spec.contains(QString::fromLatin1(kBudgetSecondsKey)) && !upgraded.algorithms.isEmpty()) {
        const std::optional<RunBudget> first = upgraded.algorithms.first().budget;
        bool same = first.has_value(), any = false;
        for (const AlgorithmRun& a : std::as_const(upgraded.algorithms)) {
            same = same && a.budget == first;
            any = any || a.budget.has_value();
        }
        if (same) {
            QJsonObject withBudget = spec;
            HostBudget::toJson(*first, withBudget);
            m_experiment->setValues(withBudget);
            appendLog(tr("Note: every algorithm has the budget %1 per run: it is the experiment's").arg(HostBudget::describe(*first)));
        } else if (any) {
            appendLog(tr("Note: the algorithms' own time budgets differ; the workbench keeps one per experiment: set it "
                         "in the Experiment panel"));
        }
    }
    m_algorithms->setSelection(upgraded.algorithms);
    updateTaskAndKind();
    // A 2-D classification experiment also sets up the teaching view: its data set, and its
    // first two algorithms side by side (with the teaching view's own forms and defaults).
    const QJsonObject ds = spec.value(QStringLiteral("dataset")).toObject();
    if (TeachingView::sets().contains(ds.value(QStringLiteral("source")).toString()) && !m_teaching->isRunning()) {
        m_teaching->setDataset(ds);
        QStringList ids;
        for (const AlgorithmRun& r : m_algorithms->selectedAlgorithms())
            ids << r.id;
        if (!ids.isEmpty())
            m_teaching->setAlgorithms(ids.value(0), ids.value(1, ids.value(0)));
    }
    m_loading = wasLoading;
    // The charts show runs of what was open before: say so, or clear them, never leave "Live: …"
    // of another experiment above them.
    if (!m_controller->isRunning()) {
        m_charts->clear();
        m_shownRuns.clear();
        m_chartSpec.reset();
        m_charts->setCaption(tr("“%1”: not run yet — press Run (Ctrl+R), or pick stored runs in the Runs panel")
                                 .arg(spec.value(QStringLiteral("name")).toString(tr("Untitled experiment"))));
    }
    QStringList problems = m_algorithms->problems();
    return problems;
}

bool MainWindow::openExperiment(const QString& path, QString* error)
{
    QString err;
    const auto spec = ExperimentSpec::fromFile(path, &err); // the same check as trainbench-cli run
    if (!spec) {
        if (error)
            *error = err;
        return false;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = tr("%1: cannot open: %2").arg(path, f.errorString());
        return false;
    }
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    const QStringList problems = setExperiment(o, QFileInfo(path).absolutePath());
    m_path = QFileInfo(path).absoluteFilePath();
    // The file dialogs stay in the user's folder: a bundled example's folder is no place to save.
    if (!isExample(path))
        m_lastDir = QFileInfo(path).absolutePath();
    setWindowModified(false);
    updateTitle();
    saveSession();
    appendLog(tr("Opened %1").arg(m_path));
    if (!problems.isEmpty())
        showProblems(tr("Some settings of %1 could not be shown").arg(QFileInfo(path).fileName()), problems.join('\n'));
    return true;
}

bool MainWindow::saveExperiment(const QString& path, QString* error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        if (error)
            *error = tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    f.write(QJsonDocument(experimentJson()).toJson(QJsonDocument::Indented));
    if (!f.commit()) {
        if (error)
            *error = tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    m_path = QFileInfo(path).absoluteFilePath();
    m_lastDir = QFileInfo(path).absolutePath();
    // Relative data paths now resolve against the file's folder, as the CLI resolves them.
    m_dataset->setBaseDir(m_lastDir);
    setWindowModified(false);
    updateTitle();
    saveSession();
    appendLog(tr("Saved %1").arg(m_path));
    return true;
}

bool MainWindow::openDatabase(const QString& path, QString* error)
{
    if (m_controller->isRunning()) {
        if (error)
            *error = tr("cannot change the database while an experiment runs");
        return false;
    }
    QString err;
    auto store = RunStore::open(path, &err);
    if (!store) {
        if (error)
            *error = err;
        return false;
    }
    m_browser->setStore(nullptr);
    m_controller->setStore(nullptr);
    m_store = std::move(store);
    m_controller->setStore(m_store.get());
    m_browser->setStore(m_store.get());
    appendLog(tr("Database %1").arg(m_store->path()));
    if (m_store->interruptedOnOpen() > 0)
        appendLog(tr("%n run(s) left running by a process that ended were marked interrupted", nullptr,
                     m_store->interruptedOnOpen()));
    m_status->setText(tr("Database: %1").arg(m_store->path()));
    // The store calls from its writer thread: queue to the GUI thread.
    connect(m_store.get(), &RunStore::waiting, this, [this](const QString& message, bool) {
        if (!message.isEmpty()) {
            appendLog(message);
            m_status->setText(message);
        }
    }, Qt::QueuedConnection);
    connect(m_store.get(), &RunStore::writeFailed, this, [this](const QString& message) {
        appendLog(tr("Database write failed: %1").arg(message));
    }, Qt::QueuedConnection);
    return true;
}

bool MainWindow::saveResultsTo(const QString& path, QString* error)
{
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    const ExperimentResult& result = m_controller->result();
    if (m_controller->isRunning() || (result.curves.isEmpty() && result.sweep.isEmpty()))
        return fail(tr("there are no results to save"));
    if (m_store && QFileInfo(path).absoluteFilePath() == m_store->path())
        return fail(tr("%1 is the database that failed; choose another file").arg(path));
    QString err;
    auto target = RunStore::open(path, &err);
    if (!target)
        return fail(err);
    const qint64 id = saveResult(*target, m_controller->spec(), result, m_registry, &err);
    if (id < 0)
        return fail(err);
    appendLog(tr("Results of “%1” saved to %2 as experiment %3").arg(m_controller->spec().name, target->path()).arg(id));
    return true;
}

void MainWindow::saveResultsDialog()
{
    const QString start = m_store ? QFileInfo(m_store->path()).absolutePath() : m_lastDir;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save results to another database"), start,
                                                      tr("Run databases (*.sqlite *.db);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveResultsTo(path, &error))
        showProblems(tr("The results could not be saved"), error);
    else
        m_status->setText(tr("Results saved to %1").arg(path));
}

bool MainWindow::runExperiment(QString* error)
{
    QStringList problems;
    const auto spec = currentSpec(&problems);
    if (!spec) {
        if (error)
            *error = problems.join(QLatin1Char('\n'));
        return false;
    }
    const QString where = m_path.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(QFileInfo(m_path).fileName());
    return startSpec(*spec, tr("Live: %1%2 — %3").arg(spec->name, where, ExperimentSpec::kindName(spec->kind)), error);
}

bool MainWindow::startSpec(const ExperimentSpec& spec, const QString& caption, QString* error)
{
    if (m_controller->isRunning()) {
        if (error)
            *error = tr("An experiment is already running; stop it first.");
        return false;
    }
    m_controller->setStore(m_store.get());
    m_charts->clear();
    const auto task = data::DataSource::task(spec.dataset);
    m_charts->setTask(!task || *task == Task::Classification);
    m_charts->showKind(spec.kind == ExperimentSpec::Kind::NoiseSweep);
    m_charts->setCaption(caption);
    m_shownRuns.clear();
    m_chartSpec = spec;
    m_centre->setCurrentWidget(m_charts);
    return m_controller->start(spec, error);
}

bool MainWindow::rerun(qint64 runId, QString* error)
{
    if (!m_store) {
        if (error)
            *error = tr("no database is open");
        return false;
    }
    // The rule lives in the engine, shared with `trainbench-cli rerun`.
    const auto r = StoredRuns::rerunOfRun(*m_store, m_registry, runId, error);
    if (!r)
        return false;
    for (const QString& note : r->notes)
        appendLog(note);
    appendLog(tr("Re-running %1 with its stored settings").arg(r->description));
    return startSpec(r->spec, tr("Re-run of %1").arg(r->description), error);
}

bool MainWindow::rerunExperiment(qint64 experimentId, QString* error)
{
    if (!m_store) {
        if (error)
            *error = tr("no database is open");
        return false;
    }
    const auto r = StoredRuns::rerunOfExperiment(*m_store, experimentId, error);
    if (!r)
        return false;
    appendLog(tr("Re-running %1 with its stored settings").arg(r->description));
    return startSpec(r->spec, tr("Re-run of %1").arg(r->description), error);
}

int MainWindow::overlayRuns(const QList<qint64>& runIds)
{
    if (!m_store || runIds.isEmpty())
        return 0;
    // Grouping into curves is the engine's (the CLI's export draws the same).
    const StoredRuns::Selection sel = StoredRuns::group(*m_store, runIds);
    if (!sel.readError.isEmpty()) {
        // A damaged database: draw what could be read, but never as if it were everything.
        appendLog(tr("Reading the runs failed; the charts may lack runs or checkpoints: %1").arg(sel.readError));
        QMessageBox::warning(this, tr("Damaged database"),
                             tr("Some runs could not be read, so the charts may be incomplete.\n\n%1").arg(sel.readError));
    }
    if (sel.runIds.isEmpty())
        return 0; // none of the ids is in this store (deleted meanwhile)
    const QList<charts::CurveSeriesData> curves = charts::LearningCurveChart::seriesOf(sel.result.curves);
    m_charts->clear();
    m_charts->setTask(sel.classification || curves.isEmpty());
    m_charts->setCurves(curves);
    m_charts->setSweep(sel.result.sweep);
    m_charts->showKind(sel.result.kind == ExperimentSpec::Kind::NoiseSweep);
    const int n = int(sel.runIds.size());
    m_charts->setCaption((n == 1 ? tr("Stored: 1 run from %1") : tr("Stored: %1 runs from %2").arg(n))
                             .arg(sel.experimentIds.size() > 1 ? tr("%1 experiments").arg(sel.experimentIds.size())
                                                               : tr("experiment %1").arg(sel.experimentIds.value(0))));
    m_shownRuns = sel.runIds;
    m_chartSpec.reset();
    m_centre->setCurrentWidget(m_charts);
    return n;
}

void MainWindow::onRunsDeleted(const QList<qint64>& runIds)
{
    QList<qint64> remaining;
    for (qint64 id : m_shownRuns)
        if (!runIds.contains(id))
            remaining << id;
    if (remaining.size() == m_shownRuns.size())
        return; // none of the runs on the charts was deleted
    const int deleted = int(m_shownRuns.size() - remaining.size());
    if (overlayRuns(remaining) == 0) {
        m_charts->clear();
        m_shownRuns.clear();
        m_charts->setCaption(tr("The runs shown here were deleted from the database"));
    } else {
        m_charts->setCaption(m_charts->caption() + (deleted == 1 ? tr(" (1 deleted run removed)")
                                                                 : tr(" (%1 deleted runs removed)").arg(deleted)));
    }
}

void MainWindow::stopExperiment()
{
    m_controller->stop();
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

QString MainWindow::logText() const
{
    return m_log->toPlainText();
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // Dock sizes only take once the window has its real size: on the first show without a saved
    // layout, size them from it.
    if (m_sizeDocksOnShow) {
        m_sizeDocksOnShow = false;
        QTimer::singleShot(0, this, &MainWindow::applyDockSizes);
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_controller->isRunning()) {
        if (m_confirm &&
            QMessageBox::question(this, tr("Quit Trainbench"),
                                  tr("An experiment is running. Stop it and quit?\n\nFinished runs and every checkpoint "
                                     "so far are already in the database; the running runs are kept as cancelled."),
                                  QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        m_controller->stop();
        m_controller->waitForFinished(5000);
    }
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    m_teaching->stop();
    saveSettings();
    saveSession();
    event->accept();
}

void MainWindow::markModified()
{
    if (m_loading)
        return;
    setWindowModified(true);
    updateTitle();
    m_sessionTimer.start();
}

void MainWindow::saveSession() const
{
    QSettings s;
    s.setValue(QStringLiteral("session/experiment"),
               QString::fromUtf8(QJsonDocument(experimentJson()).toJson(QJsonDocument::Compact)));
    s.setValue(QStringLiteral("session/baseDir"), m_dataset->baseDir());
    s.setValue(QStringLiteral("session/path"), m_path);
    s.setValue(QStringLiteral("session/modified"), isWindowModified());
}

void MainWindow::restoreSession()
{
    QSettings s;
    const QString text = s.value(QStringLiteral("session/experiment")).toString();
    if (text.isEmpty())
        return;
    const QJsonObject o = QJsonDocument::fromJson(text.toUtf8()).object();
    if (o.isEmpty())
        return;
    m_loading = true;
    const QStringList problems = setExperiment(o, s.value(QStringLiteral("session/baseDir")).toString());
    m_loading = false;
    const QString path = s.value(QStringLiteral("session/path")).toString();
    m_path = !path.isEmpty() && QFileInfo::exists(path) ? path : QString();
    const bool modified = s.value(QStringLiteral("session/modified")).toBool() || (!path.isEmpty() && m_path.isEmpty());
    setWindowModified(modified);
    if (modified)
        appendLog(tr("Restored the unsaved experiment of the last session"));
    for (const QString& p : problems)
        appendLog(tr("Last session: %1").arg(p));
}

void MainWindow::updateTitle()
{
    const QString name = m_path.isEmpty() ? tr("Untitled experiment") : QFileInfo(m_path).fileName();
    setWindowTitle(tr("%1[*] — Trainbench").arg(name));
    setWindowFilePath(m_path);
}

void MainWindow::updateActions()
{
    const bool running = m_controller->isRunning();
    m_runAction->setEnabled(!running);
    m_stopAction->setEnabled(running);
    m_openDbAction->setEnabled(!running);
    m_runProgress->setVisible(running && m_controller->spec().kind == ExperimentSpec::Kind::LearningCurve);
}

void MainWindow::updateTaskAndKind()
{
    const QJsonObject ds = m_dataset->spec();
    m_algorithms->setTask(m_dataset->task());
    m_experiment->setNoiseSweepAvailable(data::DataSource::hasNoiseLevel(ds));
}

void MainWindow::appendLog(const QString& line)
{
    m_log->appendPlainText(QStringLiteral("%1  %2").arg(QTime::currentTime().toString(QStringLiteral("hh:mm:ss")), line));
}

void MainWindow::showProblems(const QString& title, const QString& text)
{
    appendLog(title + QStringLiteral(": ") + QString(text).replace(QLatin1Char('\n'), QStringLiteral("; ")));
    m_status->setText(title);
    if (!m_confirm)
        return;
    QMessageBox box(QMessageBox::Warning, title, title, QMessageBox::Ok, this);
    box.setInformativeText(text);
    box.exec();
}

void MainWindow::newExperiment()
{
    if (!maybeSave())
        return;
    m_path.clear();
    m_loading = true;
    setExperiment(defaultExperiment(), QDir::currentPath());
    m_loading = false;
    setWindowModified(false);
    updateTitle();
    saveSession();
}

void MainWindow::openExperimentDialog()
{
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open experiment"), m_lastDir,
                                                      tr("Experiment files (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!openExperiment(path, &error))
        showProblems(tr("Cannot open %1").arg(QFileInfo(path).fileName()), error);
}

bool MainWindow::saveExperimentDialog(bool saveAs)
{
    QString path = m_path;
    // Saving a bundled example means saving a copy of it in the user's folder.
    if (saveAs || path.isEmpty() || isExample(path)) {
        const QString suggestion = QDir(m_lastDir).filePath(
            (m_experiment->nameEdit()->text().trimmed().isEmpty() ? QStringLiteral("experiment")
                                                                   : m_experiment->nameEdit()->text().trimmed())
                .replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("-")) +
            QStringLiteral(".json"));
        path = QFileDialog::getSaveFileName(this, tr("Save experiment"), suggestion, tr("Experiment files (*.json)"));
        if (path.isEmpty())
            return false;
    }
    QString error;
    if (!saveExperiment(path, &error)) {
        showProblems(tr("Cannot save the experiment"), error);
        return false;
    }
    return true;
}

void MainWindow::openDatabaseDialog()
{
    const QString start = m_store ? QFileInfo(m_store->path()).absolutePath() : m_lastDir;
    QFileDialog dialog(this, tr("Open or create a run database"), start,
                       tr("Run databases (*.sqlite *.db);;All files (*)"));
    dialog.setFileMode(QFileDialog::AnyFile);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    dialog.setOption(QFileDialog::DontConfirmOverwrite);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
        return;
    QString error;
    if (!openDatabase(dialog.selectedFiles().first(), &error))
        showProblems(tr("Cannot open the database"), error);
}

QStringList MainWindow::chartSettings() const
{
    QStringList lines;
    if (m_chartSpec) {
        const ExperimentSpec& e = *m_chartSpec;
        lines << tr("Data: %1").arg(data::DataSource::describe(e.dataset));
        if (e.kind == ExperimentSpec::Kind::NoiseSweep)
            lines << tr("Noise sweep: σ from %1 to %2 (%3 values), %4 Monte-Carlo runs each; seed %5, %6 threads")
                         .arg(e.sigmas.value(0))
                         .arg(e.sigmas.isEmpty() ? 0.0 : e.sigmas.last())
                         .arg(e.sigmas.size())
                         .arg(e.monteCarlo)
                         .arg(e.seed)
                         .arg(e.effectiveThreads());
        else
            lines << tr("Learning curve: %1 repeat(s) from %2, seed %3, %4 threads%5")
                         .arg(e.repeats)
                         .arg(e.firstRepeat)
                         .arg(e.seed)
                         .arg(e.effectiveThreads())
                         .arg(e.timeBudgetSeconds > 0 ? tr(", time budget %1 s per run").arg(e.timeBudgetSeconds) : QString());
        QStringList algs;
        for (const AlgorithmRun& a : e.algorithms)
            algs << (a.label.isEmpty() ? a.id : QStringLiteral("%1 (%2)").arg(a.label, a.id));
        lines << tr("Algorithms: %1").arg(algs.join(QStringLiteral(", ")));
    } else {
        lines << m_charts->caption();
    }
    lines << tr("Trainbench %1 (%2)").arg(QStringLiteral(TB_APP_VERSION), QStringLiteral(TB_GIT_HASH));
    return lines;
}

void MainWindow::exportChartDialog()
{
    QString filter = tr("PNG images (*.png)");
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), QDir(m_lastDir).filePath(QStringLiteral("chart.png")),
                                                      tr("PNG images (*.png);;SVG images (*.svg)"), &filter);
    if (path.isEmpty())
        return;
    QString error;
    const QString title = m_chartSpec ? m_chartSpec->name : m_charts->caption();
    const bool ok = m_centre->currentWidget() == m_comparisonPage ? m_comparison->sweepView()->savePng(path, &error)
                                                              : m_charts->saveImage(path, title, chartSettings(), &error);
    if (!ok)
        showProblems(tr("Cannot export the chart"), error);
    else
        appendLog(tr("Chart written to %1").arg(path));
}

void MainWindow::exportRunsDialog()
{
    if (m_browser->selectedRunIds().isEmpty()) {
        showProblems(tr("Nothing to export"), tr("Select runs or experiments in the Runs panel first."));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(this, tr("Export runs as CSV"), QDir(m_lastDir).filePath(QStringLiteral("runs.csv")),
                                                      tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!m_browser->exportSelectedCsv(path, &error))
        showProblems(tr("Cannot export the runs"), error);
    else
        appendLog(tr("Runs written to %1").arg(path));
}

void MainWindow::showPlugins()
{
    PluginsDialog dialog(m_registry, this);
    dialog.exec();
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Trainbench"),
                       tr("<b>Trainbench %1</b> (%2)<p>A workbench for comparing ways to train neural networks and "
                          "kernel machines: every algorithm a plugin, curves live, every run logged.</p>"
                          "<p>Database: %3</p>")
                           .arg(QStringLiteral(TB_APP_VERSION), QStringLiteral(TB_GIT_HASH),
                                m_store ? m_store->path().toHtmlEscaped() : tr("none")));
}

bool MainWindow::maybeSave()
{
    if (!isWindowModified() || !m_confirm)
        return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved experiment"), tr("The experiment has unsaved changes. Save them first?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Save)
        return saveExperimentDialog(false);
    return true;
}

void MainWindow::updateSweepParameters()
{
    // The parameters every selected algorithm has (with the first one's spec): what a sweep may set.
    QList<ParamSpec> common;
    const QList<AlgorithmRun> selected = m_algorithms->selectedAlgorithms();
    for (int i = 0; i < selected.size(); ++i) {
        const AlgorithmEntry* e = m_registry.algorithm(selected[i].id);
        if (!e)
            continue;
        if (i == 0) {
            common = e->info.schema.specs();
            continue;
        }
        common.removeIf([&](const ParamSpec& p) { return !e->info.schema.find(p.key); });
    }
    m_experiment->sweepEditor()->setParameters(common);
}

void MainWindow::onStarted()
{
    if (m_controller->spec().kind == ExperimentSpec::Kind::ParamSweep)
        m_centre->setCurrentWidget(m_comparisonPage);
    m_comparison->clear();
    m_status->setText(tr("Running…"));
    m_runProgress->setRange(0, 0);
    m_progress->setValue(0);
    updateActions();
}

void MainWindow::onUpdated()
{
    if (m_controller->spec().kind == ExperimentSpec::Kind::NoiseSweep)
        m_charts->setSweep(m_controller->sweep());
    else
        m_charts->setCurves(m_controller->curves());
    // The comparison is rebuilt only while in view (its tables cost more than a chart update).
    if (m_controller->spec().kind != ExperimentSpec::Kind::NoiseSweep && m_controller->isRunning()) {
        if (m_centre->currentWidget() == m_comparisonPage)
            m_comparison->showLive(m_controller->spec(), m_controller->curves());
        else
            m_comparisonDirty = true;
    }
}

void MainWindow::onFinished(const QString& summary)
{
    onUpdated();
    m_comparisonDirty = false;
    m_comparison->showResult(m_controller->result(),
                             tr("%1 — %2").arg(m_controller->spec().name, ExperimentSpec::kindName(m_controller->spec().kind)));
    m_status->setText(summary);
    updateActions();
    const qint64 id = m_controller->experimentId();
    if (m_controller->result().error.isEmpty())
        m_charts->setCaption((id >= 0 ? tr("Experiment %1: “%2” — %3").arg(id) : tr("“%1” — %2"))
                                 .arg(m_controller->spec().name, summary));
    m_shownRuns.clear();
    if (m_store && id >= 0)
        for (const RunRecord& r : m_store->runs(id))
            m_shownRuns << r.id;
    if (m_store) {
        m_browser->refresh();
        if (m_controller->experimentId() >= 0)
            m_browser->setSelection({m_controller->experimentId()}, {});
    }
    const ExperimentResult& result = m_controller->result();
    m_saveResultsAction->setEnabled(!result.storeError.isEmpty() && (!result.curves.isEmpty() || !result.sweep.isEmpty()));
    for (const QString& w : result.warnings)
        appendLog(tr("Warning: %1").arg(w));
    if (!result.storeError.isEmpty() && result.error.isEmpty())
        showProblems(tr("The database failed: the experiment was stopped"),
                     tr("%1\n\nThe results on the charts are not all in the database. Keep them with File → Save "
                        "results to another database…")
                         .arg(result.storeError));
    else if (!result.error.isEmpty())
        showProblems(tr("The experiment could not run"), result.error);
}

} // namespace tb::gui
