#include "RerunCommand.h"
#include "CliStreams.h"
#include "CommandSupport.h"
#include "RunSpec.h"

#include <engine/ExperimentRunner.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>
#include <engine/StoredRuns.h>

#include <QCommandLineParser>
#include <QTextStream>

namespace tb::cli {

int rerunCommand(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("Run a stored run (or with --experiment, a stored experiment) again with its stored "
                                "settings: algorithm, parameters, seed, thread count and data.");
    p.addHelpOption();
    p.addPositionalArgument("id", "Run id (see `trainbench-cli runs`), or experiment id with --experiment.");
    p.addOption({"experiment", "The id is an experiment's: re-run all of it."});
    p.addOption({"db", "Run database (default: the user's app-data folder); the re-run is logged to it.", "file"});
    p.addOption({"plot", "Write the charts as PNG (learning curves: FILE and FILE-epoch).", "file.png"});
    p.addOption({"csv", "Write the results as CSV.", "file.csv"});
    p.addOption({"quiet", "No progress bar."});
    p.process(args);
    bool ok = false;
    const qint64 id = p.positionalArguments().value(0).toLongLong(&ok);
    if (!ok || p.positionalArguments().size() != 1) {
        err() << "usage: trainbench-cli rerun ID [--experiment] [--db FILE] [--plot OUT.png] [--csv OUT.csv]\n";
        return Usage;
    }
    auto store = openStore(p.value("db"));
    if (!store)
        return Database;
    tb::PluginRegistry reg;
    reg.scan();
    warnAboutPlugins(reg);
    QString error;
    const auto rerun = p.isSet("experiment") ? tb::StoredRuns::rerunOfExperiment(*store, id, &error)
                                             : tb::StoredRuns::rerunOfRun(*store, reg, id, &error);
    if (!rerun) {
        err() << "trainbench-cli: " << error << Qt::endl;
        return Usage;
    }
    err() << "Re-running " << rerun->description << " with its stored settings\n";
    for (const QString& n : rerun->notes)
        err() << "  note: " << n << "\n";
    tb::ExperimentResult result;
    const int code = runSpec(rerun->spec, reg, store.get(), p, nullptr, -1, &result);
    // One stored run re-run as one run: say how its numbers compare with the stored ones, and
    // whether the CPU or the build differs (a noise-sweep run re-runs its whole sweep instead).
    if (!p.isSet("experiment") && result.error.isEmpty() && result.curves.size() == 1 &&
        result.curves.first().infos.size() == 1 && result.curves.first().statuses.value(0) == tb::RunStatus::Finished) {
        QString readError;
        if (const auto stored = store->run(id, &readError)) {
            const auto agreement = tb::StoredRuns::agreement(*stored, result.curves.first().infos.first());
            out() << "compared with the stored run: " << agreement.text << "\n";
        } else if (!readError.isEmpty()) {
            err() << "trainbench-cli: " << readError << Qt::endl;
        }
    }
    return code;
}

} // namespace tb::cli
