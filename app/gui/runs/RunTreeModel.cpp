#include "RunTreeModel.h"

#include <engine/ExperimentKind.h>
#include <engine/SettingLabel.h>

#include <engine/CostPrediction.h>

#include <store/RunStore.h>

#include <QFont>
#include <QIcon>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPainter>
#include <QPixmap>

#include <algorithm>
#include <future>
#include <iterator>
#include <array>
#include <cmath>

namespace tb::gui {
namespace {

constexpr quintptr ExperimentTag = 0; ///< internalId of top-level rows; runs carry group row + 1

constexpr std::array<RunStatus, 6> AllStatuses{RunStatus::Finished, RunStatus::Running,   RunStatus::Cancelled,
                                               RunStatus::Failed,   RunStatus::Diverged,  RunStatus::Interrupted};

QString localTime(const QDateTime& t)
{
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd hh:mm:ss")) : QStringLiteral("-");
}

/// The Started column: to the minute (the details pane has the seconds), so the name has the room.
QString localMinute(const QDateTime& t)
{
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd hh:mm")) : QStringLiteral("-");
}

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

QString jsonText(const QJsonObject& o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented)).trimmed();
}

/// One "<tr>" of a details table; empty values are left out so the pane stays short.
QString detailRow(const QString& key, const QString& value, bool escape = true)
{
    if (value.isEmpty())
        return {};
    return QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>")
        .arg(esc(key), escape ? esc(value) : value);
}

QString seedText(const QJsonValue& v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(qulonglong(v.toDouble()));
    return {};
}

QIcon statusIcon(RunStatus s)
{
    // Built on first use (a QPixmap needs the GUI application) and kept for the process.
    static QHash<int, QIcon> icons;
    auto it = icons.find(int(s));
    if (it != icons.end())
        return *it;
    QPixmap pm(12, 12);
    pm.fill(Qt::transparent);
    {
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        p.setBrush(RunTreeModel::statusColor(s));
        p.drawEllipse(QRectF(1.5, 1.5, 9, 9));
    }
    return *icons.insert(int(s), QIcon(pm));
}

// "FILE, which replaced OTHER": the run's plugin replaced another of its id (a copy earlier on
// the search path, the fact "plugin_replaces"); empty in the usual case.
QString replacementOf(const RunRecord& rec)
{
    const QJsonObject replaced = rec.info.value(QLatin1String("plugin_replaces")).toObject();
    if (replaced.isEmpty())
        return {};
    QStringList others;
    for (const QJsonValue& v : replaced.value(QLatin1String("replaces")).toArray())
        others << v.toString();
    return RunTreeModel::tr("%1, which replaced %2")
        .arg(replaced.value(QLatin1String("file")).toString(), others.join(QStringLiteral(", ")));
}

} // namespace

RunTreeModel::RunTreeModel(QObject* parent) : QAbstractItemModel(parent), m_snap(std::make_shared<Snapshot>()) {}

QColor RunTreeModel::statusColor(RunStatus status)
{
    switch (status) {
    case RunStatus::Finished: return QColor(0x2e, 0x7d, 0x32);    // green
    case RunStatus::Running: return QColor(0x15, 0x65, 0xc0);     // blue
    case RunStatus::Cancelled: return QColor(0xa6, 0x6a, 0x00);   // amber, dark enough on white
    case RunStatus::Failed: return QColor(0xc6, 0x28, 0x28);      // red
    case RunStatus::Diverged: return QColor(0x8e, 0x24, 0xaa);    // purple
    case RunStatus::Interrupted: return QColor(0x75, 0x75, 0x75); // grey
    }
    return QColor(Qt::black);
}

QString RunTreeModel::formatAccuracy(double fraction)
{
    return std::isfinite(fraction) ? QString::number(100 * fraction, 'f', 2) + QLatin1Char('%')
                                   : QStringLiteral("-");
}

QString RunTreeModel::formatRmse(double value)
{
    return std::isfinite(value) ? QString::number(value, 'g', 4) : QStringLiteral("-");
}

