#include "RunBrowser.h"

#include "RunFilterModel.h"
#include "RunTreeModel.h"

#include <widgets/LatestJob.h>

#include <engine/ResultCsv.h>
#include <store/RunStore.h>

#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QPlainTextEdit>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSet>
#include <QResizeEvent>
#include <QSplitter>
#include <QTextBrowser>
#include <QTextStream>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tb::gui {
namespace {

/// "a, b, c and 4 more" — keeps dialogs short for large selections.
QString nameList(const QStringList& names, int shown = 8)
{
    if (names.size() <= shown)
        return names.join(QStringLiteral(", "));
    return RunBrowser::tr("%1 and %2 more").arg(names.mid(0, shown).join(QStringLiteral(", ")), QString::number(names.size() - shown));
}

QList<qint64> sortedUnique(QList<qint64> ids)
{
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

} // namespace

RunBrowser::RunBrowser(QWidget* parent) : QWidget(parent)
{
    m_model = new RunTreeModel(this);
    m_proxy = new RunFilterModel(this);
    m_proxy->setSourceModel(m_model);
    m_loads = std::make_unique<LatestJob<Loaded>>(this, [this](Loaded l) { showLoaded(std::move(l)); });
    m_matching = std::make_unique<LatestJob<RunFilterModel::Matches>>(
        this, [this](RunFilterModel::Matches m) { showMatches(std::move(m)); });
    buildUi();
    m_follow = new QTimer(this);
    m_follow->setInterval(2000);
    connect(m_follow, &QTimer::timeout, this, &RunBrowser::followChanges);
    m_follow->start();
    updateActions();
    updateSummary();
    updateDetails();
}

RunBrowser::~RunBrowser()
{
    // The jobs read the store: none may outlive the pointer they were given.
    m_loads->supersede();
    m_matching->supersede();
    m_loads->wait();
    m_matching->wait();
}

bool RunBrowser::isBusy() const
{
    return m_loads->isBusy() || m_matching->isBusy();
}

bool RunBrowser::waitUntilIdle(int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (isBusy()) {
        if (clock.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        if (isBusy())
            QThread::msleep(1);
    }
    return true;
}

void RunBrowser::noteBusy()
{
    if (isBusy() == m_busy)
        return;
    m_busy = isBusy();
    Q_EMIT busyChanged(m_busy);
}

void RunBrowser::buildUi()
{
    m_filterEdit = new QLineEdit(this);
    m_filterEdit->setObjectName(QStringLiteral("runFilterEdit"));
    m_filterEdit->setPlaceholderText(tr("Filter: words, or parameters like lr<0.01 hidden=16,16 tag=baseline"));
    m_filterEdit->setToolTip(tr("Words match names, algorithms, data sets, seeds, errors, tags and notes. "
                                "key=value, key!=value, key<value, key<=value, key>value, key>=value match "
                                "run parameters (numbers as numbers); tag=x matches tagged runs. All must hold."));
    m_filterEdit->setClearButtonEnabled(true);
    m_statusBox = new QComboBox(this);
    m_statusBox->setObjectName(QStringLiteral("runStatusFilter"));
    m_statusBox->addItem(tr("All statuses"), -1);
    for (RunStatus s : {RunStatus::Finished, RunStatus::Running, RunStatus::Cancelled, RunStatus::Failed,
                        RunStatus::Diverged, RunStatus::Interrupted}) {
        QPixmap dot(10, 10);
        dot.fill(RunTreeModel::statusColor(s));
        m_statusBox->addItem(QIcon(dot), runStatusName(s), int(s));
    }
    connect(m_filterEdit, &QLineEdit::textChanged, this, &RunBrowser::applyFilter);
    connect(m_statusBox, &QComboBox::currentIndexChanged, this, &RunBrowser::applyFilter);

    m_view = new QTreeView(this);
    m_view->setObjectName(QStringLiteral("runTree"));
    m_view->setModel(m_proxy);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setTextElideMode(Qt::ElideMiddle); // "Adam lr=…[repeat 3]": the repeat stays in sight
    m_view->setUniformRowHeights(true); // lets the view lay out thousands of rows without measuring each
    m_view->setAlternatingRowColors(true);
    m_view->setAllColumnsShowFocus(true);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RunTreeModel::StartedColumn, Qt::DescendingOrder); // newest experiments first
    m_view->setExpandsOnDoubleClick(false); // double-click overlays; the arrow expands
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->setSectionResizeMode(RunTreeModel::NameColumn, QHeaderView::Stretch);
    m_view->header()->setMinimumSectionSize(40);
    // The name needs the room: seed, threads and peak memory start hidden (they are in the details
    // pane); the header's context menu shows any column.
    for (int c : {int(RunTreeModel::SeedColumn), int(RunTreeModel::ThreadsColumn), int(RunTreeModel::MemoryColumn)})
        m_view->header()->setSectionHidden(c, true);
    m_view->header()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view->header(), &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        for (int c = RunTreeModel::StatusColumn; c < RunTreeModel::ColumnCount; ++c) {
            QAction* a = menu.addAction(m_model->headerData(c, Qt::Horizontal).toString());
            a->setCheckable(true);
            a->setChecked(!m_view->header()->isSectionHidden(c));
            connect(a, &QAction::toggled, this, [this, c](bool on) { m_view->header()->setSectionHidden(c, !on); });
        }
        menu.exec(m_view->header()->mapToGlobal(pos));
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunBrowser::onSelectionChanged);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &RunBrowser::updateDetails);
    connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex&) { requestOverlay(); });
    connect(m_view, &QWidget::customContextMenuRequested, this, &RunBrowser::showContextMenu);

    m_details = new QTextBrowser(this);
    m_details->setObjectName(QStringLiteral("runDetails"));
    m_details->setOpenLinks(false);
    m_details->setMinimumHeight(60);

    auto makeAction = [this](const QString& text, const QString& name, const QString& tip) {
        auto* a = new QAction(text, this);
        a->setObjectName(name);
        a->setToolTip(tip);
        return a;
    };
    m_showAction = makeAction(tr("Show on charts"), QStringLiteral("showOnChartsAction"),
                              tr("Overlay the selected runs' curves on the charts (or double-click a row)"));
    // Fixed texts and places: a button never changes meaning or moves with the selection (a
    // click where Delete had been once started a whole experiment).
    m_rerunAction = makeAction(tr("Re-run run"), QStringLiteral("rerunAction"),
                               tr("Train the selected run again with identical settings (one run selected)"));
    m_rerunExperimentAction = makeAction(tr("Re-run experiment…"), QStringLiteral("rerunExperimentAction"),
                                         tr("Run the selected experiment (or the selected run's experiment) again with "
                                            "identical settings; asks first"));
    m_deleteAction = makeAction(tr("Delete…"), QStringLiteral("deleteAction"),
                                tr("Delete the selected experiments and runs from the database (Del)"));
    m_deleteAction->setShortcut(QKeySequence::Delete);
    m_deleteAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_compareAction = makeAction(tr("Compare"), QStringLiteral("compareAction"),
                                 tr("Compare the selected runs over seeds: result matrix with significance markers, "
                                    "paired tests, time to target (Comparison tab)"));
    m_exportAction = makeAction(tr("Export CSV…"), QStringLiteral("exportCsvAction"),
                                tr("Write every checkpoint of the selected runs to a CSV file"));
    m_notesAction = makeAction(tr("Tags && note…"), QStringLiteral("notesAction"),
                               tr("Tag the selected run and write a note about it, kept in the database"));
    m_refreshAction = makeAction(tr("Refresh"), QStringLiteral("refreshAction"), tr("Re-read the database (F5)"));
    m_refreshAction->setShortcut(QKeySequence::Refresh);
    m_refreshAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    // Shortcuts act while the focus is anywhere in the browser.
    addAction(m_deleteAction);
    addAction(m_refreshAction);

    connect(m_showAction, &QAction::triggered, this, &RunBrowser::requestOverlay);
    connect(m_rerunAction, &QAction::triggered, this, &RunBrowser::requestRerun);
    connect(m_rerunExperimentAction, &QAction::triggered, this, &RunBrowser::requestRerunExperiment);
    connect(m_deleteAction, &QAction::triggered, this, [this] { deleteSelected(); });
    connect(m_exportAction, &QAction::triggered, this, &RunBrowser::exportWithDialog);
    connect(m_notesAction, &QAction::triggered, this, &RunBrowser::editNotesWithDialog);
    connect(m_compareAction, &QAction::triggered, this, [this] {
        if (const QList<qint64> ids = selectedRunIds(); !ids.isEmpty())
            Q_EMIT compareRequested(ids);
    });
    connect(m_refreshAction, &QAction::triggered, this, &RunBrowser::refresh);

    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(m_filterEdit, 1);
    filterRow->addWidget(m_statusBox);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("runSummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);

    // A tool bar: in a narrow window the buttons that do not fit go under its » button, in the
    // same order (a row of buttons made the Runs dock at least 768 px wide, and with it the
    // charts, so the docks beside them were squeezed on a 1024×768 screen).
    auto* buttons = new QToolBar(this);
    buttons->setObjectName(QStringLiteral("runActions"));
    buttons->setToolButtonStyle(Qt::ToolButtonTextOnly);
    buttons->setIconSize(QSize(1, 1));
    for (QAction* a : {m_showAction, m_compareAction, m_rerunAction, m_rerunExperimentAction, m_notesAction, m_exportAction,
                       m_refreshAction, m_deleteAction})
        buttons->addAction(a);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    m_splitter = splitter;

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(filterRow);
    layout->addWidget(m_splitter, 1);
    layout->addWidget(buttons);
    layout->addWidget(m_summary);
}

