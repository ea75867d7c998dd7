#include "MainWindow.h"

#include "DatabaseControl.h"
#include "ExperimentDocument.h"
#include "ExportDialogs.h"
#include "PresentationMode.h"
#include "RunControl.h"
#include "WindowLayout.h"
#include "WindowMessages.h"
#include "ChartTabs.h"
#include "comparison/ComparisonTab.h"
#include "reports/GuideViewer.h"
#include "reports/ReportViewer.h"
#include "runs/ExperimentController.h"
#include "runs/RunBrowser.h"
#include "setup/AlgorithmPanel.h"
#include "setup/DatasetPanel.h"
#include "setup/ExperimentPanel.h"
#include "setup/PluginsDialog.h"
#include "teaching/TeachingView.h"
#include "widgets/WheelGuard.h"

#include <store/BuildInfo.h>
#include <store/RunStore.h>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

namespace tb::gui {

MainWindow::MainWindow(const PluginRegistry& registry, QWidget* parent)
    : QMainWindow(parent), m_registry(registry)
{
    m_controller = new ExperimentController(registry, this);
    qApp->installEventFilter(new WheelGuard(this)); // removed with the window
    m_messages = new WindowMessages(this);
    m_layout = new WindowLayout(this);
    buildUi();
    m_presentation = new PresentationMode(this, m_centre, m_teaching);
    m_database = new DatabaseControl(registry, m_controller, m_browser, m_messages, this);
    m_document =
        new ExperimentDocument(registry, this, m_experiment, m_dataset, m_algorithms, m_teaching, m_messages);
    m_runs = new RunControl(registry, m_controller, m_document, m_database, m_charts, m_comparison, m_browser,
                            m_centre, m_comparisonPage, m_messages, this);
    m_exports = new ExportDialogs(m_charts, m_comparison, m_centre, m_comparisonPage, m_browser, m_runs,
                                  m_document, m_messages, this);
    connect(m_runs, &RunControl::runningChanged, m_database->openAction(),
            [this](bool running) { m_database->openAction()->setEnabled(!running); });
    buildMenus();

    // The status bar: what runs now, the current run's progress and the experiment's.
    statusBar()->addWidget(m_messages->status(), 1);
    statusBar()->addPermanentWidget(m_runs->runProgress());
    statusBar()->addPermanentWidget(m_runs->progress());
    m_runs->runProgress()->hide();

    // Plugin folders refused as unsafe, and plugins that replace another of their id: in the
    // log from the start (Help → Plugins… shows the same above its table).
    for (const QString& n : registry.notices())
        m_messages->appendLog(tr("Plugins: %1").arg(n));

    m_document->start();
    restoreSettings();
    m_document->continueSession();
    m_runs->updateActions();
}

MainWindow::~MainWindow()
{
    // The controller joins its worker (Stop honoured within 200 ms) before the store closes.
    delete m_controller;
    m_controller = nullptr;
    m_database->close();
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

    // Experiment: settings, Run and Stop (wired to the run actions in buildMenus()).
    m_experiment = new ExperimentPanel;
    m_runButton = new QPushButton(tr("Run"));
    m_stopButton = new QPushButton(tr("Stop"));
    // Not a default button (drawn with a frame as if focused, in a main window it has no Enter to
    // take) and not focused by a click: Space meant for another field never starts a run.
    m_runButton->setFocusPolicy(Qt::TabFocus);
    m_stopButton->setFocusPolicy(Qt::TabFocus);
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
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_stopButton);
    expLayout->addLayout(buttons);

    m_dataset = new DatasetPanel;
    auto* dataScroll = new QScrollArea;
    dataScroll->setWidgetResizable(true);
    dataScroll->setFrameShape(QFrame::NoFrame);
    dataScroll->setWidget(m_dataset);

    m_algorithms = new AlgorithmPanel(m_registry);
    m_browser = new RunBrowser;
    m_layout->addDocks(expBox, dataScroll, m_algorithms, m_browser, m_messages->log());
}

