#include "ResultCsv.h"

#include "ExperimentKind.h"
#include <store/RunStore.h>

#include <QHash>
#include <QJsonObject>
#include <QSet>
#include <QSaveFile>
#include <QTextStream>

#include <algorithm>
#include <optional>

namespace tb {
namespace {

QString number(double v)
{
    return std::isfinite(v) ? QString::number(v, 'g', QLocale::FloatingPointShortest) : QString();
}

QString field(QString s)
{
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')) ||
        s.contains(QLatin1Char('\r')))
        return QLatin1Char('"') + s.replace(QLatin1String("\""), QLatin1String("\"\"")) + QLatin1Char('"');
    return s;
}

QString id(qint64 v)
{
    return v >= 0 ? QString::number(v) : QString();
}

/// What identifies a run in every one of its rows.
struct RunKey {
    qint64 experimentId = -1;
    qint64 runId = -1;
    QString algorithmId;
    QString label;
    int repeat = 0;
    std::optional<std::uint64_t> seed;
    RunStatus status = RunStatus::Finished;
};

// A swept value as one CSV field: numbers in their shortest exact form, int lists as "50 20".
QString settingText(const QVariant& v)
{
    if (v.typeId() == QMetaType::QVariantList) {
        QStringList parts;
        for (const auto& e : v.toList())
            parts << settingText(e);
        return parts.join(QLatin1Char(' '));
    }
    if (v.typeId() == QMetaType::Double)
        return number(v.toDouble());
    return v.toString();
}

class Writer {
public:
    /// @p variedKeys: the parameters that differ between configurations (a param sweep's), written
    /// after the fixed columns with the data set.
    /// @p phases: the runs have phases (a tuned comparison's trials and final runs): a phase and a
    /// trial column come last.
    /// @p datasets: write the data-set column even when no parameter varies (a suite's sets).
    Writer(const QString& path, const QStringList& variedKeys, bool phases = false, bool datasets = false)
        : m_path(path), m_file(path), m_swept(variedKeys), m_phases(phases), m_datasets(datasets || !variedKeys.isEmpty())
    {
    }

    bool open(QString* error)
    {
        if (!m_file.open(QIODevice::WriteOnly | QIODevice::Text))
            return fail(error);
        m_out.setDevice(&m_file);
        m_out << ResultCsv::columns().join(QLatin1Char(','));
        if (m_datasets)
            m_out << ",dataset";
        for (const QString& k : m_swept)
            m_out << ',' << field(k);
        if (m_phases)
            m_out << ",phase,trial";
        m_out << '\n';
        return true;
    }
    void checkpoints(const RunKey& k, const QVector<MetricPoint>& points, const QString& dataset = {},
                     const QVariantMap& setting = {}, const StoredPlace& place = {})
    {
        QString extra;
        if (m_datasets)
            extra = QLatin1Char(',') + field(dataset);
        for (const QString& key : m_swept)
            extra += QLatin1Char(',') + field(setting.contains(key) ? settingText(setting.value(key)) : QString());
        if (m_phases)
            extra += QLatin1Char(',') + field(place.phase) + QLatin1Char(',') +
                     (place.trial >= 0 ? QString::number(place.trial) : QString());
        if (points.isEmpty()) {
            m_out << prefix(k) << ",,,,,,,,,,,,,," << extra << '\n';
            return;
        }
        for (const MetricPoint& p : points)
            m_out << prefix(k) << ",,," << p.seq << ',' << number(p.epoch) << ',' << number(p.trainTime) << ','
                  << number(p.loss) << ',' << number(p.trainAccuracy) << ',' << number(p.testAccuracy) << ','
                  << number(p.trainRmse) << ",," << number(p.testRmse) << ",," << number(p.validationAccuracy) << ','
                  << number(p.validationRmse) << extra << '\n';
    }
    void sweepPoint(const RunKey& k, const SummaryPoint& p)
    {
        m_out << prefix(k) << ',' << number(p.x) << ',' << p.count << ",,,,,,," << number(p.trainRmseMean)
              << ',' << number(p.trainRmseStd) << ',' << number(p.testRmseMean) << ',' << number(p.testRmseStd) << ",,"
              << QString(int(m_swept.size()) + (m_datasets ? 1 : 0) + (m_phases ? 2 : 0), QLatin1Char(',')) << '\n';
    }
    bool commit(QString* error)
    {
        m_out.flush();
        if (m_out.status() != QTextStream::Ok || !m_file.commit())
            return fail(error);
        return true;
    }
    void cancel() { m_file.cancelWriting(); }

private:
    static QString prefix(const RunKey& k)
    {
        return QStringList{id(k.experimentId), id(k.runId), field(k.algorithmId), field(k.label),
                           QString::number(k.repeat), k.seed ? QString::number(*k.seed) : QString(),
                           runStatusName(k.status)}
            .join(QLatin1Char(','));
    }
    bool fail(QString* error)
    {
        if (error)
            *error = QStringLiteral("%1: cannot write: %2").arg(m_path, m_file.errorString());
        return false;
    }

    QString m_path;
    QSaveFile m_file;
    QTextStream m_out;
    QStringList m_swept;
    bool m_phases = false;
    bool m_datasets = false; ///< the data-set column (a param sweep's options, a suite's sets)
};

// Where a run of @p kind with facts @p info belongs (its phase and trial), as its kind reads it.
StoredPlace placeOfInfo(const ExperimentKind* kind, const QJsonObject& info)
{
    if (!kind)
        return {};
    RunRecord r;
    r.info = info;
    return kind->placeOf(r);
}

} // namespace