QString RunTreeModel::formatDuration(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
        return QStringLiteral("-");
    if (seconds < 60)
        return QString::number(seconds, 'f', seconds < 10 ? 2 : 1) + QStringLiteral(" s");
    const qint64 s = qint64(std::llround(seconds));
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString RunTreeModel::searchText(const RunRow& r)
{
    const RunRecord& rec = r.record;
    return QStringList{r.name, rec.algorithmName, rec.algorithmId, rec.pluginId, runStatusName(rec.status), rec.dataset,
                       QString::number(rec.seed), rec.error, QStringLiteral("#%1").arg(rec.id),
                       rec.tags.join(QLatin1Char(' ')), rec.note}
        .join(QLatin1Char('\n'))
        .toLower();
}

QString RunTreeModel::roundedLabel(const QString& label)
{
    return tb::roundedLabel(label);
}

std::shared_ptr<const RunTreeModel::Snapshot> RunTreeModel::read(const RunStore* store)
{
    if (!store)
        return std::make_shared<Snapshot>();
    QString error;
    const QList<ExperimentRecord> experiments = store->experiments(&error);
    QStringList problems;
    if (!error.isEmpty())
        problems << error;
    // Every run without its parameters, the odd ids on a second thread: the conversions of 100,000
    // rows take most of a second on one core.
    QString oddError;
    auto odd = std::async(std::launch::async, [store, &oddError] { return store->runListing(&oddError, 1, 2); });
    QList<RunRecord> even = store->runListing(&error, 0, 2);
    if (!error.isEmpty())
        problems << error;
    QList<RunRecord> odds = odd.get();
    if (!oddError.isEmpty())
        problems << oddError;
    QList<RunRecord> runs;
    runs.reserve(even.size() + odds.size());
    std::merge(std::make_move_iterator(even.begin()), std::make_move_iterator(even.end()),
               std::make_move_iterator(odds.begin()), std::make_move_iterator(odds.end()), std::back_inserter(runs),
               [](const RunRecord& a, const RunRecord& b) { return a.id < b.id; });
    // The runs of a kind that keeps summary points (a noise sweep) show RMSE from their experiment's
    // points (one query per such experiment).
    QHash<qint64, QList<SummaryPoint>> sweeps;
    for (const ExperimentRecord& e : experiments)
        if (const ExperimentKind* kind = ExperimentKinds::find(e.kind); kind && !kind->summaryAxis().isEmpty()) {
            sweeps.insert(e.id, store->summaryPoints(e.id, &error));
            if (!error.isEmpty())
                problems << error;
        }
    auto snap = std::const_pointer_cast<Snapshot>(build(experiments, runs, sweeps, false));
    snap->error = problems.join(QStringLiteral("; "));
    return snap;
}

bool RunTreeModel::reload(const RunStore* store, QString* error)
{
    const std::shared_ptr<const Snapshot> snap = read(store);
    setSnapshot(snap, store);
    if (error)
        *error = snap->error;
    return snap->error.isEmpty();
}

void RunTreeModel::clear()
{
    setSnapshot(nullptr, nullptr);
}

void RunTreeModel::setSnapshot(std::shared_ptr<const Snapshot> snapshot, const RunStore* store)
{
    beginResetModel();
    m_snap = snapshot ? std::move(snapshot) : std::make_shared<Snapshot>();
    m_store = store;
    endResetModel();
}

void RunTreeModel::setRecords(const QList<ExperimentRecord>& experiments, const QList<RunRecord>& runs,
                              const QHash<qint64, QList<SummaryPoint>>& sweeps)
{
    setSnapshot(build(experiments, runs, sweeps, true), nullptr);
}

std::shared_ptr<const RunTreeModel::Snapshot> RunTreeModel::build(const QList<ExperimentRecord>& experiments,
                                                                   const QList<RunRecord>& runs,
                                                                   const QHash<qint64, QList<SummaryPoint>>& sweeps,
                                                                   bool complete)
{
    auto snap = std::make_shared<Snapshot>();
    snap->complete = complete;
    QVector<Group>& groups = snap->groups;
    QHash<qint64, int>& groupPos = snap->groupPos;
    groups.reserve(experiments.size() + 1);
    for (const ExperimentRecord& e : experiments) {
        if (groupPos.contains(e.id))
            continue;
        groupPos.insert(e.id, int(groups.size()));
        Group g;
        g.record = e;
        groups.append(std::move(g));
    }
    int orphans = -1;
    for (const RunRecord& r : runs) {
        auto it = groupPos.constFind(r.experimentId);
        int gi = 0;
        if (it != groupPos.constEnd()) {
            gi = *it;
        } else {
            // Runs logged without an experiment (or whose experiment row is gone) stay visible.
            if (orphans < 0) {
                orphans = int(groups.size());
                Group g;
                g.record.id = -1;
                g.record.name = tr("Runs without an experiment");
                groups.append(std::move(g));
            }
            gi = orphans;
        }
        RunRow row;
        row.record = r;
        const QJsonObject fin = r.info.value(QLatin1String("final")).toObject();
        if (fin.contains(QLatin1String("test_accuracy")) || fin.contains(QLatin1String("train_accuracy"))) {
            row.metric = RunRow::Metric::Accuracy;
            row.train = fin.value(QLatin1String("train_accuracy")).toDouble(NaN);
            row.test = fin.value(QLatin1String("test_accuracy")).toDouble(NaN);
        } else if (fin.contains(QLatin1String("test_rmse")) || fin.contains(QLatin1String("train_rmse"))) {
            row.metric = RunRow::Metric::Rmse;
            row.train = fin.value(QLatin1String("train_rmse")).toDouble(NaN);
            row.test = fin.value(QLatin1String("test_rmse")).toDouble(NaN);
        }
        if (r.info.contains(QLatin1String("cells"))) {
            row.cellsDone = r.info.value(QLatin1String("cells_finished")).toDouble(NaN);
            row.cellsPlanned = r.info.value(QLatin1String("cells")).toDouble(NaN);
        }
        if (row.metric == RunRow::Metric::None && r.info.contains(QLatin1String("cells"))) {
            row.metric = RunRow::Metric::Cells;
            row.train = r.info.value(QLatin1String("cells_finished")).toDouble(NaN);
            row.test = r.info.value(QLatin1String("cells")).toDouble(NaN);
            // With its sweep points: the mean over the σ grid of the mean RMSE, like the chart's lines.
            double tr = 0, te = 0;
            int n = 0;
            for (const SummaryPoint& p : sweeps.value(r.experimentId))
                if (p.algorithmId == r.algorithmId && p.algorithmName == r.algorithmName &&
                    std::isfinite(p.trainRmseMean) && std::isfinite(p.testRmseMean)) {
                    tr += p.trainRmseMean;
                    te += p.testRmseMean;
                    ++n;
                }
            if (n > 0) {
                row.metric = RunRow::Metric::Rmse;
                row.train = tr / n;
                row.test = te / n;
                row.summaryPoints = n;
                if (const ExperimentKind* kind = ExperimentKinds::find(groups[gi].record.kind))
                    row.summaryAxis = kind->summaryAxis();
            }
        }
        if (r.started.isValid() && r.ended.isValid())
            row.duration = r.started.msecsTo(r.ended) / 1000.0;
        row.memory = CostPrediction::measuredMemoryBytes(r.info);
        groups[gi].runs.append(std::move(row));
    }
    for (int gi = 0; gi < groups.size(); ++gi) {
        Group& g = groups[gi];
        summarise(g);
        for (int ri = 0; ri < g.runs.size(); ++ri)
            snap->runPos.insert(g.runs[ri].record.id, {gi, ri});
    }
    return snap;
}

void RunTreeModel::summarise(Group& g)
{
    int maxRepeat = 0;
    QDateTime first, last;
    bool open = g.runs.isEmpty();
    for (const RunRow& r : g.runs) {
        g.counts[int(r.record.status)]++;
        maxRepeat = std::max(maxRepeat, r.record.repeat);
        if (!r.record.ended.isValid())
            open = true;
        if (r.record.started.isValid() && (!first.isValid() || r.record.started < first))
            first = r.record.started;
        if (r.record.ended.isValid() && (!last.isValid() || r.record.ended > last))
            last = r.record.ended;
    }
    if (!open && first.isValid() && last.isValid())
        g.duration = first.msecsTo(last) / 1000.0;
    QHash<QString, QString> rounding;
    for (RunRow& r : g.runs) {
        const QString label = r.record.algorithmName.isEmpty() ? r.record.algorithmId : r.record.algorithmName;
        // Repeats only need telling apart when the experiment has several; they share a label,
        // rounded once.
        auto cached = rounding.constFind(label);
        if (cached == rounding.constEnd())
            cached = rounding.insert(label, roundedLabel(label));
        const QString rounded = *cached;
        r.name = maxRepeat > 0 ? tr("%1 [repeat %2]").arg(rounded, QString::number(r.record.repeat)) : rounded;
    }
    g.search = QStringList{g.record.name, g.record.kind,
                           g.record.id < 0 ? QString() : QStringLiteral("#%1").arg(g.record.id)}
                   .join(QLatin1Char('\n'))
                   .toLower();
    // The summary takes the colour of what most needs attention.
    g.worst = RunStatus::Finished;
    for (RunStatus s : {RunStatus::Cancelled, RunStatus::Interrupted, RunStatus::Diverged, RunStatus::Failed,
                        RunStatus::Running})
        if (g.counts[int(s)] > 0)
            g.worst = s;
    QStringList parts;
    for (RunStatus s : AllStatuses)
        if (g.counts[int(s)] > 0)
            parts << QStringLiteral("%1 %2").arg(g.counts[int(s)]).arg(runStatusName(s));
    g.statusText = parts.isEmpty() ? tr("no runs") : parts.join(QStringLiteral(", "));
    g.shortStatus = g.runs.isEmpty() ? g.statusText
                                     : tr("%1/%2 finished").arg(g.counts[int(RunStatus::Finished)]).arg(g.runs.size());
    // A stopped noise sweep: each algorithm's one run row stands for all its cells, so "0/7
    // finished" said nothing of the σ values done. Cells done of those planned, and partial.
    double done = 0, planned = 0;
    for (const RunRow& r : g.runs)
        if (std::isfinite(r.cellsPlanned)) {
            planned += r.cellsPlanned;
            done += std::isfinite(r.cellsDone) ? r.cellsDone : 0;
        }
    g.partial = planned > 0 && done > 0 && done < planned && g.counts[int(RunStatus::Running)] == 0 &&
                g.counts[int(RunStatus::Cancelled)] + g.counts[int(RunStatus::Interrupted)] > 0;
    if (g.partial) {
        const QLocale loc;
        g.shortStatus = tr("partial: %1/%2 cells").arg(loc.toString(qlonglong(done)), loc.toString(qlonglong(planned)));
        g.statusText = tr("partial: %1 of %2 cells done (%3); Run → Resume stopped experiment continues it")
                           .arg(loc.toString(qlonglong(done)), loc.toString(qlonglong(planned)), g.statusText);
    }
    if (g.counts[int(RunStatus::Running)] > 0)
        g.shortStatus += tr(", %1 running").arg(g.counts[int(RunStatus::Running)]);
}

const RunRecord* RunTreeModel::listedRunAt(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this || index.internalId() == ExperimentTag)
        return nullptr;
    const int gi = int(index.internalId() - 1);
    if (gi >= m_snap->groups.size() || index.row() >= m_snap->groups[gi].runs.size())
        return nullptr;
    return &m_snap->groups[gi].runs[index.row()].record;
}