void MainWindow::buildMenus()
{
    QAction* runAct = m_runs->runAction();
    QAction* stopAct = m_runs->stopAction();
    connect(m_runButton, &QPushButton::clicked, runAct, &QAction::trigger);
    connect(m_stopButton, &QPushButton::clicked, stopAct, &QAction::trigger);
    connect(runAct, &QAction::enabledChanged, m_runButton, &QPushButton::setEnabled);
    connect(stopAct, &QAction::enabledChanged, m_stopButton, &QPushButton::setEnabled);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newAct = file->addAction(tr("&New experiment"), m_document, &ExperimentDocument::newExperiment);
    newAct->setShortcut(QKeySequence::New);
    QAction* openAct =
        file->addAction(tr("&Open experiment…"), m_document, &ExperimentDocument::openExperimentDialog);
    openAct->setShortcut(QKeySequence::Open);
    m_document->addExamples(file->addMenu(tr("Open e&xample")));
    QAction* saveAct = file->addAction(tr("&Save experiment"), m_document,
                                       [this] { m_document->saveExperimentDialog(false); });
    saveAct->setShortcut(QKeySequence::Save);
    QAction* saveAsAct = file->addAction(tr("Save experiment &as…"), m_document,
                                         [this] { m_document->saveExperimentDialog(true); });
    saveAsAct->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    file->addAction(m_database->openAction());
    connect(m_database->openAction(), &QAction::triggered, m_database,
            [this] { m_database->openDatabaseDialog(m_document->lastDir()); });
    file->addAction(m_database->saveResultsAction());
    connect(m_database->saveResultsAction(), &QAction::triggered, m_database,
            [this] { m_database->saveResultsDialog(m_document->lastDir()); });
    file->addSeparator();
    file->addAction(tr("Export chart as &PNG or SVG…"), m_exports, &ExportDialogs::exportChart);
    file->addAction(tr("Export selected runs as &CSV…"), m_exports, &ExportDialogs::exportRuns);
    file->addSeparator();
    file->addAction(tr("Open reproduction &report…"), this, &MainWindow::openReproductionReport);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(runAct);
    run->addAction(stopAct);
    run->addAction(m_runs->resumeAction());

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : findChildren<QDockWidget*>())
        view->addAction(d->toggleViewAction());
    view->addSeparator();
    view->addMenu(m_charts->timeAxisMenu()); // the same actions as the charts' Display menu
    view->addAction(tr("Reset zoom"), m_charts, &ChartTabs::resetZoom);
    view->addSeparator();
    view->addAction(tr("Reset &layout"), m_layout, &WindowLayout::resetLayout);
    view->addAction(m_presentation->action());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User guide"), this, &MainWindow::showGuide);
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Plugins…"), this, &MainWindow::showPlugins);
    help->addAction(tr("&About Trainbench"), this, &MainWindow::showAbout);

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(newAct);
    bar->addAction(openAct);
    bar->addAction(saveAct);
    bar->addSeparator();
    bar->addAction(runAct);
    bar->addAction(stopAct);
}

void MainWindow::restoreSettings()
{
    QSettings s;
    m_layout->restore(s);
    m_document->restore(s);
    m_experiment->setThreads(s.value(QStringLiteral("threads"), 0).toInt());
    // "auto" (the default), "linear" or "log"; before the automatic axis a bool, "charts/logTime".
    const QString axis = s.value(QStringLiteral("charts/timeAxis"),
                                 s.value(QStringLiteral("charts/logTime"), false).toBool() ? QStringLiteral("log")
                                                                                          : QStringLiteral("auto"))
                             .toString();
    m_charts->setTimeAxis(axis == QLatin1String("log")      ? std::optional<bool>(true)
                          : axis == QLatin1String("linear") ? std::optional<bool>(false)
                                                            : std::nullopt);
    setWindowModified(false);
    m_database->restore(s);
}

void MainWindow::saveSettings() const
{
    QSettings s;
    m_layout->save(s);
    m_document->save(s);
    s.setValue(QStringLiteral("threads"), m_experiment->threads());
    const std::optional<bool> axis = m_charts->timeAxis();
    s.setValue(QStringLiteral("charts/timeAxis"),
               !axis ? QStringLiteral("auto") : *axis ? QStringLiteral("log") : QStringLiteral("linear"));
    s.remove(QStringLiteral("charts/logTime"));
    m_database->save(s);
}

void MainWindow::showPlugins()
{
    PluginsDialog dialog(m_registry, this);
    dialog.exec();
}

void MainWindow::openReproductionReport()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a reproduction report"),
                                                      ReportViewer::defaultFolder(),
                                                      tr("Reproduction reports (*.md)"));
    if (path.isEmpty())
        return;
    showReproductionReport(path);
}

bool MainWindow::showReproductionReport(const QString& path)
{
    if (!m_reportViewer)
        m_reportViewer = new ReportViewer(this);
    QString error;
    if (!m_reportViewer->openReport(path, &error)) {
        QMessageBox::warning(this, tr("Reproduction report"), error);
        return false;
    }
    m_reportViewer->show();
    m_reportViewer->raise();
    return true;
}

