#include "PreviewLoader.h"

#include <data/DataError.h>
#include <data/DataSource.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThreadPool>

#include <atomic>
#include <mutex>
#include <new>

namespace tb::gui {

/// Shared between the loader and its tasks: a task posts its result only while the loader is
/// alive, and the destructor waits for a post in progress to finish.
struct PreviewLoader::Shared {
    std::mutex mutex;
    PreviewLoader* loader = nullptr;
    std::atomic<quint64> latest{0}; ///< generation of the newest load started
};

PreviewLoader::PreviewLoader(QObject* parent) : QObject(parent), m_shared(std::make_shared<Shared>())
{
    m_shared->loader = this;
}

PreviewLoader::~PreviewLoader()
{
    // A task holding the lock is posting to us: wait for it, then stop further posts. A post
    // already queued is discarded with this object's pending events.
    const std::lock_guard lock(m_shared->mutex);
    m_shared->loader = nullptr;
}

void PreviewLoader::supersede()
{
    m_shared->latest = ++m_generation;
    m_loading = false;
}

void PreviewLoader::start(const QJsonObject& spec, const QString& problem, const QString& baseDir)
{
    const quint64 generation = ++m_generation;
    m_shared->latest = generation;
    m_loading = true;
    QThreadPool::globalInstance()->start([shared = m_shared, generation, spec, problem, baseDir] {
        if (shared->latest != generation)
            return; // superseded while queued; the newer load reports
        const Result r = load(spec, problem, baseDir);
        const std::lock_guard lock(shared->mutex);
        if (PreviewLoader* loader = shared->loader)
            QMetaObject::invokeMethod(
                loader, [loader, generation, r] { loader->deliver(generation, r); }, Qt::QueuedConnection);
    });
}

PreviewLoader::Result PreviewLoader::load(const QJsonObject& spec, const QString& problem,
                                          const QString& baseDir)
{
    Result r;
    QElapsedTimer clock;
    clock.start();
    r.rows = CsvRowsTable::read(spec, baseDir);
    if (!problem.isEmpty()) {
        r.error = problem;
    } else {
        try {
            const data::DatasetPair pair = data::DataSource::load(spec, baseDir);
            r.summary = DatasetPreview::summarise(pair);
            r.warnings = pair.warnings;
        } catch (const data::DataError& e) {
            r.error = e.text();
        } catch (const std::bad_alloc&) {
            r.error = QCoreApplication::translate("tb::gui::DatasetPanel", "not enough memory to load %1")
                          .arg(data::DataSource::describe(spec));
        } catch (const std::exception& e) {
            r.error = QString::fromUtf8(e.what());
        }
    }
    r.seconds = double(clock.nsecsElapsed()) * 1e-9;
    return r;
}

void PreviewLoader::deliver(quint64 generation, const Result& result)
{
    if (generation != m_generation)
        return; // a later start() superseded this load; its own result follows
    m_loading = false;
    Q_EMIT finished(result);
}

} // namespace tb::gui