std::optional<RunRecord> RunTreeModel::runAt(const QModelIndex& index) const
{
    const RunRecord* listed = listedRunAt(index);
    if (!listed)
        return std::nullopt;
    if (m_snap->complete || !m_store)
        return *listed;
    return m_store->run(listed->id);
}

const ExperimentRecord* RunTreeModel::experimentAt(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    const int gi = index.internalId() == ExperimentTag ? index.row() : int(index.internalId() - 1);
    return gi < m_snap->groups.size() ? &m_snap->groups[gi].record : nullptr;
}

QList<qint64> RunTreeModel::runIdsOfExperiment(qint64 experimentId) const
{
    QList<qint64> ids;
    const auto it = m_snap->groupPos.constFind(experimentId);
    int gi = it != m_snap->groupPos.constEnd() ? *it : -1;
    if (gi < 0 && experimentId == -1 && !m_snap->groups.isEmpty() && m_snap->groups.last().record.id == -1)
        gi = int(m_snap->groups.size()) - 1;
    if (gi < 0)
        return ids;
    ids.reserve(m_snap->groups[gi].runs.size());
    for (const RunRow& r : m_snap->groups[gi].runs)
        ids << r.record.id;
    return ids;
}

QModelIndex RunTreeModel::indexOfRun(qint64 runId, int column) const
{
    const auto it = m_snap->runPos.constFind(runId);
    if (it == m_snap->runPos.constEnd() || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(it->second, column, quintptr(it->first + 1));
}

QModelIndex RunTreeModel::indexOfExperiment(qint64 experimentId, int column) const
{
    if (column < 0 || column >= ColumnCount)
        return {};
    const auto it = m_snap->groupPos.constFind(experimentId);
    if (it != m_snap->groupPos.constEnd())
        return createIndex(*it, column, ExperimentTag);
    if (experimentId == -1 && !m_snap->groups.isEmpty() && m_snap->groups.last().record.id == -1)
        return createIndex(int(m_snap->groups.size()) - 1, column, ExperimentTag);
    return {};
}

QModelIndex RunTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < m_snap->groups.size() ? createIndex(row, column, ExperimentTag) : QModelIndex();
    if (parent.internalId() != ExperimentTag || parent.row() >= m_snap->groups.size())
        return {};
    if (row >= m_snap->groups[parent.row()].runs.size())
        return {};
    return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex RunTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == ExperimentTag)
        return {};
    return createIndex(int(child.internalId() - 1), 0, ExperimentTag);
}

int RunTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_snap->groups.size());
    if (parent.column() > 0 || parent.internalId() != ExperimentTag || parent.row() >= m_snap->groups.size())
        return 0;
    return int(m_snap->groups[parent.row()].runs.size());
}

int RunTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

Qt::ItemFlags RunTreeModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

QVariant RunTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn: return tr("Experiment / algorithm");
        case StatusColumn: return tr("Status");
        case TrainColumn: return tr("Train");
        case TestColumn: return tr("Test");
        case DurationColumn: return tr("Duration");
        case SeedColumn: return tr("Seed");
        case ThreadsColumn: return tr("Threads");
        case StartedColumn: return tr("Started");
        case MemoryColumn: return tr("Peak memory");
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case MemoryColumn:
            return tr("How far the process's resident memory grew while the run trained (measured; empty when "
                      "another run trained at the same time — the run's log says why)");
        case TrainColumn: return tr("Final train metric: accuracy (%) for classification, RMSE for regression");
        case TestColumn: return tr("Final test metric: accuracy (%) for classification, RMSE for regression");
        case DurationColumn: return tr("Wall-clock time from start to end (training time is in the details)");
        }
    }
    return {};
}

QVariant RunTreeModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.model() != this)
        return {};
    if (index.internalId() == ExperimentTag) {
        if (index.row() >= m_snap->groups.size())
            return {};
        return experimentData(m_snap->groups[index.row()], index.column(), role);
    }
    const int gi = int(index.internalId() - 1);
    if (gi >= m_snap->groups.size() || index.row() >= m_snap->groups[gi].runs.size())
        return {};
    return runData(m_snap->groups[gi], m_snap->groups[gi].runs[index.row()], index.column(), role);
}

