#include "DatasetPanel.h"

#include "widgets/KeptTextSpinBox.h"

#include "CsvLoader.h"
#include "DataError.h"
#include "DataSource.h"
#include "DataKeys.h"
#include "DataSourceRegistry.h"
#include "DatasetCache.h"
#include "DatasetCatalog.h"
#include "DatasetFetcher.h"
#include "DatasetPreview.h"
#include "MemoryBudget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableWidget>
#include <QThread>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <new>

namespace tb::gui {

using data::DataSourceEntry;

/// Shared between the panel and its loader threads: a thread posts its result only while the
/// panel is alive, and the destructor waits for a post in progress to finish.
struct DatasetPanel::LoadShared {
    std::mutex mutex;
    DatasetPanel* panel = nullptr;
    std::atomic<quint64> latest{0}; ///< generation of the newest load started
};

struct DatasetPanel::FetchShared {
    std::mutex mutex;
    DatasetPanel* panel = nullptr; ///< null once the panel is gone: nothing more is posted
    std::atomic<bool> cancel{false};
};

struct DatasetPanel::LoadResult {
    DatasetPreview::Summary summary;
    QString error;
    QStringList warnings;
    double seconds = 0;
    bool hasRows = false;     ///< a CSV file: the rows below were read
    QList<QStringList> rows;  ///< the file's first records, as the options read them
    bool header = false;      ///< rows[0] is the header
    QList<int> targetColumns; ///< columns of rows marked as targets
    QString rowsError;        ///< why no rows could be read (the load's error says it too)
};

namespace {

constexpr int debounceMs = 300;

/// The CSV reading options of @p spec (as DataSource reads them), for the preview of the rows.
data::CsvLoader::Options csvOptions(const QJsonObject& spec)
{
    data::CsvLoader::Options o;
    const QString d = spec.value(QStringLiteral("delimiter")).toString(QStringLiteral(","));
    o.delimiter = d == u"whitespace" ? ' ' : (d.isEmpty() ? ',' : d.at(0).toLatin1());
    o.header = spec.value(QStringLiteral("header")).toBool(true);
    o.skipRows = std::max(0, spec.value(QStringLiteral("skip_rows")).toInt(0));
    return o;
}

} // namespace

DatasetPanel::DatasetPanel(QWidget* parent)
    : QWidget(parent), m_baseDir(QDir::currentPath()), m_shared(std::make_shared<LoadShared>())
{
    m_shared->panel = this;
    auto* outer = new QVBoxLayout(this);
    auto* top = new QFormLayout;
    top->setRowWrapPolicy(QFormLayout::WrapLongRows);
    top->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    outer->addLayout(top);
    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("source"));
    m_source->setToolTip(tr("Where the training and test data come from"));
    top->addRow(tr("Source"), m_source);
    // A catalogue set: its state in the cache, and Fetch / Cancel with the transfer's progress.
    m_fetch = std::make_shared<FetchShared>();
    m_fetch->panel = this;
    m_fetchRow = new QWidget(this);
    auto* fetchLayout = new QHBoxLayout(m_fetchRow);
    fetchLayout->setContentsMargins(0, 0, 0, 0);
    m_fetchStatus = new QLabel(m_fetchRow);
    m_fetchStatus->setObjectName(QStringLiteral("fetch_status"));
    m_fetchStatus->setWordWrap(true);
    m_fetchProgress = new QProgressBar(m_fetchRow);
    m_fetchProgress->setObjectName(QStringLiteral("fetch_progress"));
    m_fetchProgress->setVisible(false);
    m_fetchButton = new QPushButton(tr("Fetch"), m_fetchRow);
    m_fetchButton->setObjectName(QStringLiteral("fetch"));
    fetchLayout->addWidget(m_fetchStatus, 1);
    fetchLayout->addWidget(m_fetchProgress, 1);
    fetchLayout->addWidget(m_fetchButton);
    connect(m_fetchButton, &QPushButton::clicked, this, &DatasetPanel::onFetchClicked);
    top->addRow(QString(), m_fetchRow);
    m_stack = new QStackedWidget(this);
    outer->addWidget(m_stack);
    for (const DataSourceEntry* entry : data::DataSourceRegistry::all()) {
        m_source->addItem(entry->info.label, entry->info.id);
        m_source->setItemData(m_source->count() - 1, entry->info.description, Qt::ToolTipRole);
        buildPage(*entry);
    }

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->setVisible(false);
    outer->addWidget(m_error);
    m_warning = new QLabel(this);
    m_warning->setObjectName(QStringLiteral("warning"));
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("color: #b9770e;"));
    m_warning->setVisible(false);
    outer->addWidget(m_warning);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setStyleSheet(QStringLiteral("color: gray;"));
    outer->addWidget(m_status);
    m_rows = new QTableWidget(this);
    m_rows->setObjectName(QStringLiteral("file_rows"));
    m_rows->setToolTip(
        tr("The first rows of the file as the delimiter, skip rows and header options read them; the "
           "header row is bold, target columns are marked"));
    m_rows->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_rows->verticalHeader()->setVisible(false);
    m_rows->horizontalHeader()->setVisible(false);
    m_rows->setMaximumHeight(170);
    m_rows->setVisible(false);
    outer->addWidget(m_rows);
    m_preview = new DatasetPreview(this);
    outer->addWidget(m_preview, 1);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(debounceMs);
    connect(m_debounce, &QTimer::timeout, this, &DatasetPanel::startLoad);
    connect(m_source, &QComboBox::currentIndexChanged, this, &DatasetPanel::onSourceChanged);

    const int moons = m_source->findData(QStringLiteral("moons"));
    {
        const QSignalBlocker block(m_source);
        m_source->setCurrentIndex(std::max(0, moons));
    }
    m_stack->setCurrentIndex(m_source->currentIndex());
    updateVisibility();
    m_debounce->start();
}

