#include "MainWindow.h"

#include "AlgorithmPanel.h"
#include "ChartTabs.h"
#include "DatasetPanel.h"
#include "ExperimentController.h"
#include "ExperimentPanel.h"
#include "PluginsDialog.h"
#include "RunBrowser.h"
#include "TeachingView.h"

#include <DataSource.h>
#include <PluginRegistry.h>
#include <ResultIO.h>
#include <RunStore.h>

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
#include <QScrollArea>
#include <QHash>
#include <QSettings>
#include <QStatusBar>
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

} // namespace

MainWindow::MainWindow(const PluginRegistry& registry, QWidget* parent) : QMainWindow(parent), m_registry(registry)
{
    m_controller = new ExperimentController(registry, this);
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
        m_progress->setFormat(m_controller->spec().kind == ExperimentSpec::Kind::NoiseSweep ? tr("%v of %m runs")
                                                                                             : tr("run %v of %m done"));
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
    connect(m_experiment, &ExperimentPanel::changed, this, [this, changed] {
        updateTaskAndKind();
        changed();
    });
    connect(m_browser, &RunBrowser::overlayRequested, this, [this](const QList<qint64>& ids) { overlayRuns(ids); });
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
    m_teaching->setParamsProvider([this](const QString& id) { return m_algorithms->paramsFor(id); });

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
    m_centre->addTab(m_charts, tr("Charts"));
    m_centre->addTab(m_teaching, tr("Teaching"));
    setCentralWidget(m_centre);

    // Experiment: settings, Run and Stop.
    m_experiment = new ExperimentPanel;
    auto* runButton = new QPushButton(tr("Run"));
    auto* stopButton = new QPushButton(tr("Stop"));
    runButton->setDefault(true);
    auto* expBox = new QWidget;
    auto* expLayout = new QVBoxLayout(expBox);
    expLayout->addWidget(m_experiment);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runButton);
    buttons->addWidget(stopButton);
    expLayout->addLayout(buttons);
    expLayout->addStretch(1);
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
    resizeDocks({expDock, algDock}, {330, 380}, Qt::Horizontal);
    resizeDocks({runsDock}, {230}, Qt::Vertical);

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
    file->addAction(tr("Export chart as &PNG…"), this, &MainWindow::exportChartDialog);
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

void MainWindow::restoreSettings()
{
    QSettings s;
    if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1600, 1000);
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    m_lastDir = s.value(QStringLiteral("lastDir"), QDir::homePath()).toString();
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
    for (const AlgorithmRun& a : m_algorithms->selectedAlgorithms()) {
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
    QList<AlgorithmRun> runs;
    for (const QJsonValue& v : spec.value(QStringLiteral("algorithms")).toArray()) {
        const QJsonObject a = v.toObject();
        runs << AlgorithmRun{a.value(QStringLiteral("id")).toString(), a.value(QStringLiteral("label")).toString(),
                             a.value(QStringLiteral("params")).toObject().toVariantMap()};
    }
    m_algorithms->setSelection(runs);
    updateTaskAndKind();
    // A 2-D classification experiment also sets up the teaching view: its data set, and its
    // first two algorithms side by side (their parameters come from the forms).
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
    m_centre->setCurrentWidget(m_charts);
    return m_controller->start(spec, error);
}

bool MainWindow::rerun(qint64 runId, QString* error)
{
    auto fail = [&](const QString& m) {
        if (error)
            *error = m;
        return false;
    };
    if (!m_store)
        return fail(tr("no database is open"));
    const auto run = m_store->run(runId);
    if (!run)
        return fail(tr("no run %1 in %2").arg(runId).arg(m_store->path()));
    const auto exp = m_store->experiment(run->experimentId);
    if (!exp)
        return fail(tr("run %1 belongs to no stored experiment, so its data set is unknown").arg(runId));
    QString err;
    auto spec = ExperimentSpec::fromObject(exp->spec, tr("experiment %1").arg(exp->id), &err);
    if (!spec)
        return fail(err);
    spec->algorithms = {AlgorithmRun{run->algorithmId, run->algorithmName, run->params}};
    if (spec->kind == ExperimentSpec::Kind::LearningCurve) {
        spec->repeats = 1;
        spec->firstRepeat = run->repeat;
    }
    spec->threads = run->threads;
    spec->name = tr("%1 — re-run of run %2").arg(exp->name).arg(runId);
    if (const AlgorithmEntry* e = m_registry.algorithm(run->algorithmId); e && e->plugin->version != run->pluginVersion)
        appendLog(tr("Run %1 was made with %2 %3; %4 is loaded now, results may differ")
                      .arg(runId)
                      .arg(e->plugin->id, run->pluginVersion, e->plugin->version));
    appendLog(tr("Re-running run %1 (%2, repeat %3, seed %4) with its stored settings")
                  .arg(runId)
                  .arg(run->algorithmName)
                  .arg(run->repeat + 1)
                  .arg(run->seed));
    return startSpec(*spec, tr("Re-run of run %1: %2").arg(runId).arg(run->algorithmName), error);
}