void RunBrowser::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // In a wide, low bottom dock the details sit beside the runs; in a tall one, below them.
    const Qt::Orientation o = width() > 3 * height() ? Qt::Horizontal : Qt::Vertical;
    if (m_splitter->orientation() != o) {
        m_splitter->setOrientation(o);
        // The runs get most of the room: their names must not be elided to "Fashion-…".
        const int total = o == Qt::Horizontal ? width() : height();
        m_splitter->setSizes({total * 3 / 4, total / 4});
    }
}

QString RunBrowser::detailsHtml() const
{
    return m_details->toHtml();
}

QAbstractItemModel* RunBrowser::model() const
{
    return m_model;
}

void RunBrowser::setStore(RunStore* store)
{
    // A job still reading the old store must be done before its pointer may go.
    m_loads->supersede();
    m_matching->supersede();
    m_loads->wait();
    m_matching->wait();
    m_store = store;
    m_proxy->setStore(store);
    m_message.clear();
    m_columnsSized = false;
    // Ids of another database name other runs: forget the selection and expansion first.
    m_restoring = true;
    m_view->selectionModel()->clear();
    m_model->clear();
    m_restoring = false;
    refresh();
}

void RunBrowser::setConfirmDeletes(bool on)
{
    m_confirmDeletes = on;
}