DatasetPanel::~DatasetPanel()
{
    if (m_fetchThread) {
        // Cancelled: the fetcher notices within 100 ms and keeps its part for next time.
        m_fetch->cancel = true;
        {
            const std::lock_guard lock(m_fetch->mutex);
            m_fetch->panel = nullptr;
        }
        m_fetchThread->wait();
        delete m_fetchThread;
    }
    // A loader thread holding the lock is posting to us: wait for it, then stop further posts.
    // A post already queued is discarded with this object's pending events.
    const std::lock_guard lock(m_shared->mutex);
    m_shared->panel = nullptr;
}

void DatasetPanel::buildPage(const DataSourceEntry& entry)
{
    Page page;
    page.entry = &entry;
    page.widget = new QWidget(m_stack);
    page.form = new QFormLayout(page.widget);
    page.form->setContentsMargins(0, 0, 0, 0);
    page.form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    page.form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const ParamSchema& schema = entry.schema;
    const bool chooser = schema.find(QStringLiteral("test_file")) && schema.find(QStringLiteral("test_fraction"));
    for (const ParamSpec& p : schema.specs()) {
        const bool testKey =
            p.key == u"test_file" || p.key == u"test_fraction" || p.key == u"test_target_file";
        if (chooser && testKey && !page.testMode) {
            page.testMode = new QComboBox(page.widget);
            page.testMode->setObjectName(QStringLiteral("test_mode"));
            page.testMode->addItem(tr("random fraction of the file"), QStringLiteral("fraction"));
            page.testMode->addItem(tr("separate test file"), QStringLiteral("file"));
            page.testMode->setToolTip(
                tr("Hold out a random share of the rows, or test on a file of its own"));
            page.form->addRow(tr("Test set"), page.testMode);
            QComboBox* mode = page.testMode;
            connect(mode, &QComboBox::currentIndexChanged, this, [this] {
                if (m_settingSpec)
                    return;
                m_overrides.remove(QStringLiteral("test_file"));
                m_overrides.remove(QStringLiteral("test_fraction"));
                m_overrides.remove(QStringLiteral("test_target_file"));
                updateVisibility();
                onUserEdit(QString());
            });
        }
        Field f = Field::make(p, page.widget);
        if (p.type == ParamType::Bool)
            page.form->addRow(f.row);
        else
            page.form->addRow(p.label, f.row);
        const QString key = p.key;
        auto edited = [this, key] { onUserEdit(key); };
        if (auto* s = qobject_cast<QSpinBox*>(f.editor)) {
            connect(s, &QSpinBox::valueChanged, this, edited);
            // Every keystroke: the row names a problem while it is typed (the value commits later).
            connect(static_cast<IntField*>(s)->edit(), &QLineEdit::textEdited, this, [this] { refreshFieldMessages(); });
        } else if (auto* d = qobject_cast<QDoubleSpinBox*>(f.editor)) {
            connect(d, &QDoubleSpinBox::valueChanged, this, edited);
            connect(static_cast<RealField*>(d)->edit(), &QLineEdit::textEdited, this, [this] { refreshFieldMessages(); });
        } else if (auto* c = qobject_cast<QComboBox*>(f.editor))
            connect(c, &QComboBox::currentIndexChanged, this, edited);
        else if (auto* b = qobject_cast<QCheckBox*>(f.editor))
            connect(b, &QCheckBox::toggled, this, edited);
        else if (auto* l = qobject_cast<QLineEdit*>(f.editor))
            connect(l, &QLineEdit::textChanged, this, edited);
        {
            const QSignalBlocker block(f.editor);
            f.reset();
        }
        page.fields.append(std::move(f));
    }
    m_stack->addWidget(page.widget);
    m_pages.append(std::move(page));
}

