#include "StoredRuns.h"

#include "ExperimentKind.h"
#include "HostBudget.h"
#include "PluginRegistry.h"
#include <store/RunStore.h>

#include <data/DataSource.h>

#include <QHash>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace tb {

StoredRuns::RerunAgreement StoredRuns::agreement(const RunRecord& stored, const QJsonObject& rerunInfo)
{
    RerunAgreement a;
    const QJsonObject then = stored.info.value(QStringLiteral("final")).toObject();
    const QJsonObject now = rerunInfo.value(QStringLiteral("final")).toObject();
    a.timeBudget = stored.info.contains(QStringLiteral("time_budget"));
    const QString who = QStringLiteral("run %1").arg(stored.id);
    if (then.isEmpty() || now.isEmpty()) {
        a.text = then.isEmpty() ? QStringLiteral("%1 stored no final metrics to compare with").arg(who)
                                : QStringLiteral("the re-run ended without final metrics to compare with %1").arg(who);
        return a;
    }
    a.compared = true;
    // Every metric of the "final" fact but the training time, which no two runs share.
    for (const char* key : {"train_accuracy", "validation_accuracy", "test_accuracy", "train_rmse", "validation_rmse",
                            "test_rmse", "loss", "epochs"}) {
        const QString k = QLatin1String(key);
        if (!then.contains(k) && !now.contains(k))
            continue;
        const double x = then.value(k).toDouble(std::nan("")), y = now.value(k).toDouble(std::nan(""));
        if (x == y || (std::isnan(x) && std::isnan(y)))
            continue;
        const double scale = std::max(std::abs(x), std::abs(y));
        const double rel = std::isfinite(x) && std::isfinite(y) && scale > 0 ? std::abs(x - y) / scale : INFINITY;
        a.largestRelative = std::max(a.largestRelative, rel);
        a.differences << QStringLiteral("%1: stored %2, now %3%4")
                             .arg(k)
                             .arg(x, 0, 'g', 17)
                             .arg(y, 0, 'g', 17)
                             .arg(std::isfinite(rel) ? QStringLiteral(" (relative %1)").arg(rel, 0, 'e', 1) : QString());
    }
    a.identical = a.differences.isEmpty();
    auto fact = [](const QJsonObject& info, const char* key) { return info.value(QLatin1String(key)).toString(); };
    const QString storedBuild = fact(stored.info, "build"), storedCpu = fact(stored.info, "cpu");
    const QString storedHash = fact(stored.info, "git_hash"), hash = fact(rerunInfo, "git_hash");
    const QString build = fact(rerunInfo, "build"), cpu = fact(rerunInfo, "cpu");
    QStringList machine;
    if (storedCpu.isEmpty() || storedBuild.isEmpty()) {
        machine << QStringLiteral("%1 does not record the CPU and build that trained it (builds before that "
                                  "record was added did not write it); this re-run: %2, %3")
                       .arg(who, cpu, build);
    } else {
        if (storedCpu != cpu)
            machine << QStringLiteral("the CPU differs (%1 then, %2 now)").arg(storedCpu, cpu);
        if (storedBuild != build)
            machine << QStringLiteral("the build differs (%1 then, %2 now)").arg(storedBuild, build);
        else if (!storedHash.isEmpty() && storedHash != hash)
            machine << QStringLiteral("the source differs (git %1 then, %2 now)").arg(storedHash, hash);
        a.sameMachine = machine.isEmpty();
    }
    auto sentence = [](QString t) {
        if (!t.isEmpty())
            t[0] = t[0].toUpper();
        return t + QLatin1Char('.');
    };
    if (a.identical) {
        a.text = QStringLiteral("The re-run's final metrics are %1's to the bit.").arg(who);
        if (!machine.isEmpty())
            a.text += QLatin1Char(' ') + sentence(machine.join(QStringLiteral("; ")));
        return a;
    }
    a.text = QStringLiteral("The re-run differs from %1 by at most %2 (relative): %3.")
                 .arg(who)
                 .arg(a.largestRelative, 0, 'e', 1)
                 .arg(a.differences.join(QStringLiteral("; ")));
    if (a.timeBudget)
        a.text += QStringLiteral(" %1 was stopped by a time budget, so its results depend on the machine's speed.")
                      .arg(who);
    if (!machine.isEmpty())
        a.text += QLatin1Char(' ') + sentence(machine.join(QStringLiteral("; ")) +
                                              QStringLiteral(": another CPU or build rounds differently, so the "
                                                             "numbers differ within rounding — in the last "
                                                             "digits, more where the algorithm magnifies them "
                                                             "— not to the bit"));
    else if (!a.timeBudget)
        a.text += QStringLiteral(" Both were trained by the same build on the same CPU, which should give the same "
                                 "bits: this is not rounding (please report it).");
    return a;
}

