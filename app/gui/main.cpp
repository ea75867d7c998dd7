// trainbench: the workbench GUI.
//   trainbench [EXPERIMENT.json] [--db FILE] [--run] [--teaching] [--presentation]
//              [--screenshot FILE.png [--after SECONDS | --when-finished] [--tab charts|comparison|teaching]]

#include "comparison/ComparisonPanel.h"
#include "comparison/ComparisonTab.h"
#include "comparison/SweepResultView.h"
#include "runs/ExperimentController.h"
#include "window/MainWindow.h"
#include "teaching/TeachingView.h"

#include <engine/PluginRegistry.h>
#include <engine/ProcessSetup.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv); // may restart the process once: first thing
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("trainbench"));
    QCoreApplication::setOrganizationName(QStringLiteral("trainbench"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TB_APP_VERSION));
    QApplication::setApplicationDisplayName(QStringLiteral("Trainbench"));

    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Trainbench: compare ways to train neural networks and kernel machines."));
    p.addHelpOption();
    p.addVersionOption();
    p.addPositionalArgument(QStringLiteral("experiment"), QStringLiteral("Experiment file (JSON) to open."), QStringLiteral("[experiment.json]"));
    p.addOption({QStringLiteral("db"), QStringLiteral("Run database to open (default: the last one, or the user's app-data folder)."), QStringLiteral("file")});
    p.addOption({QStringLiteral("run"), QStringLiteral("Run the opened experiment at once.")});
    p.addOption({QStringLiteral("teaching"), QStringLiteral("Show the teaching view and start training in it.")});
    p.addOption({QStringLiteral("presentation"), QStringLiteral("Start in presentation mode (the teaching view full screen; F11 leaves).")});
    p.addOption({QStringLiteral("screenshot"), QStringLiteral("Save a picture of the window to FILE, then quit (see --after)."), QStringLiteral("file.png")});
    p.addOption({QStringLiteral("after"), QStringLiteral("Seconds before --screenshot (default 3)."), QStringLiteral("seconds"), QStringLiteral("3")});
    p.addOption({QStringLiteral("when-finished"), QStringLiteral("Take --screenshot when the experiment started by --run has finished.")});
    p.addOption({QStringLiteral("tab"), QStringLiteral("The centre tab shown in --screenshot: charts, comparison or teaching (default: as the run left it)."), QStringLiteral("name")});
    p.process(app);

    tb::PluginRegistry registry; // outlives the window: plugins stay loaded while trainers exist
    registry.scan();
    tb::gui::MainWindow window(registry);
    QString error;
    if (p.isSet(QStringLiteral("db")) && !window.openDatabase(p.value(QStringLiteral("db")), &error)) {
        std::fprintf(stderr, "trainbench: %s\n", qPrintable(error));
        QMessageBox::warning(&window, QStringLiteral("Trainbench"), error);
    }
    if (!p.positionalArguments().isEmpty() && !window.openExperiment(p.positionalArguments().first(), &error)) {
        std::fprintf(stderr, "trainbench: %s\n", qPrintable(error));
        QMessageBox::warning(&window, QStringLiteral("Trainbench"), error);
    }
    window.show();

    if (p.isSet(QStringLiteral("run")))
        QTimer::singleShot(0, &window, [&window] {
            QString e;
            if (!window.runExperiment(&e))
                std::fprintf(stderr, "trainbench: cannot run: %s\n", qPrintable(e));
        });
    if (p.isSet(QStringLiteral("teaching")))
        QTimer::singleShot(0, &window, [&window] {
            auto* centre = qobject_cast<QTabWidget*>(window.centralWidget());
            centre->setCurrentWidget(window.teachingView());
            window.teachingView()->train();
        });
    if (p.isSet(QStringLiteral("presentation")))
        QTimer::singleShot(0, &window, [&window] { window.setPresentationMode(true); });
    if (p.isSet(QStringLiteral("screenshot"))) {
        const QString path = p.value(QStringLiteral("screenshot"));
        window.setConfirmations(false);
        const QString tab = p.value(QStringLiteral("tab")).toLower();
        if (!tab.isEmpty() && tab != u"charts" && tab != u"comparison" && tab != u"teaching") {
            std::fprintf(stderr, "trainbench: --tab: expected charts, comparison or teaching, got \"%s\"\n", qPrintable(tab));
            return 2;
        }
        auto shoot = [&window, path, tab] {
            if (!tab.isEmpty()) {
                auto* centre = qobject_cast<QTabWidget*>(window.centralWidget());
                for (int i = 0; centre && i < centre->count(); ++i)
                    if (centre->tabText(i).remove(QLatin1Char('&')).toLower() == tab)
                        centre->setCurrentIndex(i);
                QApplication::processEvents();
                // The Comparison page scrolls on a small screen: its tables, not only its charts —
                // but a comparison across data sets (a suite's) is its critical-difference diagram, at the top.
                tb::gui::SweepResultView* sweep = window.comparison()->sweepView();
                const bool acrossSets = sweep->tabs()->currentIndex() == sweep->indexOf(QStringLiteral("critical-difference"));
                if (auto* page = qobject_cast<QScrollArea*>(centre ? centre->currentWidget() : nullptr);
                    page && tab == u"comparison")
                    page->ensureWidgetVisible(acrossSets ? static_cast<QWidget*>(sweep) : window.comparison()->panel(), 0, 0);
                QApplication::processEvents();
            }
            const bool ok = window.grab().save(path);
            std::fprintf(stderr, ok ? "trainbench: screenshot %s\n" : "trainbench: cannot write %s\n", qPrintable(path));
            window.stopExperiment();
            window.controller()->waitForFinished(5000);
            QApplication::exit(ok ? 0 : 1);
        };
        if (p.isSet(QStringLiteral("when-finished")))
            QObject::connect(window.controller(), &tb::gui::ExperimentController::finished, &window,
                             [&window, shoot] { QTimer::singleShot(500, &window, shoot); });
        else
            QTimer::singleShot(int(1000 * p.value(QStringLiteral("after")).toDouble()), &window, shoot);
    }
    return app.exec();
}
