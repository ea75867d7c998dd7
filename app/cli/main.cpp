// trainbench-cli: runs experiment files headless, lists plugins and past runs, exports charts.
// Each command is a file of its own (RunCommand, ListCommand, …); this one only dispatches.
// Exit codes (also in docs/cli.md):
//   0 success; 1 some runs failed or diverged; 2 usage error; 3 invalid experiment or data;
//   4 database error; 5 stopped by the user (Ctrl-C); 6 output (PNG/CSV) could not be written;
//   7 a download failed (`datasets fetch`: network, disk).

#include "CliStreams.h"
#include "CompareCommand.h"
#include "DatasetsCommand.h"
#include "ExportCommand.h"
#include "Interrupts.h"
#include "LibraryNoise.h"
#include "ListCommand.h"
#include "ReproduceCommand.h"
#include "RerunCommand.h"
#include "RunCommand.h"
#include "RunsCommand.h"

#include <store/BuildInfo.h>
#include <engine/ProcessSetup.h>

#include <QApplication>
#include <QTextStream>

#include <exception>
#include <new>

namespace {

using namespace tb::cli; // Exit, out(), err() (CliStreams.h)

void usage()
{
    err() << "usage: trainbench-cli <command> [options]\n\n"
             "commands:\n"
             "  list [--json]                         plugins, algorithms, parameter schemas, broken plugins\n"
             "  run SPEC.json [--db FILE] [--no-db] [--threads N] [--plot OUT.png] [--csv OUT.csv] [--quiet]\n"
             "                [--wait SECONDS] [--resume]\n"
             "  mpirun -np N trainbench-cli run SPEC.json --mpi [--threads-per-rank N] [--worker-timeout S] …\n"
             "                                        the cells on the ranks of an MPI job (docs/cluster.md)\n"
             "  rerun ID [--experiment] [--db FILE] [--plot OUT.png] [--csv OUT.csv] [--quiet]\n"
             "                                        run a stored run (or experiment) again, exactly\n"
             "  runs [--db FILE] [--json]             past experiments and runs\n"
             "  export ID [--db FILE] [--plot OUT.png] [--csv OUT.csv]\n"
             "  compare ID [ID ...] [--db FILE] [--metric KEY] [--baseline NAME] [--format text|csv|markdown|latex]\n"
             "                                        result matrix, paired tests, grid, time to target (docs/cli.md)\n"
             "  reproduce CLAIMS.json... [--out DIR] [--quick] [--resume] [--no-train] [--db FILE] [--check] [--mpi]\n"
             "                                        re-measure papers' claims, one report per file (docs/reproductions);\n"
             "                                        with --mpi under mpirun, the runs train on the job's ranks\n"
             "  datasets [list|fetch|verify|path|remove] NAME… [--json] [--mirror URL] [--sha256 HEX] [--yes]\n"
             "                                        the papers' public data sets, fetched once into a cache\n"
             "  --version\n\n"
             "exit codes: 0 ok, 1 runs failed/diverged, 2 usage, 3 invalid experiment or data,\n"
             "            4 database, 5 stopped by user, 6 output not written, 7 download failed\n";
    err().flush();
}

} // namespace

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv); // may restart the process once: first thing
    tb::cli::LibraryNoise::install();     // before QApplication, whose start-up already remarks
    // The CLI never shows a window; Qt Charts still need a QApplication to render PNGs.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName("trainbench");
    QCoreApplication::setOrganizationName("trainbench");
    QCoreApplication::setApplicationVersion(TB_APP_VERSION);

    QStringList args = app.arguments();
    if (args.size() < 2 || args[1] == "help" || args[1] == "--help" || args[1] == "-h") {
        usage();
        return args.size() < 2 ? Usage : Ok;
    }
    if (args[1] == "--version") {
        out() << "trainbench-cli " << TB_APP_VERSION << " (" << tb::gitHash() << ")\n";
        return Ok;
    }
    const QString cmd = args.takeAt(1);
    args[0] = QStringLiteral("trainbench-cli ") + cmd;
    // Loaders, trainers and the store turn their failures into messages; what still escapes
    // (memory exhausted while building charts or results, say) is reported with the command,
    // never as a bare "terminate called after throwing std::bad_alloc".
    try {
        if (cmd == "list")
            return tb::cli::listCommand(args);
        if (cmd == "run")
            return tb::cli::runCommand(args);
        if (cmd == "rerun")
            return tb::cli::rerunCommand(args);
        if (cmd == "runs")
            return tb::cli::runsCommand(args);
        if (cmd == "export")
            return tb::cli::exportCommand(args);
        if (cmd == "compare")
            return tb::cli::compareCommand(args);
        if (cmd == "reproduce") {
            tb::cli::catchInterrupts();
            return tb::cli::reproduceCommand(args, tb::cli::runnerToStop());
        }
        if (cmd == "datasets") {
            tb::cli::catchInterrupts();
            return tb::cli::datasetsCommand(args, tb::cli::fetchStop());
        }
    } catch (const std::bad_alloc&) {
        err() << "trainbench-cli " << cmd << ": out of memory (std::bad_alloc)" << Qt::endl;
        return Invalid;
    } catch (const std::exception& e) {
        err() << "trainbench-cli " << cmd << ": " << QString::fromUtf8(e.what()) << Qt::endl;
        return Invalid;
    }
    err() << "trainbench-cli: unknown command \"" << cmd << "\"\n\n";
    usage();
    return Usage;
}
