#include "RunsCommand.h"
#include "CliStreams.h"
#include "CommandSupport.h"

#include <engine/CostPrediction.h>
#include <store/RunStore.h>

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <algorithm>
#include <cmath>

namespace tb::cli {

int runsCommand(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("List past experiments and their runs.");
    p.addHelpOption();
    p.addOption({"db", "Run database.", "file"});
    p.addOption({"json", "Print JSON."});
    p.process(args);
    if (!p.isSet("db") && !QFileInfo::exists(tb::RunStore::defaultPath())) {
        out() << "No experiments yet (" << tb::RunStore::defaultPath() << " does not exist)\n";
        return Ok;
    }
    auto store = openStore(p.value("db"), true);
    if (!store)
        return Database;
    QString readError;
    const auto exps = store->experiments(&readError);
    if (!readError.isEmpty()) {
        err() << "trainbench-cli: " << readError << Qt::endl;
        return Database;
    }
    QJsonArray jexps;
    for (const auto& e : exps) {
        const auto runs = store->runs(e.id, &readError);
        if (!readError.isEmpty()) {
            out().flush();
            err() << "trainbench-cli: " << readError << Qt::endl;
            return Database;
        }
        if (p.isSet("json")) {
            QJsonArray jr;
            for (const auto& r : runs)
                jr.append(QJsonObject{{"id", r.id}, {"algorithm", r.algorithmId}, {"label", r.algorithmName},
                                      {"status", tb::runStatusName(r.status)}, {"seed", QString::number(r.seed)},
                                      {"threads", r.threads}, {"repeat", r.repeat}, {"error", r.error},
                                      {"plugin_version", r.pluginVersion}, {"app_version", r.appVersion},
                                      {"params", QJsonObject::fromVariantMap(r.params)}, {"info", r.info},
                                      {"owner", QJsonObject{{"host", r.owner.host}, {"pid", r.owner.pid},
                                                            {"start_ticks", r.owner.startTicks},
                                                            {"boot_id", r.owner.bootId}}}});
            jexps.append(QJsonObject{{"id", e.id}, {"name", e.name}, {"kind", e.kind},
                                     {"created", e.created.toString(Qt::ISODate)}, {"app_version", e.appVersion},
                                     {"git_hash", e.gitHash}, {"runs", jr}});
            continue;
        }
        out() << "experiment " << e.id << "  " << e.name << "  [" << e.kind << "]  "
              << e.created.toLocalTime().toString("yyyy-MM-dd hh:mm:ss") << "  app " << e.appVersion << " ("
              << e.gitHash << ")\n";
        // The name column as wide as the experiment's longest name (a sweep's names end in the
        // values that tell its runs apart: "Adam batch_size=16, lr=0.0031"), at most 72 characters,
        // a longer name cut in its middle.
        int nameWidth = 8;
        for (const auto& r : runs)
            nameWidth = std::max(nameWidth, int(r.algorithmName.size()));
        nameWidth = std::min(nameWidth, 72);
        auto nameOf = [nameWidth](const QString& name) {
            return name.size() <= nameWidth ? name
                                            : name.left(nameWidth / 2 - 1) + QStringLiteral("…") +
                                                  name.right(nameWidth - nameWidth / 2);
        };
        for (const auto& r : runs) {
            const QJsonObject fin = r.info.value("final").toObject();
            QString metrics;
            if (fin.contains("test_accuracy"))
                metrics = QStringLiteral("train acc %1  test acc %2").arg(fmtPct(fin.value("train_accuracy").toDouble(NAN)),
                                                                          fmtPct(fin.value("test_accuracy").toDouble(NAN)));
            else if (fin.contains("test_rmse"))
                metrics = QStringLiteral("train RMSE %1  test RMSE %2").arg(fmt(fin.value("train_rmse").toDouble(NAN)),
                                                                            fmt(fin.value("test_rmse").toDouble(NAN)));
            else if (r.info.contains("cells"))
                metrics = QStringLiteral("%1/%2 cells finished").arg(r.info.value("cells_finished").toInt()).arg(r.info.value("cells").toInt());
            const double secs = r.ended.isValid() ? r.started.msecsTo(r.ended) / 1000.0 : NAN;
            out() << QString("  run %1  %2 %3  seed %4  %5 thr  %6 s  %7")
                         .arg(r.id, 5)
                         .arg(nameOf(r.algorithmName), -nameWidth)
                         .arg(tb::runStatusName(r.status), -11)
                         .arg(r.seed)
                         .arg(r.threads)
                         .arg(fmt(secs))
                         .arg(metrics);
            if (const QString mem = tb::CostPrediction::fromRunInfo(r.info).compareMemory(r.info); !mem.isEmpty())
                out() << "  " << mem;
            if (const QString cost = tb::CostPrediction::fromRunInfo(r.info).compare(r.info); !cost.isEmpty())
                out() << "  " << cost;
            else if (const QString cell =
                         tb::CostPrediction(r.info.value("predicted_cost_per_cell").toObject()).describe();
                     !cell.isEmpty())
                out() << "  predicted " << cell << " per cell";
            if (r.status == tb::RunStatus::Running)
                out() << "  (trained by " << r.owner.describe() << ")";
            if (!r.error.isEmpty())
                out() << "  (" << r.error << ")";
            out() << "\n";
        }
    }
    if (p.isSet("json"))
        out() << QJsonDocument(QJsonObject{{"database", store->path()}, {"experiments", jexps}}).toJson();
    else if (exps.isEmpty())
        out() << "No experiments in " << store->path() << "\n";
    out().flush();
    return Ok;
}

} // namespace tb::cli