QModelIndex RunBrowser::toSource(const QModelIndex& proxyIndex) const
{
    return proxyIndex.isValid() ? m_proxy->mapToSource(proxyIndex) : QModelIndex();
}

QModelIndex RunBrowser::toProxy(const QModelIndex& sourceIndex) const
{
    return sourceIndex.isValid() ? m_proxy->mapFromSource(sourceIndex) : QModelIndex();
}

void RunBrowser::setFollowIntervalMs(int ms)
{
    if (ms <= 0) {
        m_follow->stop();
        return;
    }
    m_follow->start(ms);
}

int RunBrowser::followIntervalMs() const
{
    return m_follow->isActive() ? m_follow->interval() : 0;
}

QString RunBrowser::fileSignature() const
{
    if (!m_store)
        return {};
    QStringList parts;
    for (const QString& file : {m_store->path(), m_store->path() + QStringLiteral("-wal")}) {
        const QFileInfo info(file);
        parts << QStringLiteral("%1:%2").arg(info.size()).arg(info.exists() ? info.lastModified().toMSecsSinceEpoch() : -1);
    }
    return parts.join(QLatin1Char(' '));
}

void RunBrowser::followChanges()
{
    if (!m_store || !isVisible() || fileSignature() == m_signature)
        return;
    // Committed writes only: waiting for this process's own queue would stall the UI while it trains.
    reload(false);
}

void RunBrowser::refresh()
{
    reload(true);
}

void RunBrowser::reload(bool flushFirst)
{
    m_signature = fileSignature();
    RunStore* store = m_store;
    const RunFilterModel::Criteria criteria = m_wanted;
    m_loads->start([store, flushFirst, criteria] {
        Loaded l;
        try {
            if (store && flushFirst)
                store->flush(1000); // include this process's queued writes; never wait long
            l.snapshot = RunTreeModel::read(store);
            if (!criteria.isEmpty())
                l.matches = RunFilterModel::match(l.snapshot, criteria, store);
        } catch (const std::exception& e) { // out of memory: said, and the tree stays empty
            auto empty = std::make_shared<RunTreeModel::Snapshot>();
            empty->error = tr("the runs could not be listed: %1").arg(QString::fromLocal8Bit(e.what()));
            l.snapshot = empty;
            l.matches.reset();
        }
        return l;
    });
    noteBusy();
    updateSummary();
}

