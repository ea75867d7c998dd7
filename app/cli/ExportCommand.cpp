#include "ExportCommand.h"
#include "ChartExport.h"
#include "CliStreams.h"
#include "CommandSupport.h"

#include <engine/ResultCsv.h>
#include <store/RunStore.h>
#include <engine/StoredRuns.h>

#include <QCommandLineParser>
#include <QFileInfo>
#include <QTextStream>

namespace tb::cli {

int exportCommand(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("Export a past experiment's charts and metrics.");
    p.addHelpOption();
    p.addPositionalArgument("id", "Experiment id (see `trainbench-cli runs`).");
    p.addOption({"db", "Run database.", "file"});
    p.addOption({"plot", "PNG file.", "file.png"});
    p.addOption({"csv", "CSV file.", "file.csv"});
    p.process(args);
    bool ok = false;
    const qint64 id = p.positionalArguments().value(0).toLongLong(&ok);
    if (!ok || p.positionalArguments().size() != 1 || (!p.isSet("plot") && !p.isSet("csv"))) {
        err() << "usage: trainbench-cli export ID [--db FILE] --plot OUT.png and/or --csv OUT.csv\n";
        return Usage;
    }
    auto store = openStore(p.value("db"), true);
    if (!store)
        return Database;
    QString error;
    const auto result = tb::StoredRuns::experiment(*store, id, &error);
    if (!result) {
        err() << "trainbench-cli: " << error << Qt::endl;
        return store->lastError().isEmpty() ? Usage : Database; // an unknown id, or a failed read
    }
    const auto exp = store->experiment(id);
    int code = Ok;
    if (p.isSet("plot")) {
        QStringList written;
        if (!tb::cli::writeCharts(*result, exp ? exp->name : QString(), p.value("plot"), &written, &error)) {
            err() << "trainbench-cli: " << error << Qt::endl;
            code = Output;
        }
        for (const auto& w : written)
            out() << "chart: " << QFileInfo(w).absoluteFilePath() << "\n";
    }
    if (p.isSet("csv")) {
        QList<qint64> runIds; // every run of the experiment, as the workbench's run browser exports them
        for (const tb::RunRecord& r : store->runs(id))
            runIds << r.id;
        if (!tb::ResultCsv::writeRuns(*store, runIds, p.value("csv"), &error)) {
            err() << "trainbench-cli: " << error << Qt::endl;
            code = Output;
        } else {
            out() << "csv: " << QFileInfo(p.value("csv")).absoluteFilePath() << "\n";
        }
    }
    out().flush();
    return code;
}

} // namespace tb::cli