bool MainWindow::rerunExperiment(qint64 experimentId, QString* error)
{
    if (!m_store) {
        if (error)
            *error = tr("no database is open");
        return false;
    }
    const auto exp = m_store->experiment(experimentId);
    if (!exp) {
        if (error)
            *error = tr("no experiment %1 in %2").arg(experimentId).arg(m_store->path());
        return false;
    }
    QString err;
    auto spec = ExperimentSpec::fromObject(exp->spec, tr("experiment %1").arg(experimentId), &err);
    if (!spec) {
        if (error)
            *error = err;
        return false;
    }
    appendLog(tr("Re-running experiment %1 “%2” with its stored settings").arg(experimentId).arg(exp->name));
    return startSpec(*spec, tr("Re-run of experiment %1: %2").arg(experimentId).arg(exp->name), error);
}

int MainWindow::overlayRuns(const QList<qint64>& runIds)
{
    if (!m_store || runIds.isEmpty())
        return 0;
    QList<charts::CurveSeriesData> curves;
    QList<SweepPoint> sweep;
    QHash<qint64, std::optional<ExperimentRecord>> experiments; // read once each
    QList<RunRecord> runs;
    for (qint64 id : runIds)
        if (auto r = m_store->run(id)) {
            runs << *r;
            if (!experiments.contains(r->experimentId))
                experiments.insert(r->experimentId, m_store->experiment(r->experimentId));
        }
    if (runs.isEmpty())
        return 0; // none of the ids is in this store (deleted meanwhile)
    const bool manyExperiments = experiments.size() > 1;
    bool classification = false;
    bool anySweep = false;
    for (const RunRecord& r : runs) {
        const std::optional<ExperimentRecord>& exp = experiments[r.experimentId];
        const QString label = manyExperiments ? tr("%1 (exp. %2)").arg(r.algorithmName).arg(r.experimentId) : r.algorithmName;
        if (exp && exp->kind == QLatin1String("noise-sweep")) {
            anySweep = true;
            for (SweepPoint p : m_store->sweepPoints(r.experimentId))
                if (p.algorithmId == r.algorithmId && p.algorithmName == r.algorithmName) {
                    p.algorithmName = label;
                    p.algorithmId = label; // groups by label: the same algorithm of two experiments stays apart
                    sweep << p;
                }
            continue;
        }
        if (exp)
            if (const auto t = data::DataSource::task(exp->spec.value(QStringLiteral("dataset")).toObject()))
                classification = classification || *t == Task::Classification;
        charts::CurveSeriesData* c = nullptr;
        for (auto& existing : curves)
            if (existing.label == label && existing.algorithmId == r.algorithmId)
                c = &existing;
        if (!c) {
            curves.append(charts::CurveSeriesData{label, r.algorithmId, {}});
            c = &curves.last();
        }
        c->repeats << m_store->metrics(r.id);
    }
    m_charts->clear();
    m_charts->setTask(classification || curves.isEmpty());
    m_charts->setCurves(curves);
    m_charts->setSweep(sweep);
    m_charts->showKind(anySweep && curves.isEmpty());
    m_charts->setCaption(tr("Stored: %n run(s) from %1", nullptr, int(runs.size()))
                             .arg(manyExperiments ? tr("%1 experiments").arg(experiments.size())
                                                  : tr("experiment %1").arg(experiments.begin().key())));
    m_centre->setCurrentWidget(m_charts);
    return int(runs.size());
}

void MainWindow::stopExperiment()
{
    m_controller->stop();
}

QString MainWindow::logText() const
{
    return m_log->toPlainText();
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
    if (saveAs || path.isEmpty()) {
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

void MainWindow::exportChartDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), QDir(m_lastDir).filePath(QStringLiteral("chart.png")),
                                                      tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!m_charts->savePng(path, &error))
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

void MainWindow::onStarted()
{
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
}

void MainWindow::onFinished(const QString& summary)
{
    onUpdated();
    m_status->setText(summary);
    updateActions();
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