void RunBrowser::showLoaded(Loaded loaded)
{
    // What to restore, by id: row positions change when runs come and go.
    QList<qint64> expIds, runIds, expanded;
    for (const QModelIndex& i : m_view->selectionModel()->selectedRows()) {
        const QModelIndex s = toSource(i);
        if (s.data(RunTreeModel::IsRunRole).toBool())
            runIds << s.data(RunTreeModel::RunIdRole).toLongLong();
        else
            expIds << s.data(RunTreeModel::ExperimentIdRole).toLongLong();
    }
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const QModelIndex s = m_model->index(r, 0);
        const QModelIndex p = toProxy(s);
        if (p.isValid() && m_view->isExpanded(p))
            expanded << s.data(RunTreeModel::ExperimentIdRole).toLongLong();
    }
    const QModelIndex current = toSource(m_view->currentIndex());
    const bool currentIsRun = current.data(RunTreeModel::IsRunRole).toBool();
    const qint64 currentId = currentIsRun ? current.data(RunTreeModel::RunIdRole).toLongLong()
                                          : current.data(RunTreeModel::ExperimentIdRole).toLongLong();
    const int scroll = m_view->verticalScrollBar()->value();

    m_restoring = true;
    m_readError = loaded.snapshot->error.isEmpty() || !m_store
                      ? QString()
                      : tr("Could not read everything from %1: %2").arg(m_store->path(), loaded.snapshot->error);
    // The matches first, so that the model's reset filters once, with them.
    const bool matched = loaded.matches && loaded.matches->criteria == m_wanted;
    if (matched)
        m_proxy->setMatches(*loaded.matches);
    else if (m_wanted.isEmpty())
        m_proxy->setMatches(RunFilterModel::match(nullptr, m_wanted, nullptr));
    m_model->setSnapshot(loaded.snapshot, m_store);
    if (!matched && !m_wanted.isEmpty())
        startMatching(); // the filter changed while the store was read

    for (qint64 id : expanded) {
        const QModelIndex p = toProxy(m_model->indexOfExperiment(id));
        if (p.isValid())
            m_view->setExpanded(p, true);
    }
    QItemSelection sel;
    auto add = [&](const QModelIndex& source) {
        const QModelIndex p = toProxy(source);
        if (p.isValid())
            sel.select(p, p);
    };
    for (qint64 id : expIds)
        add(m_model->indexOfExperiment(id));
    for (qint64 id : runIds)
        add(m_model->indexOfRun(id));
    m_view->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    const bool pending = !m_pendingExperiments.isEmpty() || !m_pendingRuns.isEmpty();
    if (pending) { // what setSelection() asked for before this read listed it
        QList<qint64> exps = expIds + m_pendingExperiments, runs = runIds + m_pendingRuns;
        m_pendingExperiments.clear();
        m_pendingRuns.clear();
        selectNow(exps, runs);
    } else if (current.isValid()) {
        const QModelIndex c = toProxy(currentIsRun ? m_model->indexOfRun(currentId, current.column())
                                                   : m_model->indexOfExperiment(currentId, current.column()));
        if (c.isValid())
            m_view->selectionModel()->setCurrentIndex(c, QItemSelectionModel::NoUpdate);
    }
    m_view->verticalScrollBar()->setValue(scroll);
    if (!m_columnsSized && m_model->rowCount() > 0) {
        sizeColumns();
        m_columnsSized = true;
    }
    noteBusy();
    m_restoring = false;
    onSelectionChanged();
    updateDetails();
    updateSummary();
}

QList<qint64> RunBrowser::selectedRunIds() const
{
    QList<qint64> ids;
    for (const QModelIndex& i : m_view->selectionModel()->selectedRows()) {
        const QModelIndex s = toSource(i);
        if (s.data(RunTreeModel::IsRunRole).toBool())
            ids << s.data(RunTreeModel::RunIdRole).toLongLong();
        else if (s.isValid())
            ids << m_model->runIdsOfExperiment(s.data(RunTreeModel::ExperimentIdRole).toLongLong());
    }
    return sortedUnique(ids);
}

QList<qint64> RunBrowser::selectedExperimentIds() const
{
    QList<qint64> ids;
    for (const QModelIndex& i : m_view->selectionModel()->selectedRows()) {
        const QModelIndex s = toSource(i);
        if (s.isValid() && !s.data(RunTreeModel::IsRunRole).toBool()) {
            const qint64 id = s.data(RunTreeModel::ExperimentIdRole).toLongLong();
            if (id >= 0)
                ids << id;
        }
    }
    return sortedUnique(ids);
}

void RunBrowser::setSelection(const QList<qint64>& experimentIds, const QList<qint64>& runIds)
{
    // An id not listed yet waits for the reload that lists it (RunControl selects a finished
    // experiment while the browser's re-read of the store is still on its way).
    m_pendingExperiments.clear();
    m_pendingRuns.clear();
    for (qint64 id : experimentIds)
        if (!m_model->indexOfExperiment(id).isValid())
            m_pendingExperiments << id;
    for (qint64 id : runIds)
        if (!m_model->indexOfRun(id).isValid())
            m_pendingRuns << id;
    m_selecting = true; // not the user's choice: what is pending stays pending
    selectNow(experimentIds, runIds);
    m_selecting = false;
}

void RunBrowser::selectNow(const QList<qint64>& experimentIds, const QList<qint64>& runIds)
{
    QItemSelection sel;
    QModelIndex first;
    auto add = [&](const QModelIndex& source) {
        const QModelIndex p = toProxy(source);
        if (!p.isValid())
            return;
        sel.select(p, p);
        if (!first.isValid())
            first = p;
        if (p.parent().isValid())
            m_view->setExpanded(p.parent(), true);
    };
    for (qint64 id : experimentIds)
        add(m_model->indexOfExperiment(id));
    for (qint64 id : runIds)
        add(m_model->indexOfRun(id));
    m_view->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (first.isValid()) {
        m_view->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
        m_view->scrollTo(first);
    }
}

QModelIndex RunBrowser::singleSelectedSource() const
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    return rows.size() == 1 ? toSource(rows.first()) : QModelIndex();
}

void RunBrowser::onSelectionChanged()
{
    updateActions();
    updateSummary();
    updateDetails();
    if (m_restoring)
        return;
    if (!m_selecting) { // the user chose: nothing waits any more
        m_pendingExperiments.clear();
        m_pendingRuns.clear();
    }
    const QList<qint64> runs = selectedRunIds();
    const QList<qint64> exps = selectedExperimentIds();
    if (runs == m_lastRunIds && exps == m_lastExperimentIds)
        return;
    m_lastRunIds = runs;
    m_lastExperimentIds = exps;
    Q_EMIT selectionChanged();
}