QVariant RunTreeModel::runData(const Group& g, const RunRow& r, int column, int role) const
{
    const RunRecord& rec = r.record;
    auto metricText = [&](double v) -> QString {
        switch (r.metric) {
        case RunRow::Metric::Accuracy: return formatAccuracy(v);
        // A noise sweep's mean over σ, the number alone: "RMSE 0.1234" was cut to "RMSE …" in
        // the narrow Train / Test columns; the tooltip names it.
        case RunRow::Metric::Rmse: return r.summaryPoints > 0 ? formatRmse(v) : tr("RMSE %1").arg(formatRmse(v));
        case RunRow::Metric::Cells: return {};
        case RunRow::Metric::None: break;
        }
        return QStringLiteral("-");
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return rec.tags.isEmpty() ? r.name : QStringLiteral("%1  · %2").arg(r.name, rec.tags.join(QStringLiteral(", ")));
        case StatusColumn: return runStatusName(rec.status);
        case TrainColumn:
            if (r.metric == RunRow::Metric::Cells)
                return tr("%1/%2 cells").arg(r.train).arg(r.test);
            return metricText(r.train);
        case TestColumn: return r.metric == RunRow::Metric::Cells ? QStringLiteral("-") : metricText(r.test);
        case DurationColumn: return formatDuration(r.duration);
        case SeedColumn: return QString::number(rec.seed);
        case ThreadsColumn: return rec.threads;
        case StartedColumn: return localMinute(rec.started);
        case MemoryColumn: return std::isnan(r.memory) ? QString() : CostPrediction::formatBytes(r.memory);
        }
        break;
    case Qt::ForegroundRole:
        if (column == StatusColumn)
            return statusColor(rec.status);
        break;
    case Qt::DecorationRole:
        if (column == StatusColumn)
            return statusIcon(rec.status);
        break;
    case Qt::TextAlignmentRole:
        if ((column >= TrainColumn && column <= ThreadsColumn) || column == MemoryColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("<b>%1</b> (%2) — run %3<br>%4")
                          .arg(esc(r.name), esc(rec.algorithmId), QString::number(rec.id),
                               esc(runStatusName(rec.status)));
        if (!rec.error.isEmpty())
            tip += QStringLiteral("<br><span style='color:%1'>%2</span>")
                       .arg(statusColor(RunStatus::Failed).name(), esc(rec.error));
        if (const QString replaced = replacementOf(rec); !replaced.isEmpty())
            tip += QStringLiteral("<br><span style='color:%1'>%2</span>")
                       .arg(statusColor(RunStatus::Failed).name(), esc(tr("Trained by plugin %1").arg(replaced)));
        if (r.summaryPoints > 0)
            tip += tr("<br>Train / Test: RMSE averaged over the experiment's %1 summary points (%2)")
                       .arg(r.summaryPoints)
                       .arg(r.summaryAxis.isEmpty() ? tr("x") : r.summaryAxis);
        if (!rec.note.isEmpty())
            tip += QStringLiteral("<br><i>%1</i>").arg(esc(rec.note));
        if (!rec.params.isEmpty()) {
            QString params = QString::fromUtf8(QJsonDocument(QJsonObject::fromVariantMap(rec.params))
                                                   .toJson(QJsonDocument::Compact));
            if (params.size() > 300)
                params = params.left(300) + QStringLiteral("…");
            tip += QStringLiteral("<br><tt>%1</tt>").arg(esc(params));
        }
        return tip;
    }
    case RunIdRole: return rec.id;
    case ExperimentIdRole: return g.record.id;
    case IsRunRole: return true;
    case TagsRole: return rec.tags;
    case StatusRole: return int(rec.status);
    case SortRole:
        switch (column) {
        case NameColumn: return r.name;
        case StatusColumn: return runStatusName(rec.status);
        case TrainColumn: return std::isfinite(r.train) ? QVariant(r.train) : QVariant();
        case TestColumn:
            return std::isfinite(r.test) && r.metric != RunRow::Metric::Cells ? QVariant(r.test) : QVariant();
        case DurationColumn: return std::isfinite(r.duration) ? QVariant(r.duration) : QVariant();
        case SeedColumn: return qulonglong(rec.seed);
        case ThreadsColumn: return rec.threads;
        case StartedColumn: return rec.started;
        case MemoryColumn: return std::isnan(r.memory) ? QVariant() : QVariant(r.memory);
        }
        break;
    case SearchTextRole: return searchText(r);
    case DetailsRole: {
        const std::optional<RunRecord> whole = m_snap->complete || !m_store ? std::optional<RunRecord>(rec) : m_store->run(rec.id);
        return runDetails(g, r, whole ? *whole : rec);
    }
    }
    return {};
}