void MainWindow::showGuide()
{
    if (!m_guide)
        m_guide = new GuideViewer(this);
    QString error;
    if (!m_guide->openGuide(&error)) {
        m_messages->showProblems(tr("Cannot show the user guide"), error);
        return;
    }
    m_guide->show();
    m_guide->raise();
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About Trainbench"),
        tr("<b>Trainbench %1</b> (%2)<p>A workbench for comparing ways to train neural networks and "
           "kernel machines: every algorithm a plugin, curves live, every run logged.</p>"
           "<p>Database: %3</p>")
            .arg(QStringLiteral(TB_APP_VERSION), gitHash(),
                 store() ? store()->path().toHtmlEscaped() : tr("none")));
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    m_layout->windowShown();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_controller->isRunning()) {
        if (m_messages->confirmations() &&
            QMessageBox::question(
                this, tr("Quit Trainbench"),
                tr("An experiment is running. Stop it and quit?\n\nFinished runs and every checkpoint "
                   "so far are already in the database; the running runs are kept as cancelled."),
                QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        m_controller->stop();
        m_controller->waitForFinished(5000);
    }
    if (!m_document->maybeSave()) {
        event->ignore();
        return;
    }
    m_teaching->stop();
    saveSettings();
    m_document->saveSession();
    event->accept();
}

// The public interface, handed over to the parts.

QJsonObject MainWindow::experimentJson() const
{
    return m_document->experimentJson();
}

std::optional<ExperimentSpec> MainWindow::currentSpec(QStringList* problems) const
{
    return m_document->currentSpec(problems);
}

QStringList MainWindow::setExperiment(const QJsonObject& spec, const QString& baseDir)
{
    return m_document->setExperiment(spec, baseDir);
}

bool MainWindow::openExperiment(const QString& path, QString* error)
{
    return m_document->openExperiment(path, error);
}

bool MainWindow::saveExperiment(const QString& path, QString* error)
{
    return m_document->saveExperiment(path, error);
}

QString MainWindow::experimentPath() const
{
    return m_document->path();
}

void MainWindow::saveSession() const
{
    m_document->saveSession();
}

QString MainWindow::fileDialogFolder() const
{
    return m_document->lastDir();
}

bool MainWindow::openDatabase(const QString& path, QString* error)
{
    return m_database->openDatabase(path, error);
}

RunStore* MainWindow::store() const
{
    return m_database->store();
}

bool MainWindow::saveResultsTo(const QString& path, QString* error)
{
    return m_database->saveResultsTo(path, error);
}

QAction* MainWindow::saveResultsAction() const
{
    return m_database->saveResultsAction();
}

bool MainWindow::runExperiment(QString* error)
{
    return m_runs->runExperiment(error);
}

bool MainWindow::rerun(qint64 runId, QString* error)
{
    return m_runs->rerun(runId, error);
}

bool MainWindow::rerunExperiment(qint64 experimentId, QString* error)
{
    return m_runs->rerunExperiment(experimentId, error);
}

int MainWindow::overlayRuns(const QList<qint64>& runIds)
{
    return m_runs->overlayRuns(runIds);
}

void MainWindow::stopExperiment()
{
    m_runs->stop();
}

QStringList MainWindow::chartSettings() const
{
    return m_runs->chartSettings();
}

QAction* MainWindow::resumeAction() const
{
    return m_runs->resumeAction();
}

QAction* MainWindow::runAction() const
{
    return m_runs->runAction();
}

QAction* MainWindow::stopAction() const
{
    return m_runs->stopAction();
}

QProgressBar* MainWindow::progressBar() const
{
    return m_runs->progress();
}

void MainWindow::setPresentationMode(bool on)
{
    m_presentation->setOn(on);
}

bool MainWindow::isPresentationMode() const
{
    return m_presentation->isOn();
}

void MainWindow::resetLayout()
{
    m_layout->resetLayout();
}

QSize MainWindow::initialSize(const QSize& available)
{
    return WindowLayout::initialSize(available);
}

QRect MainWindow::fitToScreen(const QRect& window, const QRect& available)
{
    return WindowLayout::fitToScreen(window, available);
}

void MainWindow::setConfirmations(bool on)
{
    m_messages->setConfirmations(on);
}

QString MainWindow::statusText() const
{
    return m_messages->statusText();
}

QString MainWindow::logText() const
{
    return m_messages->logText();
}

} // namespace tb::gui