const QStringList& ResultCsv::columns()
{
    static const QStringList c{"experiment_id", "run_id",     "algorithm_id",   "label",          "repeat",
                               "seed",          "status",     "sigma",          "monte_carlo",    "seq",
                               "epoch",         "train_time_s", "loss",         "train_accuracy", "test_accuracy",
                               "train_rmse",    "train_rmse_std", "test_rmse",  "test_rmse_std",  "validation_accuracy",
                               "validation_rmse"};
    return c;
}

bool ResultCsv::write(const ExperimentResult& result, const QString& path, QString* error)
{
    // The runs that chose the configurations (a tuned comparison's trials) come first, each with
    // its own drawn values; then the configurations.
    const ExperimentKind* kind = ExperimentKinds::find(result.kind);
    bool phases = false;
    for (const QList<AlgorithmCurves>* list : {&result.selection, &result.curves})
        for (const AlgorithmCurves& c : *list)
            for (const QJsonObject& info : c.infos)
                phases = phases || !placeOfInfo(kind, info).phase.isEmpty();
    // The varied parameters, empty when none vary; a suite's rows say their set.
    Writer w(path, result.variedKeys, phases, !result.suiteSets.isEmpty());
    if (!w.open(error))
        return false;
    for (const QList<AlgorithmCurves>* list : {&result.selection, &result.curves})
        for (const AlgorithmCurves& c : *list)
            for (int r = 0; r < c.repeats.size(); ++r) {
                RunKey k{c.experimentId >= 0 ? c.experimentId : result.experimentId, c.runIds.value(r, -1), c.algorithmId,
                         c.label, c.repeatNumbers.value(r, r),
                         std::nullopt, c.statuses.value(r, RunStatus::Finished)};
                if (r < c.seeds.size())
                    k.seed = c.seeds[r];
                const StoredPlace place = placeOfInfo(kind, c.infos.value(r));
                w.checkpoints(k, c.repeats[r], c.dataset, place.selection ? place.setting : c.setting, place);
            }
    for (const SummaryRun& s : result.summaryRuns) {
        const RunKey k{result.experimentId, s.runId, s.algorithmId, s.label, 0, s.seed, s.status};
        for (const SummaryPoint& p : result.summary)
            if (p.algorithmName == s.label && (p.algorithmId == s.algorithmId || p.algorithmId == s.label))
                w.sweepPoint(k, p);
    }
    return w.commit(error);
}

bool ResultCsv::writeRuns(const RunStore& store, const QList<qint64>& runIds, const QString& path, QString* error)
{
    // Read every run first: runs placed among varied configurations (a param sweep's) add the data
    // set and their varied parameters.
    QList<RunRecord> runs;
    QSet<QString> swept;
    QHash<qint64, std::optional<ExperimentRecord>> experiments;
    auto kindOf = [&](const RunRecord& r) -> const ExperimentKind* {
        if (!experiments.contains(r.experimentId))
            experiments.insert(r.experimentId, store.experiment(r.experimentId));
        const std::optional<ExperimentRecord>& exp = experiments[r.experimentId];
        return exp ? ExperimentKinds::find(exp->kind) : nullptr;
    };
    QHash<qint64, StoredPlace> places;
    for (qint64 runId : runIds) {
        QString readError;
        auto r = store.run(runId, &readError);
        if (!readError.isEmpty()) {
            if (error)
                *error = QStringLiteral("%1: cannot read run %2: %3").arg(path).arg(runId).arg(readError);
            return false;
        }
        if (!r)
            continue; // deleted meanwhile
        if (const ExperimentKind* kind = kindOf(*r)) {
            const StoredPlace place = kind->placeOf(*r);
            for (auto it = place.setting.begin(); it != place.setting.end(); ++it)
                swept.insert(it.key());
            places.insert(r->id, place);
        }
        runs << *r;
    }
    QStringList variedKeys(swept.values());
    variedKeys.sort();
    const bool phases = std::any_of(places.begin(), places.end(), [](const StoredPlace& p) { return !p.phase.isEmpty(); });
    Writer w(path, variedKeys, phases);
    if (!w.open(error))
        return false;
    QHash<qint64, QList<SummaryPoint>> summaries;
    for (const RunRecord& run : runs) {
        const RunRecord* r = &run;
        const qint64 runId = r->id;
        const RunKey k{r->experimentId, r->id, r->algorithmId,
                       r->algorithmName.isEmpty() ? r->algorithmId : r->algorithmName,
                       r->repeat, r->seed, r->status};
        // A kind that keeps summary points (a noise sweep): the run stands for them.
        const ExperimentKind* kind = kindOf(*r);
        if (kind && !kind->summaryAxis().isEmpty()) {
            if (!summaries.contains(r->experimentId))
                summaries.insert(r->experimentId, store.summaryPoints(r->experimentId));
            for (const SummaryPoint& p : summaries.value(r->experimentId))
                if (p.algorithmId == r->algorithmId && p.algorithmName == r->algorithmName)
                    w.sweepPoint(k, p);
            continue;
        }
        QString readError;
        const QVector<MetricPoint> points = store.metrics(runId, &readError);
        if (!readError.isEmpty()) {
            w.cancel();
            if (error)
                *error = QStringLiteral("%1: cannot read the checkpoints of run %2: %3").arg(path).arg(runId).arg(readError);
            return false;
        }
        w.checkpoints(k, points, r->dataset, places.value(r->id).setting, places.value(r->id));
    }
    return w.commit(error);
}

} // namespace tb