QVariant RunTreeModel::experimentData(const Group& g, int column, int role) const
{
    const ExperimentRecord& e = g.record;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return e.id < 0 ? e.name : QStringLiteral("%1  [%2]").arg(e.name, e.kind);
        case StatusColumn: return g.shortStatus;
        case DurationColumn: return formatDuration(g.duration);
        case SeedColumn: return seedText(e.spec.value(QLatin1String("seed")));
        case ThreadsColumn:
            return e.spec.contains(QLatin1String("threads")) ? QVariant(e.spec.value(QLatin1String("threads")).toInt())
                                                            : QVariant();
        case StartedColumn: return e.id < 0 ? QString() : localMinute(e.created);
        }
        break;
    case Qt::FontRole:
        if (column == NameColumn) {
            QFont f;
            f.setBold(true);
            return f;
        }
        break;
    case Qt::ForegroundRole:
        if (column == StatusColumn && !g.runs.isEmpty())
            return statusColor(g.worst);
        break;
    case Qt::DecorationRole:
        if (column == StatusColumn && !g.runs.isEmpty())
            return statusIcon(g.worst);
        break;
    case Qt::TextAlignmentRole:
        if (column >= TrainColumn && column <= ThreadsColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        return QStringLiteral("<b>%1</b>%2<br>%3 runs: %4")
            .arg(esc(e.name),
                 e.id < 0 ? QString() : QStringLiteral(" — experiment %1, %2").arg(QString::number(e.id), esc(e.kind)),
                 QString::number(g.runs.size()), esc(g.statusText));
    case RunIdRole: return qint64(-1);
    case ExperimentIdRole: return e.id;
    case IsRunRole: return false;
    case SortRole:
        switch (column) {
        case NameColumn: return e.name;
        case StatusColumn: // share of finished runs, so incomplete experiments sort together
            return g.runs.isEmpty() ? QVariant() : QVariant(double(g.counts[int(RunStatus::Finished)]) / g.runs.size());
        case DurationColumn: return std::isfinite(g.duration) ? QVariant(g.duration) : QVariant();
        case SeedColumn: {
            bool ok = false;
            const qulonglong s = seedText(e.spec.value(QLatin1String("seed"))).toULongLong(&ok);
            return ok ? QVariant(s) : QVariant();
        }
        case ThreadsColumn: return experimentData(g, column, Qt::DisplayRole);
        case StartedColumn: return e.created.isValid() ? QVariant(e.created) : QVariant();
        }
        break;
    case SearchTextRole: return g.search;
    case DetailsRole: return experimentDetails(g);
    }
    return {};
}