void RunBrowser::updateActions()
{
    const bool anyRows = m_view->selectionModel()->hasSelection();
    const bool anyRuns = !selectedRunIds().isEmpty();
    const QModelIndex one = singleSelectedSource();
    const bool oneRun = one.isValid() && one.data(RunTreeModel::IsRunRole).toBool();
    const qint64 oneExperiment = one.isValid() ? one.data(RunTreeModel::ExperimentIdRole).toLongLong() : -1;
    m_showAction->setEnabled(anyRuns);
    m_compareAction->setEnabled(anyRuns && m_store);
    m_exportAction->setEnabled(anyRuns && m_store);
    m_deleteAction->setEnabled(anyRows && m_store);
    m_rerunAction->setEnabled(oneRun);
    m_notesAction->setEnabled(oneRun && m_store);
    m_rerunExperimentAction->setEnabled(oneExperiment >= 0);
    m_refreshAction->setEnabled(m_store != nullptr);
}

void RunBrowser::updateSummary()
{
    QString text;
    if (!m_store) {
        text = tr("No database open.");
    } else {
        const QLocale loc;
        if (m_loads->isBusy() && m_model->runCount() == 0)
            text = tr("%1: reading the runs…").arg(QDir::toNativeSeparators(m_store->path()));
        else if (!m_proxy->criteria().isEmpty())
            text = tr("%1: %2 of %3 runs match")
                       .arg(QDir::toNativeSeparators(m_store->path()), loc.toString(m_proxy->matchingRunCount()),
                            loc.toString(m_model->runCount()));
        else
            text = tr("%1: %2 experiments, %3 runs")
                       .arg(QDir::toNativeSeparators(m_store->path()), loc.toString(m_model->experimentCount()),
                            loc.toString(m_model->runCount()));
        if (m_matching->isBusy())
            text += tr(" — filtering…");
        else if (m_loads->isBusy() && m_model->runCount() > 0)
            text += tr(" — reading…");
        const int selected = int(selectedRunIds().size());
        if (selected > 0)
            text += tr(" — %1 selected").arg(selected);
    }
    text = text.toHtmlEscaped();
    for (const QString& problem : {m_readError, m_message})
        if (!problem.isEmpty())
            text += QStringLiteral("<br><span style='color:%1'>%2</span>")
                        .arg(RunTreeModel::statusColor(RunStatus::Failed).name(), problem.toHtmlEscaped());
    m_summary->setText(text);
}

QString RunBrowser::diffHtml(const RunRecord& a, const RunRecord& b)
{
    auto text = [](const QVariant& v) {
        if (v.typeId() == QMetaType::QVariantList) {
            QStringList parts;
            for (const QVariant& x : v.toList())
                parts << x.toString();
            return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
        }
        return v.toString();
    };
    QList<std::tuple<QString, QString, QString>> rows;
    auto add = [&](const QString& key, const QString& x, const QString& y) {
        if (x != y)
            rows.append({key, x, y});
    };
    add(tr("algorithm"), a.algorithmId, b.algorithmId);
    add(tr("label"), a.algorithmName, b.algorithmName);
    add(tr("experiment"), QString::number(a.experimentId), QString::number(b.experimentId));
    add(tr("data set"), a.dataset, b.dataset);
    add(tr("seed"), QString::number(a.seed), QString::number(b.seed));
    add(tr("repeat"), QString::number(a.repeat), QString::number(b.repeat));
    add(tr("threads"), QString::number(a.threads), QString::number(b.threads));
    add(tr("plugin version"), a.pluginVersion, b.pluginVersion);
    QStringList keys = a.params.keys();
    for (const QString& k : b.params.keys())
        if (!keys.contains(k))
            keys << k;
    std::sort(keys.begin(), keys.end());
    int same = 0;
    for (const QString& k : keys) {
        const QString x = a.params.contains(k) ? text(a.params.value(k)) : tr("(none)");
        const QString y = b.params.contains(k) ? text(b.params.value(k)) : tr("(none)");
        if (x == y)
            ++same;
        add(k, x, y);
    }
    QString html = tr("<h3>Run %1 against run %2</h3>").arg(a.id).arg(b.id);
    if (rows.isEmpty())
        return html + tr("<p>Same settings: algorithm, data set, seed, repeat, threads and all %1 parameters.</p>").arg(keys.size());
    html += QStringLiteral("<table><tr><th align=left>%1</th><th align=left>%2</th><th align=left>%3</th></tr>")
                .arg(tr("differs"), tr("run %1").arg(a.id), tr("run %1").arg(b.id));
    for (const auto& [k, x, y] : rows)
        html += QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td style='padding-right:12px'>%2</td>"
                               "<td>%3</td></tr>")
                    .arg(k.toHtmlEscaped(), x.toHtmlEscaped(), y.toHtmlEscaped());
    html += QStringLiteral("</table>");
    html += tr("<p>%1 other parameters are the same.</p>").arg(same);
    return html;
}

