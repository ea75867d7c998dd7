#pragma once
/// @file PreviewLoader.h
/// The Data set panel's preview loads: a data-set spec loaded off the GUI thread, the newest load's
/// result delivered back on it.

#include "CsvRowsTable.h"
#include "DatasetPreview.h"

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

namespace tb::gui {

/// Loads data-set specs for the preview on QThreadPool::globalInstance() (the application waits for
/// its tasks on exit, so a load still running when the window closes finishes before static data
/// is torn down). Each start() supersedes every load before it: only the newest one's result is
/// delivered (finished(), on the GUI thread); a superseded load still queued does not run. The
/// loader may be destroyed while a load runs: the task finishes alone and its result is dropped.
/// GUI thread only.
class PreviewLoader : public QObject {
    Q_OBJECT
public:
    /// What a load found. A plain value type.
    struct Result {
        DatasetPreview::Summary summary; ///< DatasetPreview::summarise() of the loaded sets
        QString error;                   ///< why it could not be loaded; empty when it was
        QStringList warnings;            ///< DataSource::warnings() of the loaded sets
        double seconds = 0;              ///< the load's wall time
        CsvRowsTable::Rows rows;         ///< a CSV file's first rows (CsvRowsTable::read())
    };

    explicit PreviewLoader(QObject* parent = nullptr);
    ~PreviewLoader() override;

    /// Loads @p spec (its paths relative to @p baseDir) with DataSource::load(), and for a CSV file
    /// reads its first rows. With @p problem (the spec's validation message, for a CSV file whose
    /// rows help to fix it) only the rows are read and the result's error is @p problem.
    void start(const QJsonObject& spec, const QString& problem, const QString& baseDir);
    /// Drops the results of every load started so far (the panel shows no preview now).
    void supersede();
    /// True from start() until the newest load's result is delivered (or supersede()).
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    /// The newest load ended (success or error).
    void finished(const tb::gui::PreviewLoader::Result& result);

private:
    struct Shared;

    static Result load(const QJsonObject& spec, const QString& problem, const QString& baseDir);
    void deliver(quint64 generation, const Result& result);

    std::shared_ptr<Shared> m_shared;
    quint64 m_generation = 0;
    bool m_loading = false;
};

} // namespace tb::gui