QString RunTreeModel::runDetails(const Group& g, const RunRow& r, const RunRecord& rec)
{
    // What went wrong and how well it did first; identity and provenance below.
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(esc(r.name));
    html += detailRow(tr("Tags"), rec.tags.join(QStringLiteral(", ")));
    html += detailRow(tr("Note"), rec.note);
    html += detailRow(tr("Status"),
                      QStringLiteral("<span style='color:%1'>%2</span>")
                          .arg(statusColor(rec.status).name(), esc(runStatusName(rec.status))),
                      false);
    if (!rec.error.isEmpty())
        html += detailRow(tr("Error"),
                          QStringLiteral("<span style='color:%1'>%2</span>")
                              .arg(statusColor(RunStatus::Failed).name(), esc(rec.error)),
                          false);
    const QJsonObject fin = rec.info.value(QLatin1String("final")).toObject();
    for (const char* key : {"train_accuracy", "validation_accuracy", "test_accuracy"})
        if (fin.contains(QLatin1String(key)))
            html += detailRow(QString::fromLatin1(key), formatAccuracy(fin.value(QLatin1String(key)).toDouble(NaN)));
    for (const char* key : {"train_rmse", "validation_rmse", "test_rmse", "loss", "epochs"})
        if (fin.contains(QLatin1String(key)))
            html += detailRow(QString::fromLatin1(key), formatRmse(fin.value(QLatin1String(key)).toDouble(NaN)));
    if (fin.contains(QLatin1String("train_seconds")))
        html += detailRow(tr("Training time"),
                          formatDuration(fin.value(QLatin1String("train_seconds")).toDouble(NaN)));
    html += detailRow(tr("Duration"), std::isfinite(r.duration) ? formatDuration(r.duration) : QString());
    html += detailRow(tr("Run"), QString::number(rec.id));
    html += detailRow(tr("Experiment"),
                      g.record.id < 0 ? tr("none")
                                      : QStringLiteral("%1 (%2)").arg(g.record.name, QString::number(g.record.id)));
    html += detailRow(tr("Algorithm"), rec.algorithmId);
    html += detailRow(tr("Plugin"), QStringLiteral("%1 %2").arg(rec.pluginId, rec.pluginVersion).trimmed());
    // A plugin that replaced another of its id: said where the run is looked at, not only in the
    // facts below.
    if (const QString replaced = replacementOf(rec); !replaced.isEmpty())
        html += detailRow(tr("Plugin file"),
                          QStringLiteral("<span style='color:%1'>%2</span>")
                              .arg(statusColor(RunStatus::Failed).name(), esc(replaced)),
                          false);
    if (rec.status == RunStatus::Running)
        html += detailRow(tr("Trained by"), rec.owner.describe());
    html += detailRow(tr("App version"), rec.appVersion);
    html += detailRow(tr("Dataset"), rec.dataset);
    html += detailRow(tr("Seed"), QString::number(rec.seed));
    html += detailRow(tr("Threads"), QString::number(rec.threads));
    html += detailRow(tr("Repeat"), tr("%1 (0-based, as first_repeat; seed = deriveSeed(experiment seed, repeat))").arg(rec.repeat));
    if (std::isfinite(rec.sigma))
        html += detailRow(tr("σ"), QString::number(rec.sigma, 'g', 6));
    html += detailRow(tr("Started"), localTime(rec.started));
    html += detailRow(tr("Ended"), rec.ended.isValid() ? localTime(rec.ended) : QString());
    html += QStringLiteral("</table>");
    html += QStringLiteral("<h4>%1</h4><pre>%2</pre>")
                .arg(tr("Parameters"), esc(jsonText(QJsonObject::fromVariantMap(rec.params))));
    QJsonObject facts = rec.info;
    facts.remove(QLatin1String("final"));
    html += perLayerTables(facts);
    if (!facts.isEmpty())
        html += QStringLiteral("<h4>%1</h4><pre>%2</pre>").arg(tr("Facts recorded"), esc(jsonText(facts)));
    return html;
}

