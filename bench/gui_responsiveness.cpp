// How long the GUI thread is ever busy while experiments train: the main window runs an
// experiment file (its workers on every core the file allows) while a 2 ms probe timer on the
// GUI thread records the gaps between its ticks. A gap longer than the interval is time the
// event loop could not answer: a stall the user would feel as a frozen window.
//
//   gui_responsiveness [--repeats N] EXPERIMENT.json [EXPERIMENT.json …] [--quick]
//
// Prints, per experiment: wall time, probe ticks, gap percentiles and the longest gap, and how
// many gaps exceeded 50 ms. Run it under Xvfb for real X11 painting, or with
// QT_QPA_PLATFORM=offscreen. --quick without files runs resources/experiments/teaching-moons.json.
// See bench/README.md ("Workbench GUI").

#include <support/BenchArguments.h>
#include <support/BenchMain.h>

#include "window/ChartTabs.h"
#include <runs/ExperimentController.h>
#include <window/MainWindow.h>
#include <engine/PluginRegistry.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

double percentile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t i = std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5));
    return v[i];
}

} // namespace

int main(int argc, char** argv)
{
    using tb::bench::BenchArguments;
    BenchArguments args("gui_responsiveness",
                        "How long the GUI thread is ever busy while experiments train in the "
                        "workbench's main window (gaps of a 2 ms probe timer).");
    args.addPositional("experiments", "experiment files, run one after the other", "EXPERIMENT.json [...]");
    args.add(BenchArguments::Common::Repeats, "1", {}, "runs of each file");
    return tb::bench::benchMain(argc, argv, args, {.widgets = true}, [&] {
        const int repeat = int(args.integer("repeats", 1));
        QStringList files = args.positional();
        if (files.isEmpty() && args.quick())
            files << QStringLiteral(TB_SOURCE_DIR "/resources/experiments/teaching-moons.json");
        if (files.isEmpty())
            throw BenchArguments::Error("expected one or more experiment files (--help lists the options)");
        QTemporaryDir dir;
        qputenv("XDG_CONFIG_HOME", dir.filePath("config").toUtf8()); // leave the user's settings alone

        tb::PluginRegistry registry;
        registry.scan();
        tb::gui::MainWindow window(registry);
        window.setConfirmations(false);
        QString error;
        if (!window.openDatabase(dir.filePath("runs.sqlite"), &error)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        window.resize(1600, 1000);
        window.show();
        QApplication::processEvents();

        std::printf("platform %s\n", qPrintable(QGuiApplication::platformName()));
        std::printf("%-40s %8s %8s %8s %8s %8s %8s %6s\n", "experiment", "wall s", "ticks", "p50 ms",
                    "p99 ms", "p99.9 ms", "max ms", ">50ms");
        int status = 0;
        for (const QString& f : files)
            for (int r = 0; r < repeat; ++r) {
                if (!window.openExperiment(f, &error)) {
                    std::fprintf(stderr, "%s\n", qPrintable(error));
                    status = 1;
                    continue;
                }
                std::vector<double> gaps;
                gaps.reserve(1 << 16);
                QElapsedTimer clock;
                QTimer probe;
                probe.setTimerType(Qt::PreciseTimer);
                probe.setInterval(2);
                qint64 last = 0;
                QObject::connect(&probe, &QTimer::timeout, [&] {
                    const qint64 now = clock.nsecsElapsed();
                    if (last > 0)
                        gaps.push_back((now - last) / 1e6);
                    last = now;
                });
                clock.start();
                probe.start();
                if (!window.runExperiment(&error)) {
                    std::fprintf(stderr, "%s: %s\n", qPrintable(f), qPrintable(error));
                    status = 1;
                    continue;
                }
                window.controller()->waitForFinished(30 * 60 * 1000);
                probe.stop();
                const double wall = clock.elapsed() / 1000.0;
                const auto over = std::count_if(gaps.begin(), gaps.end(), [](double g) { return g > 50; });
                std::printf("%-40s %8.2f %8zu %8.2f %8.2f %8.2f %8.2f %6ld\n",
                            qPrintable(QFileInfo(f).completeBaseName().left(40)), wall, gaps.size(),
                            percentile(gaps, 0.5), percentile(gaps, 0.99), percentile(gaps, 0.999),
                            percentile(gaps, 1.0), long(over));
                std::fflush(stdout);
            }
        return status;
    });
}