const DatasetPanel::Page& DatasetPanel::page() const
{
    return m_pages[std::max(0, m_stack->currentIndex())];
}

bool DatasetPanel::isActive(const Page& page, const Field& f) const
{
    const QString& key = f.param->key;
    if (page.testMode) {
        // The chooser decides between a test file and a random fraction.
        const bool fileMode = page.testMode->currentIndex() == 1;
        if (key == u"test_fraction")
            return !fileMode;
        if (key == u"test_file" || key == u"test_target_file")
            return fileMode;
    }
    if (f.param->activeWhen.isEmpty())
        return true;
    // The schema's conditions (e.g. the rf_* keys only with random features), on the values the
    // form holds now.
    QVariantMap values = data::DataKeys::context(page.entry->info).values;
    for (const Field& g : page.fields) {
        const QJsonValue v = g.read();
        if (!v.isUndefined())
            values.insert(g.param->key, v.toVariant());
    }
    return ParamSchema::isActive(*f.param, values);
}

QString DatasetPanel::source() const
{
    return m_source->currentData().toString();
}

QString DatasetPanel::fetchStatus() const
{
    return m_fetchStatus->text();
}

QString DatasetPanel::fetchError() const
{
    const data::DatasetEntry* e = data::DatasetCatalog::find(source());
    if (!e || !m_outcomeIsError || m_outcomeId != e->id || m_outcomeState != int(data::DatasetCache::state(*e)))
        return {};
    return m_outcome;
}

void DatasetPanel::updateFetchRow()
{
    const data::DatasetEntry* e = data::DatasetCatalog::find(source());
    // A running fetch keeps its row (to be watched and cancelled) whatever source is shown.
    m_fetchRow->setVisible(e != nullptr || m_fetchThread);
    if (!e || m_fetchThread)
        return;
    const qint64 size = e->totalSize();
    const bool exact = std::all_of(e->files.begin(), e->files.end(), [](const data::DatasetFileInfo& f) { return f.size >= 0; });
    const QString sizeText = size > 0 ? (exact ? QString() : QStringLiteral("≈ ")) + data::MemoryBudget::formatBytes(std::uint64_t(size))
                                      : tr("size unknown");
    QString text;
    bool offer = e->verifiable();
    const data::DatasetCache::State state = data::DatasetCache::state(*e);
    switch (state) {
    case data::DatasetCache::State::Verified:
        text = tr("In the data-set cache (%1), verified.").arg(data::DatasetCache::folder(*e));
        offer = false;
        break;
    case data::DatasetCache::State::Unverified:
        text = tr("In the data-set cache, not verified yet (Fetch or a load checks it; only missing files are "
                  "downloaded).");
        break;
    case data::DatasetCache::State::Missing:
        text = e->verifiable() ? tr("Not fetched yet (%1, checked against the checksum published by %2).")
                                     .arg(sizeText, e->checksumSource.section(QLatin1Char(','), 0, 0))
                               : tr("Not fetched yet (%1). No checksum is published: fetch it with "
                                    "`trainbench-cli datasets fetch %2 --sha256 HEX`.")
                                     .arg(sizeText, e->id);
        break;
    }
    // How the last fetch of this set ended, until it is fetched again or its files change.
    const bool outcome = !m_outcome.isEmpty() && m_outcomeId == e->id && m_outcomeState == int(state) && offer;
    if (outcome)
        text = m_outcomeIsError ? tr("The fetch failed: %1").arg(m_outcome) : m_outcome;
    m_fetchStatus->setText(text);
    m_fetchStatus->setStyleSheet(outcome && m_outcomeIsError ? QStringLiteral("color: #c0392b;") : QString());
    m_fetchButton->setText(outcome ? tr("Fetch again") : tr("Fetch"));
    m_fetchButton->setEnabled(true);
    m_fetchButton->setVisible(offer);
    m_fetchProgress->setVisible(false);
}