bool RunBrowser::setNotes(qint64 runId, const QStringList& tags, const QString& note, QString* error)
{
    if (!m_store || !m_store->setRunNotes(runId, tags, note)) {
        if (error)
            *error = m_store ? tr("run %1: %2").arg(runId).arg(m_store->lastError()) : tr("no database is open");
        return false;
    }
    refresh();
    return true;
}

void RunBrowser::editNotesWithDialog()
{
    const QModelIndex one = singleSelectedSource();
    const RunRecord* r = one.isValid() ? m_model->listedRunAt(one) : nullptr;
    if (!r)
        return;
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Tags and note of run %1").arg(r->id));
    auto* form = new QFormLayout(&dialog);
    auto* tags = new QLineEdit(r->tags.join(QStringLiteral(", ")));
    tags->setPlaceholderText(tr("comma-separated, e.g. baseline, paper"));
    auto* note = new QPlainTextEdit(r->note);
    form->addRow(tr("Tags"), tags);
    form->addRow(tr("Note"), note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString error;
    if (!setNotes(r->id, RunRecord::splitTags(tags->text()), note->toPlainText(), &error))
        QMessageBox::warning(this, tr("Tags and note"), error);
}

void RunBrowser::updateDetails()
{
    // Two runs selected: what differs between them (the lab's first question).
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.size() == 2) {
        const std::optional<RunRecord> a = m_model->runAt(toSource(rows[0]));
        const std::optional<RunRecord> b = m_model->runAt(toSource(rows[1]));
        if (a && b) {
            m_details->setHtml(a->id < b->id ? diffHtml(*a, *b) : diffHtml(*b, *a));
            return;
        }
    }
    // Nothing selected (deselected with Ctrl+click, or filtered away): no run's details stay.
    const QModelIndex current = rows.isEmpty() ? QModelIndex() : toSource(m_view->currentIndex());
    if (!current.isValid()) {
        m_details->setHtml(tr("<i>Select an experiment or a run to see its parameters and facts.</i>"));
        return;
    }
    m_details->setHtml(current.data(RunTreeModel::DetailsRole).toString());
}

namespace {
/// More matching runs than this and the filter does not open every experiment: a list that long
/// is read through its experiments, and laying it all out would hold up the window.
constexpr int kExpandAllLimit = 2000;
} // namespace

void RunBrowser::applyFilter()
{
    const int status = m_statusBox->currentData().toInt();
    const RunFilterModel::Criteria wanted = RunFilterModel::Criteria::parse(
        m_filterEdit->text(), status < 0 ? std::nullopt : std::optional<RunStatus>(RunStatus(status)));
    if (wanted == m_wanted)
        return;
    m_wanted = wanted;
    if (m_wanted.isEmpty()) {
        // Everything: nothing to match.
        m_matching->supersede();
        RunFilterModel::Matches all;
        all.snapshot = m_model->snapshot();
        all.criteria = m_wanted;
        showMatches(std::move(all));
        return;
    }
    startMatching();
}

void RunBrowser::startMatching()
{
    const std::shared_ptr<const RunTreeModel::Snapshot> snapshot = m_model->snapshot();
    const RunStore* store = m_store;
    const RunFilterModel::Criteria criteria = m_wanted;
    m_matching->start([snapshot, criteria, store] {
        try {
            return RunFilterModel::match(snapshot, criteria, store);
        } catch (const std::exception& e) { // out of memory
            RunFilterModel::Matches none; // nothing shown, and the reason said
            none.snapshot = snapshot;
            none.criteria = criteria;
            none.error = tr("the filter could not be matched: %1").arg(QString::fromLocal8Bit(e.what()));
            return none;
        }
    });
    noteBusy();
    updateSummary();
}

void RunBrowser::showMatches(RunFilterModel::Matches matches)
{
    if (!(matches.criteria == m_wanted))
        return; // a later filter is being matched
    if (matches.snapshot && matches.snapshot != m_model->snapshot()) {
        startMatching(); // the tree was re-read meanwhile: match what it shows now
        return;
    }
    if (!matches.error.isEmpty())
        m_message = matches.error; // parameters that could not be read: said under the tree
    const bool filtered = !matches.criteria.isEmpty();
    const int count = matches.runCount;
    m_proxy->setMatches(std::move(matches));
    // While filtering, the matches are what matters: open every experiment that has some.
    if (filtered && count <= kExpandAllLimit)
        m_view->expandAll();
    noteBusy();
    updateActions();
    updateSummary();
}