std::optional<StoredRuns::Rerun> StoredRuns::rerunOfRun(const RunStore& store, const PluginRegistry& registry,
                                                        qint64 runId, QString* error)
{
    auto fail = [&](const QString& m) -> std::optional<Rerun> {
        if (error)
            *error = m;
        return std::nullopt;
    };
    const auto run = store.run(runId);
    if (!run)
        return fail(QStringLiteral("no run %1 in %2").arg(runId).arg(store.path()));
    const auto exp = store.experiment(run->experimentId);
    if (!exp)
        return fail(QStringLiteral("run %1 belongs to no stored experiment, so its data set is unknown").arg(runId));
    QString err;
    auto spec = ExperimentSpec::fromObject(exp->spec, QStringLiteral("experiment %1").arg(exp->id), &err);
    if (!spec)
        return fail(err);
    Rerun r;
    r.spec = *spec;
    r.spec.algorithms = {AlgorithmRun{run->algorithmId, run->algorithmName, run->params}};
    // The run's own budget (an algorithm entry's), when it differs from the experiment's.
    if (const auto b = HostBudget::fromFact(run->info.value(QStringLiteral("time_budget")).toObject());
        b && *b != r.spec.budget())
        r.spec.algorithms.first().budget = b;
    // The kind narrows its experiment to this run's cell (its repeat, its data-set option …).
    if (const ExperimentKind* kind = ExperimentKinds::find(r.spec.kind))
        kind->narrowToRun(r.spec, *run);
    r.spec.threads = run->threads;
    // One run again is not a set of its suite: `compare --suite` takes the suite's own sets only.
    r.spec.suitePlace = {};
    r.spec.name = QStringLiteral("%1 — re-run of run %2").arg(exp->name).arg(runId);
    r.description = QStringLiteral("run %1 (%2, repeat %3, seed %4)")
                        .arg(runId)
                        .arg(run->algorithmName)
                        .arg(run->repeat)
                        .arg(run->seed);
    if (const AlgorithmEntry* e = registry.algorithm(run->algorithmId); e && e->plugin->version != run->pluginVersion)
        r.notes << QStringLiteral("run %1 was made with %2 %3; %4 is loaded now, results may differ")
                       .arg(runId)
                       .arg(e->plugin->id, run->pluginVersion, e->plugin->version);
    // A run stored under a former algorithm id or with former parameter spellings runs under
    // the current ones, each change noted.
    const QString prefix = QStringLiteral("experiment: ");  // upgradeParams' name of a spec without a file
    for (const QString& note : r.spec.upgradeParams(registry))
        r.notes << QStringLiteral("run %1: %2").arg(runId).arg(note.startsWith(prefix) ? note.mid(prefix.size()) : note);
    return r;
}

std::optional<StoredRuns::Rerun> StoredRuns::rerunOfExperiment(const RunStore& store, qint64 experimentId,
                                                               QString* error)
{
    const auto exp = store.experiment(experimentId);
    if (!exp) {
        if (error)
            *error = QStringLiteral("no experiment %1 in %2").arg(experimentId).arg(store.path());
        return std::nullopt;
    }
    QString err;
    auto spec = ExperimentSpec::fromObject(exp->spec, QStringLiteral("experiment %1").arg(experimentId), &err);
    if (!spec) {
        if (error)
            *error = err;
        return std::nullopt;
    }
    Rerun r;
    r.spec = *spec;
    r.description = QStringLiteral("experiment %1 “%2”").arg(experimentId).arg(exp->name);
    return r;
}