void DatasetPanel::onFetchClicked()
{
    if (m_fetchThread) {
        m_fetch->cancel = true; // the fetcher stops within 0.2 s and keeps the part for next time
        m_fetchButton->setEnabled(false);
        m_fetchStatus->setText(tr("Cancelling…"));
        return;
    }
    const data::DatasetEntry* e = data::DatasetCatalog::find(source());
    if (!e)
        return;
    m_fetch->cancel = false;
    m_fetchingId = e->id;
    m_outcome.clear();
    m_outcomeIsError = false;
    m_fetchButton->setText(tr("Cancel"));
    m_fetchButton->setEnabled(true);
    m_fetchProgress->setRange(0, 0); // busy until the size is known
    m_fetchProgress->setVisible(true);
    m_fetchStatus->setStyleSheet(QString());
    m_fetchStatus->setText(tr("Fetching %1…").arg(e->title));
    const std::shared_ptr<FetchShared> shared = m_fetch;
    const data::DatasetEntry entry = *e;
    // Posts @p f to the GUI thread while the panel lives (a post to a destroyed panel is dropped).
    auto post = [shared](auto f) {
        const std::lock_guard lock(shared->mutex);
        if (shared->panel)
            QMetaObject::invokeMethod(shared->panel, std::move(f), Qt::QueuedConnection);
    };
    m_fetchThread = QThread::create([shared, entry, post] {
        data::DatasetFetcher::Options o;
        o.cancel = &shared->cancel;
        o.progress = [shared, post, title = entry.title](const data::FetchProgress& p) {
            post([shared, p, title] {
                DatasetPanel* panel = shared->panel;
                if (!panel)
                    return;
                if (p.phase == u"download") {
                    panel->m_fetchStatus->setText(tr("Fetching %1…").arg(title));
                    if (p.fileTotal > 0) {
                        panel->m_fetchProgress->setRange(0, 1000);
                        panel->m_fetchProgress->setValue(int(1000.0 * double(p.fileDone) / double(p.fileTotal)));
                    } else {
                        panel->m_fetchProgress->setRange(0, 0);
                    }
                    panel->m_fetchProgress->setFormat(
                        QStringLiteral("%p%  %1 (%2/%3)").arg(p.file).arg(p.fileIndex + 1).arg(p.fileCount));
                } else {
                    panel->m_fetchProgress->setRange(0, 0);
                    panel->m_fetchStatus->setText(
                        p.phase == u"wait" ? tr("Another process is fetching this set; waiting for it…")
                                           : tr("Verifying %1…").arg(p.file));
                }
            });
        };
        QString error;
        const bool ok = data::DatasetFetcher::fetch(entry, o, &error);
        const bool cancelled = !ok && shared->cancel.load();
        post([shared, ok, cancelled, error] {
            if (DatasetPanel* panel = shared->panel)
                panel->finishFetch(ok, cancelled, error);
        });
    });
    m_fetchThread->start();
}

void DatasetPanel::finishFetch(bool ok, bool cancelled, const QString& error)
{
    if (m_fetchThread) {
        m_fetchThread->wait(); // its last act was posting this
        delete m_fetchThread;
        m_fetchThread = nullptr;
    }
    m_outcomeId = m_fetchingId;
    m_fetchingId.clear();
    if (const data::DatasetEntry* e = data::DatasetCatalog::find(m_outcomeId))
        m_outcomeState = int(data::DatasetCache::state(*e));
    m_outcomeIsError = !ok && !cancelled;
    m_outcome = ok ? QString()
                   : cancelled ? tr("Fetch cancelled; the part received is kept and the next fetch resumes it.")
                               : error;
    updateFetchRow();
    // The preview said the set is missing; now it can load (a set that is not shown waits).
    if (ok && m_outcomeId == source())
        refreshPreview();
    Q_EMIT fetchFinished(ok);
}