void RunBrowser::sizeColumns()
{
    // From the longest values a column usually holds, not from the rows loaded first (an
    // experiment of one run sized Status to "1/1 finished" and later cut "10/12 finished" to
    // "10/1…"); the name column takes the rest and is elided in the middle.
    const QFontMetrics fm = m_view->fontMetrics();
    const int pad = 24;
    const auto width = [&](const QString& sample) { return fm.horizontalAdvance(sample) + pad; };
    m_view->setColumnWidth(RunTreeModel::StatusColumn, width(QStringLiteral("999/999 finished")));
    m_view->setColumnWidth(RunTreeModel::TrainColumn, width(QStringLiteral("100.00%")) - 8);
    m_view->setColumnWidth(RunTreeModel::TestColumn, width(QStringLiteral("100.00%")) - 8);
    m_view->setColumnWidth(RunTreeModel::DurationColumn, width(QStringLiteral("59 min 59 s")) - 8);
    m_view->setColumnWidth(RunTreeModel::SeedColumn, width(QStringLiteral("18446744073709551615")));
    m_view->setColumnWidth(RunTreeModel::ThreadsColumn, width(tr("Threads")));
    m_view->setColumnWidth(RunTreeModel::StartedColumn, width(QStringLiteral("2026-12-31 23:59")));
    m_view->setColumnWidth(RunTreeModel::MemoryColumn, width(QStringLiteral("999.9 MiB")));
}

void RunBrowser::showContextMenu(const QPoint& pos)
{
    const QModelIndex at = m_view->indexAt(pos);
    if (at.isValid() && !m_view->selectionModel()->isRowSelected(at.row(), at.parent()))
        m_view->selectionModel()->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QMenu menu(this);
    menu.addAction(m_showAction);
    menu.addAction(m_compareAction);
    menu.addAction(m_rerunAction);
    menu.addAction(m_rerunExperimentAction);
    menu.addAction(m_notesAction);
    menu.addSeparator();
    menu.addAction(m_exportAction);
    menu.addAction(m_deleteAction);
    menu.addSeparator();
    menu.addAction(tr("Expand all"), m_view, &QTreeView::expandAll);
    menu.addAction(tr("Collapse all"), m_view, &QTreeView::collapseAll);
    menu.addAction(m_refreshAction);
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

void RunBrowser::requestOverlay()
{
    const QList<qint64> ids = selectedRunIds();
    if (!ids.isEmpty())
        Q_EMIT overlayRequested(ids);
}

void RunBrowser::requestRerun()
{
    const QModelIndex one = singleSelectedSource();
    if (one.isValid() && one.data(RunTreeModel::IsRunRole).toBool())
        Q_EMIT rerunRequested(one.data(RunTreeModel::RunIdRole).toLongLong());
}

void RunBrowser::requestRerunExperiment()
{
    const QModelIndex one = singleSelectedSource();
    const qint64 experimentId = one.isValid() ? one.data(RunTreeModel::ExperimentIdRole).toLongLong() : -1;
    if (experimentId < 0)
        return;
    if (m_confirmDeletes) {
        // A whole experiment can take hours: never start one by a stray click.
        const ExperimentRecord* e = m_model->experimentAt(m_model->indexOfExperiment(experimentId));
        const int runs = int(m_model->runIdsOfExperiment(experimentId).size());
        QMessageBox box(QMessageBox::Question, tr("Re-run experiment"),
                        tr("Run experiment %1 “%2” again?").arg(experimentId).arg(e ? e->name : QString()),
                        QMessageBox::NoButton, this);
        box.setInformativeText(tr("It has %1 stored runs; all of them run again with their stored settings, as a new "
                                  "experiment.")
                                   .arg(runs));
        QPushButton* yes = box.addButton(tr("Re-run"), QMessageBox::AcceptRole);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() != yes)
            return;
    }
    Q_EMIT rerunExperimentRequested(experimentId);
}