QString RunTreeModel::perLayerTables(const QJsonObject& facts)
{
    // Any fact that is a list of per-layer records (BPLS's "layer_solves", the block-layer
    // methods' "layer_updates", a new plugin's own) reads best as a table: one row per record,
    // one column per key: the layer first, then the keys of every row (each row's sorted, as JSON
    // objects keep them), a key missing from a row an empty cell.
    QString html;
    for (auto it = facts.begin(); it != facts.end(); ++it) {
        const QJsonArray rows = it.value().toArray();
        if (rows.isEmpty() || !std::all_of(rows.begin(), rows.end(), [](const QJsonValue& v) {
                return v.isObject() && v.toObject().contains(QLatin1String("layer"));
            }))
            continue;
        QStringList keys{QStringLiteral("layer")};
        for (const QJsonValue& v : rows)
            for (const QString& k : v.toObject().keys())
                if (!keys.contains(k))
                    keys << k;
        html += QStringLiteral("<h4>%1</h4><table border='1' cellspacing='0' cellpadding='2'><tr>").arg(esc(it.key()));
        for (const QString& k : keys)
            html += QStringLiteral("<th>%1</th>").arg(esc(QString(k).replace(QLatin1Char('_'), QLatin1Char(' '))));
        html += QStringLiteral("</tr>");
        for (const QJsonValue& v : rows) {
            const QJsonObject o = v.toObject();
            html += QStringLiteral("<tr>");
            for (const QString& k : keys) {
                const QJsonValue x = o.value(k);
                const QString text = x.isDouble() ? QString::number(x.toDouble(), 'g', 4)
                                     : x.isBool() ? (x.toBool() ? tr("yes") : tr("no"))
                                                  : x.toVariant().toString();
                html += QStringLiteral("<td align='right'>%1</td>").arg(esc(text));
            }
            html += QStringLiteral("</tr>");
        }
        html += QStringLiteral("</table>");
    }
    return html;
}

QString RunTreeModel::experimentDetails(const Group& g)
{
    const ExperimentRecord& e = g.record;
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(esc(e.name));
    if (e.id >= 0) {
        html += detailRow(tr("Experiment"), QString::number(e.id));
        html += detailRow(tr("Kind"), e.kind);
        html += detailRow(tr("Created"), localTime(e.created));
        html += detailRow(tr("App version"),
                    e.gitHash.isEmpty() ? e.appVersion : QStringLiteral("%1 (%2)").arg(e.appVersion, e.gitHash));
    }
    html += detailRow(tr("Runs"), QStringLiteral("%1 — %2").arg(QString::number(g.runs.size()), g.statusText));
    html += detailRow(tr("Duration"), std::isfinite(g.duration) ? formatDuration(g.duration) : QString());
    html += QStringLiteral("</table>");
    if (!e.spec.isEmpty())
        html += QStringLiteral("<h4>%1</h4><pre>%2</pre>").arg(tr("Experiment file as run"), esc(jsonText(e.spec)));
    return html;
}

} // namespace tb::gui
