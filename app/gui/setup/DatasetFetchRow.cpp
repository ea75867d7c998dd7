#include "DatasetFetchRow.h"

#include <data/DatasetCache.h>
#include <data/DatasetCatalog.h>
#include <data/DatasetFetcher.h>
#include <data/MemoryBudget.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <mutex>

namespace tb::gui {

/// Shared between the row and its fetch thread: the thread posts to the row only while it lives.
struct DatasetFetchRow::Shared {
    std::mutex mutex;
    DatasetFetchRow* row = nullptr; ///< null once the row is gone: nothing more is posted
    std::atomic<bool> cancel{false};
};

DatasetFetchRow::DatasetFetchRow(QWidget* parent) : QWidget(parent), m_shared(std::make_shared<Shared>())
{
    m_shared->row = this;
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("fetch_status"));
    m_status->setWordWrap(true);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("fetch_progress"));
    m_progress->setVisible(false);
    m_button = new QPushButton(tr("Fetch"), this);
    m_button->setObjectName(QStringLiteral("fetch"));
    layout->addWidget(m_status, 1);
    layout->addWidget(m_progress, 1);
    layout->addWidget(m_button);
    connect(m_button, &QPushButton::clicked, this, &DatasetFetchRow::onClicked);
}

DatasetFetchRow::~DatasetFetchRow()
{
    if (!m_thread)
        return;
    // Cancelled: the fetcher notices within 100 ms and keeps its part for next time.
    m_shared->cancel = true;
    {
        const std::lock_guard lock(m_shared->mutex);
        m_shared->row = nullptr;
    }
    m_thread->wait();
    delete m_thread;
}

void DatasetFetchRow::showSet(const QString& id)
{
    m_shown = id;
    refresh();
}

QString DatasetFetchRow::status() const
{
    return m_status->text();
}

QString DatasetFetchRow::error() const
{
    const data::DatasetEntry* e = data::DatasetCatalog::find(m_shown);
    if (!e || !m_outcomeIsError || m_outcomeId != e->id ||
        m_outcomeState != int(data::DatasetCache::state(*e)))
        return {};
    return m_outcome;
}

void DatasetFetchRow::refresh()
{
    const data::DatasetEntry* e = data::DatasetCatalog::find(m_shown);
    // A running fetch keeps its row (to be watched and cancelled) whatever set is shown.
    setVisible(e != nullptr || m_thread);
    if (!e || m_thread)
        return;
    const qint64 size = e->totalSize();
    const bool exact = std::all_of(e->files.begin(), e->files.end(),
                                   [](const data::DatasetFileInfo& f) { return f.size >= 0; });
    const QString sizeText = size > 0 ? (exact ? QString() : QStringLiteral("≈ ")) +
                                            data::MemoryBudget::formatBytes(std::uint64_t(size))
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
        text =
            tr("In the data-set cache, not verified yet (Fetch or a load checks it; only missing files are "
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
    const bool outcome =
        !m_outcome.isEmpty() && m_outcomeId == e->id && m_outcomeState == int(state) && offer;
    if (outcome)
        text = m_outcomeIsError ? tr("The fetch failed: %1").arg(m_outcome) : m_outcome;
    m_status->setText(text);
    m_status->setStyleSheet(outcome && m_outcomeIsError ? QStringLiteral("color: #c0392b;") : QString());
    m_button->setText(outcome ? tr("Fetch again") : tr("Fetch"));
    m_button->setEnabled(true);
    m_button->setVisible(offer);
    m_progress->setVisible(false);
}

void DatasetFetchRow::onClicked()
{
    if (m_thread) {
        m_shared->cancel = true; // the fetcher stops within 0.2 s and keeps the part for next time
        m_button->setEnabled(false);
        m_status->setText(tr("Cancelling…"));
        return;
    }
    start();
}

void DatasetFetchRow::start()
{
    const data::DatasetEntry* e = data::DatasetCatalog::find(m_shown);
    if (!e)
        return;
    m_shared->cancel = false;
    m_fetchingId = e->id;
    m_outcome.clear();
    m_outcomeIsError = false;
    m_button->setText(tr("Cancel"));
    m_button->setEnabled(true);
    m_progress->setRange(0, 0); // busy until the size is known
    m_progress->setVisible(true);
    m_status->setStyleSheet(QString());
    m_status->setText(tr("Fetching %1…").arg(e->title));
    const std::shared_ptr<Shared> shared = m_shared;
    const data::DatasetEntry entry = *e;
    // Posts @p f to the GUI thread while the row lives (a post to a destroyed row is dropped).
    auto post = [shared](auto f) {
        const std::lock_guard lock(shared->mutex);
        if (shared->row)
            QMetaObject::invokeMethod(shared->row, std::move(f), Qt::QueuedConnection);
    };
    m_thread = QThread::create([shared, entry, post] {
        data::DatasetFetcher::Options o;
        o.cancel = &shared->cancel;
        o.progress = [shared, post, title = entry.title](const data::FetchProgress& p) {
            post([shared, p, title] {
                DatasetFetchRow* row = shared->row;
                if (!row)
                    return;
                if (p.phase == u"download") {
                    row->m_status->setText(tr("Fetching %1…").arg(title));
                    if (p.fileTotal > 0) {
                        row->m_progress->setRange(0, 1000);
                        row->m_progress->setValue(int(1000.0 * double(p.fileDone) / double(p.fileTotal)));
                    } else {
                        row->m_progress->setRange(0, 0);
                    }
                    row->m_progress->setFormat(
                        QStringLiteral("%p%  %1 (%2/%3)").arg(p.file).arg(p.fileIndex + 1).arg(p.fileCount));
                } else {
                    row->m_progress->setRange(0, 0);
                    row->m_status->setText(p.phase == u"wait"
                                               ? tr("Another process is fetching this set; waiting for it…")
                                               : tr("Verifying %1…").arg(p.file));
                }
            });
        };
        QString error;
        const bool ok = data::DatasetFetcher::fetch(entry, o, &error);
        const bool cancelled = !ok && shared->cancel.load();
        post([shared, ok, cancelled, error] {
            if (DatasetFetchRow* row = shared->row)
                row->finish(ok, cancelled, error);
        });
    });
    m_thread->start();
}

void DatasetFetchRow::finish(bool ok, bool cancelled, const QString& error)
{
    if (m_thread) {
        m_thread->wait(); // its last act was posting this
        delete m_thread;
        m_thread = nullptr;
    }
    m_outcomeId = m_fetchingId;
    m_fetchingId.clear();
    if (const data::DatasetEntry* e = data::DatasetCatalog::find(m_outcomeId))
        m_outcomeState = int(data::DatasetCache::state(*e));
    m_outcomeIsError = !ok && !cancelled;
    m_outcome = ok          ? QString()
                : cancelled ? tr("Fetch cancelled; the part received is kept and the next fetch resumes it.")
                            : error;
    refresh();
    Q_EMIT finished(ok, m_outcomeId);
}

} // namespace tb::gui