int RunBrowser::deleteSelected()
{
    if (!m_store)
        return 0;
    // Whole experiments first; then runs outside them (the group of runs without an experiment
    // has no row of its own to delete, so its runs go one by one).
    QList<qint64> expIds, runIds;
    QStringList expNames, runNames, skipped;
    int runsWithExperiments = 0;
    QSet<qint64> expSet;
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    for (const QModelIndex& i : rows) {
        const QModelIndex s = toSource(i);
        if (!s.isValid() || s.data(RunTreeModel::IsRunRole).toBool())
            continue;
        const qint64 id = s.data(RunTreeModel::ExperimentIdRole).toLongLong();
        const ExperimentRecord* e = m_model->experimentAt(s);
        bool running = false;
        for (qint64 runId : m_model->runIdsOfExperiment(id)) {
            const RunRecord* r = m_model->listedRunAt(m_model->indexOfRun(runId));
            running = running || (r && r->status == RunStatus::Running);
        }
        if (id < 0) {
            for (qint64 runId : m_model->runIdsOfExperiment(id))
                runIds << runId;
        } else if (running) {
            skipped << tr("experiment “%1” (a run is still running)").arg(e ? e->name : QString::number(id));
            expSet.insert(id); // its selected runs are skipped with it
        } else if (!expSet.contains(id)) {
            expSet.insert(id);
            expIds << id;
            expNames << QStringLiteral("“%1”").arg(e ? e->name : QString::number(id));
            runsWithExperiments += int(m_model->rowCount(s));
        }
    }
    for (const QModelIndex& i : rows) {
        const QModelIndex s = toSource(i);
        if (s.data(RunTreeModel::IsRunRole).toBool())
            runIds << s.data(RunTreeModel::RunIdRole).toLongLong();
    }
    runIds = sortedUnique(runIds);
    QList<qint64> runsToDelete;
    for (qint64 id : runIds) {
        const QModelIndex s = m_model->indexOfRun(id);
        const RunRecord* r = m_model->listedRunAt(s);
        if (!r || (r->experimentId >= 0 && expSet.contains(r->experimentId)))
            continue;
        const QString name = s.data(Qt::DisplayRole).toString();
        if (r->status == RunStatus::Running) {
            skipped << tr("run %1 “%2” (still running)").arg(QString::number(id), name);
            continue;
        }
        runsToDelete << id;
        runNames << QStringLiteral("%1 “%2”").arg(QString::number(id), name);
    }
    if (expIds.isEmpty() && runsToDelete.isEmpty()) {
        if (!skipped.isEmpty()) {
            m_message = tr("Nothing deleted: %1. Stop running runs before deleting them.").arg(nameList(skipped, 3));
            updateSummary();
        }
        return 0;
    }

    if (m_confirmDeletes) {
        QStringList what;
        if (!expIds.isEmpty())
            what << (expIds.size() == 1 ? tr("%1 with its %2: %3") : tr("%1 with their %2: %3"))
                        .arg(expIds.size() == 1 ? tr("1 experiment") : tr("%1 experiments").arg(expIds.size()),
                             runsWithExperiments == 1 ? tr("1 run") : tr("%1 runs").arg(runsWithExperiments),
                             nameList(expNames));
        if (!runsToDelete.isEmpty())
            what << tr("%1: %2").arg(runsToDelete.size() == 1 ? tr("1 run") : tr("%1 runs").arg(runsToDelete.size()),
                                     nameList(runNames));
        QMessageBox box(QMessageBox::Warning, tr("Delete runs"),
                        tr("Delete from %1?").arg(QFileInfo(m_store->path()).fileName()), QMessageBox::NoButton,
                        this);
        QString info = what.join(QStringLiteral("\n\n"));
        if (!skipped.isEmpty())
            info += QStringLiteral("\n\n") + tr("Not deleted: %1.").arg(nameList(skipped, 3));
        info += QStringLiteral("\n\n") + tr("Their metrics are deleted too. This cannot be undone.");
        box.setInformativeText(info);
        if (expNames.size() + runNames.size() > 8)
            box.setDetailedText((expNames + runNames).join(QLatin1Char('\n')));
        QPushButton* del = box.addButton(tr("Delete"), QMessageBox::DestructiveRole);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() != del)
            return 0;
    }

    int deleted = 0;
    QStringList failures;
    QList<qint64> gone;
    for (qint64 id : expIds) {
        const QList<qint64> itsRuns = m_model->runIdsOfExperiment(id);
        if (m_store->deleteExperiment(id)) {
            ++deleted;
            gone << itsRuns;
        } else
            failures << tr("experiment %1: %2").arg(id).arg(m_store->lastError());
    }
    for (qint64 id : runsToDelete) {
        if (m_store->deleteRun(id)) {
            ++deleted;
            gone << id;
        } else
            failures << tr("run %1: %2").arg(id).arg(m_store->lastError());
    }
    if (!failures.isEmpty())
        m_message = tr("Could not delete %1").arg(nameList(failures, 3));
    else if (!skipped.isEmpty())
        m_message = tr("Not deleted: %1.").arg(nameList(skipped, 3));
    else
        m_message.clear();
    refresh();
    if (!gone.isEmpty())
        Q_EMIT runsDeleted(sortedUnique(gone));
    return deleted;
}

bool RunBrowser::exportSelectedCsv(const QString& path, QString* error)
{
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    if (!m_store)
        return fail(tr("%1: no database is open").arg(path));
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty())
        return fail(tr("%1: no runs are selected").arg(path));

    // The one CSV format of the CLI and the workbench (ResultCsv, docs/cli.md).
    return ResultCsv::writeRuns(*m_store, ids, path, error);
}

void RunBrowser::exportWithDialog()
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty())
        return;
    const QString dir = m_lastDir.isEmpty() ? QDir::homePath() : m_lastDir;
    const QString suggested = ids.size() == 1 ? QStringLiteral("run-%1.csv").arg(ids.first())
                                              : QStringLiteral("runs-%1-%2.csv").arg(ids.first()).arg(ids.last());
    const QString path = QFileDialog::getSaveFileName(this, tr("Export checkpoints as CSV"),
                                                      QDir(dir).filePath(suggested), tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    m_lastDir = QFileInfo(path).absolutePath();
    QString error;
    if (!exportSelectedCsv(path, &error))
        QMessageBox::warning(this, tr("Export CSV"), error);
}

} // namespace tb::gui