void DatasetPanel::updateVisibility()
{
    updateFetchRow();
    // The stack is as tall as its current page, not as its tallest one (the CSV form).
    for (int i = 0; i < m_pages.size(); ++i)
        m_pages[i].widget->setSizePolicy(QSizePolicy::Preferred, i == m_stack->currentIndex()
                                                                     ? QSizePolicy::Preferred
                                                                     : QSizePolicy::Ignored);
    m_stack->adjustSize();
    for (const Page& p : m_pages)
        for (const Field& f : p.fields)
            p.form->setRowVisible(f.row, isActive(p, f));
    const bool csv = source() == u"csv";
    if (!csv)
        m_rows->setVisible(false);
}

void DatasetPanel::resetFields(const Page& p)
{
    for (const Field& f : p.fields) {
        const QSignalBlocker block(f.editor);
        f.reset();
    }
    if (p.testMode) {
        const QSignalBlocker block(p.testMode);
        p.testMode->setCurrentIndex(0);
    }
}

void DatasetPanel::onUserEdit(const QString& key)
{
    if (m_settingSpec)
        return;
    if (!key.isEmpty()) {
        m_overrides.remove(key); // the user's value replaces the one the editor could not show
        m_edited.insert(key);
        updateVisibility(); // rows whose conditions read this key appear or hide
    }
    refreshFieldMessages();
    m_debounce->start();
    Q_EMIT changed();
}

void DatasetPanel::onSourceChanged()
{
    m_stack->setCurrentIndex(m_source->currentIndex());
    if (m_settingSpec)
        return;
    m_overrides = QJsonObject(); // they belonged to the file's source
    m_present.clear();
    m_edited.clear();
    updateVisibility();
    refreshFieldMessages();
    m_debounce->start();
    Q_EMIT changed();
}