StoredRuns::Selection StoredRuns::group(const RunStore& store, const QList<qint64>& runIds)
{
    Selection sel;
    QHash<qint64, std::optional<ExperimentRecord>> experiments; // read once each
    QList<RunRecord> runs;
    QSet<qint64> seen;
    QString err;
    auto noteError = [&] { // the first failed read is what the user sees; reads go on
        if (!err.isEmpty() && sel.readError.isEmpty())
            sel.readError = err;
        err.clear();
    };
    for (qint64 id : runIds) {
        if (seen.contains(id))
            continue;
        seen.insert(id);
        const auto r = store.run(id, &err);
        noteError();
        if (r) {
            runs << *r;
            sel.runIds << id;
            if (!experiments.contains(r->experimentId)) {
                experiments.insert(r->experimentId, store.experiment(r->experimentId, &err));
                noteError();
            }
        }
    }
    // Each run's place among its experiment's configurations, as its kind reads it from the run's
    // facts; when every run has one (a param sweep's cells), the configurations keep the runner's
    // order whatever order the cells ended in; other runs keep the order given.
    auto kindOf = [&](const RunRecord& run) -> const ExperimentKind* {
        const std::optional<ExperimentRecord>& exp = experiments[run.experimentId];
        return exp ? ExperimentKinds::find(exp->kind) : nullptr;
    };
    QHash<qint64, StoredPlace> places;
    for (const RunRecord& r : std::as_const(runs))
        if (const ExperimentKind* k = kindOf(r))
            places.insert(r.id, k->placeOf(r));
    if (std::all_of(runs.begin(), runs.end(), [&](const RunRecord& r) { return places.value(r.id).placed; }))
        std::stable_sort(runs.begin(), runs.end(), [&](const RunRecord& a, const RunRecord& b) {
            return std::make_pair(a.experimentId, places.value(a.id).order) <
                   std::make_pair(b.experimentId, places.value(b.id).order);
        });
    QSet<QString> swept;
    sel.experimentIds = experiments.keys();
    std::sort(sel.experimentIds.begin(), sel.experimentIds.end());
    ExperimentResult& res = sel.result;
    res.experimentId = sel.experimentIds.size() == 1 ? sel.experimentIds.first() : -1;
    const bool manyExperiments = experiments.size() > 1;
    QHash<qint64, QList<SummaryPoint>> summaryOf; // experiment → its points, read once
    for (const RunRecord& r : runs) {
        const std::optional<ExperimentRecord>& exp = experiments[r.experimentId];
        const QString name = r.algorithmName.isEmpty() ? r.algorithmId : r.algorithmName;
        const QString label = manyExperiments ? QStringLiteral("%1 (exp. %2)").arg(name).arg(r.experimentId) : name;
        if (r.status == RunStatus::Finished)
            res.runsFinished++;
        else if (r.status == RunStatus::Failed || r.status == RunStatus::Diverged)
            res.runsFailed++;
        else if (r.status == RunStatus::Cancelled)
            res.runsCancelled++;
        // A kind that keeps summary points (a noise sweep) stores one run that stands for them.
        const ExperimentKind* kind = kindOf(r);
        if (kind && !kind->summaryAxis().isEmpty()) {
            if (!summaryOf.contains(r.experimentId)) {
                summaryOf.insert(r.experimentId, store.summaryPoints(r.experimentId, &err));
                noteError();
            }
            for (SummaryPoint p : summaryOf.value(r.experimentId))
                if (p.algorithmId == r.algorithmId && p.algorithmName == r.algorithmName) {
                    p.algorithmName = label;
                    if (manyExperiments)
                        p.algorithmId = label; // the chart groups by id: keep two experiments apart
                    res.summary << p;
                }
            res.summaryRuns << SummaryRun{r.algorithmId, label, r.id, r.seed, r.status};
            continue;
        }
        if (exp)
            if (const auto t = data::DataSource::task(exp->spec.value(QStringLiteral("dataset")).toObject()))
                sel.classification = sel.classification || *t == Task::Classification;
        // A run that chose the configurations (a tuned comparison's trial) joins its algorithm's
        // candidates instead of a configuration.
        const StoredPlace place = places.value(r.id);
        QList<AlgorithmCurves>& into = place.selection ? res.selection : res.curves;
        // A candidate's own label names its trial: its group is its algorithm's (the place's configuration).
        const QString group = !place.selection || place.configuration.isEmpty() ? label
                              : manyExperiments ? QStringLiteral("%1 (exp. %2)").arg(place.configuration).arg(r.experimentId)
                                                : place.configuration;
        // A suite's set is named by its set's name (Suite.h), the column a comparison across sets shows.
        const QJsonObject suiteSet = exp ? exp->spec.value(QStringLiteral("suite_set")).toObject() : QJsonObject{};
        const QString dataset = suiteSet.contains(QStringLiteral("set")) ? suiteSet.value(QStringLiteral("set")).toString()
                                                                         : r.dataset;
        AlgorithmCurves* c = nullptr;
        for (auto& existing : into)
            if (existing.label == group && existing.algorithmId == r.algorithmId && existing.dataset == dataset)
                c = &existing;
        if (!c) {
            into.append(AlgorithmCurves{});
            c = &into.last();
            c->algorithmId = r.algorithmId;
            c->label = group;
            c->configuration = group;
            c->dataset = dataset;
            if (place.placed && !place.selection) {
                c->setting = place.setting;
                c->configuration = place.configuration.isEmpty() ? label : place.configuration;
                c->datasetIndex = place.datasetIndex;
                for (auto it = c->setting.begin(); it != c->setting.end(); ++it)
                    swept.insert(it.key());
            }
        }
        c->repeats << store.metrics(r.id, &err);
        noteError();
        c->statuses << r.status;
        c->infos << r.info;
        if (r.info.contains(QStringLiteral("time_budget")))
            c->clock = HostBudget::timesClock(r.info);
        c->errors << r.error;
        c->repeatNumbers << r.repeat;
        c->seeds << r.seed;
        c->runIds << r.id;
    }
    res.variedKeys = QStringList(swept.values());
    res.variedKeys.sort();
    // The kind of the experiments the runs come from, when they share one (empty otherwise: the
    // charts choose by what the result holds).
    QSet<QString> kinds;
    for (const auto& exp : std::as_const(experiments))
        if (exp)
            kinds.insert(exp->kind);
    res.kind = kinds.size() == 1 ? *kinds.begin() : QString();
    res.runsPlanned = int(runs.size());
    return sel;
}

std::optional<ExperimentResult> StoredRuns::experiment(const RunStore& store, qint64 experimentId, QString* error)
{
    QString readError;
    auto failed = [&]() -> std::optional<ExperimentResult> {
        if (error)
            *error = readError;
        return std::nullopt;
    };
    const auto exp = store.experiment(experimentId, &readError);
    if (!readError.isEmpty())
        return failed();
    if (!exp) {
        if (error)
            *error = QStringLiteral("no experiment with id %1 in %2").arg(experimentId).arg(store.path());
        return std::nullopt;
    }
    QList<qint64> ids;
    const QList<RunRecord> runs = store.runs(experimentId, &readError);
    if (!readError.isEmpty())
        return failed();
    for (const RunRecord& r : runs)
        ids << r.id;
    Selection sel = group(store, ids);
    if (!sel.readError.isEmpty()) {
        readError = sel.readError;
        return failed();
    }
    ExperimentResult r = std::move(sel.result);
    r.experimentId = experimentId;
    r.kind = exp->kind;
    return r;
}

} // namespace tb
