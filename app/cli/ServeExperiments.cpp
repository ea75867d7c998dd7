#include "ServeExperiments.h"

#ifdef TB_HAVE_MPI
#include "CliStreams.h"
#include "CommandSupport.h"

#include <cluster/MpiRootExecutor.h>
#include <cluster/MpiSession.h>
#include <cluster/MpiWorkerExecutor.h>
#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>

#include <numeric>

namespace tb::cli {

int serveExperiments(cluster::MpiSession& mpi, ExperimentRunner** current)
{
    PluginRegistry reg;
    reg.scan();
    cluster::MpiWorkerExecutor worker(mpi, reg);
    for (;;) {
        int code = Ok;
        const auto next = worker.nextExperiment(&code);
        if (!next) {
            if (worker.peerLost())
                mpi.skipFinalize();
            return code;
        }
        QString error;
        auto spec = ExperimentSpec::fromObject(next->json, next->sourceName, &error);
        QStringList problems;
        if (!spec) {
            problems << error;
        } else {
            spec->sourcePath = next->sourcePath;
            spec->baseDir = next->baseDir;
            spec->upgradeParams(reg); // rank 0 said its notes
            problems = spec->validate(reg);
        }
        if (!problems.isEmpty()) {
            // As `run --mpi`: a plugin missing here, say; rank 0 reports it and goes on without us.
            worker.refuse(problems.join(QStringLiteral("; ")));
        } else {
            ExperimentRunner runner(reg, nullptr, &worker);
            *current = &runner;
            struct Served : ExperimentObserver {
                bool started = false;
                void experimentStarted(qint64, const ExperimentSpec&, int) override { started = true; }
            } served;
            const ExperimentResult r = runner.run(*spec, &served);
            *current = nullptr;
            if (!served.started) // its data did not load on this node, say
                worker.refuse(QStringLiteral("rank %1 on %2: %3").arg(mpi.rank()).arg(mpi.host(), r.error));
        }
        worker.experimentServed();
    }
}

void printRankLoad(const cluster::MpiRootExecutor& root)
{
    const QList<int> cells = root.cellsPerRank();
    if (std::accumulate(cells.begin(), cells.end(), 0) == 0)
        return;
    QStringList perRank;
    for (int r = 1; r < cells.size(); ++r)
        perRank << QString::number(cells[r]);
    out() << "cells per worker rank: " << perRank.join(QStringLiteral(", ")) << "\n";
    out() << root.loadSummary() << "\n";
    out().flush();
}

} // namespace tb::cli
#endif