QJsonObject DatasetPanel::spec() const
{
    QJsonObject o;
    o.insert(QStringLiteral("source"), source());
    const Page& p = page();
    for (const Field& f : p.fields) {
        if (!isActive(p, f))
            continue;
        const QJsonValue v = f.read();
        if (v.isUndefined())
            continue;
        const ParamSpec& param = *f.param;
        const bool needed =
            param.required ||
            (!param.requiredUnless.isEmpty() && !o.contains(param.requiredUnless) &&
             !(p.testMode && p.testMode->currentIndex() == 1 && param.key == u"test_fraction"));
        if (needed || m_present.contains(param.key) || m_edited.contains(param.key) ||
            !param.defaultValue.isValid() || v != QJsonValue::fromVariant(param.defaultValue))
            o.insert(param.key, v);
    }
    for (auto it = m_overrides.begin(); it != m_overrides.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

void DatasetPanel::setSpec(const QJsonObject& spec)
{
    m_settingSpec = true;
    m_overrides = QJsonObject();
    m_edited.clear();
    m_present.clear();
    const QJsonValue src = spec.value(QStringLiteral("source"));
    const int index = src.isString() ? m_source->findData(src.toString()) : -1;
    if (index >= 0)
        m_source->setCurrentIndex(index);
    else
        m_overrides.insert(QStringLiteral("source"), src.isUndefined() ? QJsonValue(QJsonValue::Null) : src);
    m_stack->setCurrentIndex(m_source->currentIndex());
    const Page& p = page();
    resetFields(p);
    if (p.testMode)
        p.testMode->setCurrentIndex(spec.contains(QStringLiteral("test_file")) ? 1 : 0);
    updateVisibility();
    for (auto it = spec.begin(); it != spec.end(); ++it) {
        if (it.key() == u"source")
            continue;
        const Field* field = nullptr;
        for (const Field& f : p.fields)
            if (f.param->key == it.key() && isActive(p, f))
                field = &f;
        if (field && field->write(it.value()))
            m_present.insert(it.key());
        else
            m_overrides.insert(it.key(), it.value());
    }
    m_settingSpec = false;
    refreshFieldMessages();
    m_debounce->start();
    Q_EMIT changed();
}

Task DatasetPanel::task() const
{
    if (const auto t = data::DataSource::task(spec()))
        return *t;
    const Page& p = page();
    if (p.entry->info.task)
        return *p.entry->info.task;
    for (const Field& f : p.fields)
        if (f.param->key == u"task")
            return f.read().toString() == u"regression" ? Task::Regression : Task::Classification;
    return Task::Classification;
}

bool DatasetPanel::hasNoiseLevel() const
{
    return data::DataSource::hasNoiseLevel(spec());
}

void DatasetPanel::setBaseDir(const QString& dir)
{
    m_baseDir = dir;
    m_debounce->start();
}

QWidget* DatasetPanel::editor(const QString& key) const
{
    if (key == u"source")
        return m_source;
    const Page& p = page();
    if (key == u"test_mode")
        return p.testMode;
    for (const Field& f : p.fields)
        if (f.param->key == key && isActive(p, f))
            return f.editor;
    return nullptr;
}

void DatasetPanel::refreshPreview()
{
    startLoad();
}

void DatasetPanel::setError(const QString& message)
{
    m_lastError = withLabels(message);
    m_error->setText(m_lastError);
    m_error->setVisible(!m_lastError.isEmpty());
    refreshFieldMessages();
}

const DatasetPanel::Field* DatasetPanel::fileField(const Page& p) const
{
    const Field* first = nullptr;
    for (const Field& f : p.fields) {
        if ((f.param->type != ParamType::Path && f.param->type != ParamType::Folder) || !isActive(p, f))
            continue;
        if (f.param->key == u"file")
            return &f;
        if (!first)
            first = &f;
    }
    return first;
}

void DatasetPanel::refreshFieldMessages()
{
    const Field* file = fileField(page());
    for (const Page& p : m_pages)
        for (const Field& f : p.fields) {
            if (!f.message)
                continue;
            QString text = f.problem ? f.problem() : QString();
            // A load error of a source read from a file: beside the File field, where the eye is
            // (the foot of the panel is below the fold even on a large screen).
            if (text.isEmpty() && &f == file)
                text = m_lastError;
            f.message->setText(text);
            f.message->setVisible(!text.isEmpty());
        }
}

QStringList DatasetPanel::problems() const
{
    QStringList out;
    const Page& p = page();
    for (const Field& f : p.fields)
        if (f.problem && isActive(p, f)) {
            const QString t = f.problem();
            if (!t.isEmpty())
                out << t;
        }
    // The user's file could not be read: Run would fail on it, so say it now with the rest.
    if (!m_loading && !m_lastError.isEmpty() && fileField(p))
        out << m_lastError;
    return out;
}

QString DatasetPanel::withLabels(const QString& message) const
{
    static const QRegularExpression lead(QStringLiteral("^dataset\\.([A-Za-z_0-9]+): "));
    const QRegularExpressionMatch m = lead.match(message);
    if (!m.hasMatch())
        return message;
    for (const Field& f : page().fields)
        if (f.param->key == m.captured(1) && !f.param->label.isEmpty())
            return QStringLiteral("%1 (dataset.%2): %3").arg(f.param->label, f.param->key, message.mid(m.capturedLength()));
    return message;
}

void DatasetPanel::startLoad()
{
    m_debounce->stop();
    const quint64 generation = ++m_generation;
    m_shared->latest = generation;
    const QJsonObject s = spec();
    const QString problem = data::DataSource::validate(s);
    const bool csv = s.value(QStringLiteral("source")).toString() == u"csv";
    // The rows of a CSV file show even while the options are still wrong: they help fix them.
    const QString file = s.value(QStringLiteral("file")).toString();
    if (!problem.isEmpty() && !(csv && !file.isEmpty())) {
        m_loading = false;
        setError(problem);
        m_warnings.clear();
        m_warning->setVisible(false);
        m_status->clear();
        m_rows->setVisible(false);
        m_preview->setMessage(tr("No preview until the dataset settings are fixed."));
        Q_EMIT previewReady();
        return;
    }
    m_loading = true;
    m_status->setText(problem.isEmpty() ? tr("Loading %1 …").arg(data::DataSource::describe(s)) : QString());
    // The global pool, because QCoreApplication waits for its tasks on exit: a load still
    // running when the window closes finishes before static data is torn down.
    QThreadPool::globalInstance()->start([shared = m_shared, generation, s, problem, baseDir = m_baseDir] {
        if (shared->latest != generation)
            return; // superseded while queued; the newer load reports
        LoadResult r;
        QElapsedTimer clock;
        clock.start();
        if (s.value(QStringLiteral("source")).toString() == u"csv") {
            const QJsonObject abs = data::DataSource::withAbsolutePaths(s, baseDir);
            const data::CsvLoader::Options o = csvOptions(s);
            try {
                r.rows = data::CsvLoader::previewRows(abs.value(QStringLiteral("file")).toString(), o);
                r.hasRows = true;
                r.header = o.header;
                const QJsonValue t = s.value(QStringLiteral("target"));
                const QJsonArray targets = t.isArray() ? t.toArray() : QJsonArray{t};
                const QStringList names = o.header && !r.rows.isEmpty() ? r.rows.first() : QStringList();
                const int width = r.rows.isEmpty() ? 0 : int(r.rows.first().size());
                for (const QJsonValue& c : targets) {
                    int i = -1;
                    if (c.isDouble())
                        i = int(c.toDouble()) < 0 ? width + int(c.toDouble()) : int(c.toDouble());
                    else if (c.isString())
                        i = int(names.indexOf(c.toString()));
                    if (i >= 0 && i < width)
                        r.targetColumns << i;
                }
            } catch (const data::DataError& e) {
                r.rowsError = e.text();
            }
        }
        if (!problem.isEmpty()) {
            r.error = problem;
        } else {
            try {
                const data::DatasetPair pair = data::DataSource::load(s, baseDir);
                r.summary = DatasetPreview::summarise(pair);
                r.warnings = pair.warnings;
            } catch (const data::DataError& e) {
                r.error = e.text();
            } catch (const std::bad_alloc&) {
                r.error = tr("not enough memory to load %1").arg(data::DataSource::describe(s));
            } catch (const std::exception& e) {
                r.error = QString::fromUtf8(e.what());
            }
        }
        r.seconds = double(clock.nsecsElapsed()) * 1e-9;
        const std::lock_guard lock(shared->mutex);
        if (DatasetPanel* panel = shared->panel)
            QMetaObject::invokeMethod(
                panel, [panel, generation, r] { panel->finishLoad(generation, r); }, Qt::QueuedConnection);
    });
}

void DatasetPanel::showRows(const LoadResult& result)
{
    m_rows->setVisible(result.hasRows || !result.rowsError.isEmpty());
    m_rows->clear();
    if (!result.hasRows) {
        m_rows->setRowCount(0);
        m_rows->setColumnCount(0);
        return;
    }
    int width = 0;
    for (const QStringList& r : result.rows)
        width = std::max(width, int(r.size()));
    m_rows->setColumnCount(width);
    m_rows->setRowCount(int(result.rows.size()));
    for (int i = 0; i < result.rows.size(); ++i)
        for (int j = 0; j < result.rows[i].size(); ++j) {
            auto* item = new QTableWidgetItem(result.rows[i][j]);
            if (i == 0 && result.header) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            if (result.targetColumns.contains(j))
                item->setBackground(QColor(0xfd, 0xeb, 0xd0)); // the target: a light orange column
            m_rows->setItem(i, j, item);
        }
    m_rows->resizeColumnsToContents();
}

void DatasetPanel::finishLoad(quint64 generation, const LoadResult& result)
{
    if (generation != m_generation)
        return; // an edit superseded this load; its own result follows
    m_loading = false;
    setError(result.error);
    m_warnings = result.warnings;
    m_warning->setText(result.warnings.join(QLatin1Char('\n')));
    m_warning->setVisible(!result.warnings.isEmpty());
    showRows(result);
    if (result.error.isEmpty()) {
        m_preview->setSummary(result.summary);
        const QString took = result.seconds < 1 ? tr("%1 ms").arg(std::lround(result.seconds * 1000))
                                                : tr("%1 s").arg(result.seconds, 0, 'f', 2);
        m_status->setText(tr("%1 (loaded in %2)").arg(result.summary.description, took));
    } else {
        m_preview->setMessage(tr("No preview: the data could not be loaded."));
        m_status->clear();
    }
    Q_EMIT previewReady();
}

} // namespace tb::gui
