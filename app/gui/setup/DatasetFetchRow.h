#pragma once
/// @file DatasetFetchRow.h
/// The Data set panel's row for a set of the data-set catalogue: its state in the cache, and
/// Fetch / Cancel with the transfer's progress.

#include <QString>
#include <QWidget>
#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QThread;

namespace tb::gui {

/// Shows whether the catalogue set the panel shows (showSet()) is in the cache and offers
/// **Fetch** (sets with a published checksum; the others are fetched from the command line with a
/// checksum the user gives). DatasetFetcher runs on a thread of its own (its mirror, proxy and
/// resume rules apply), a progress bar shows the transfer and the button becomes **Cancel** (the
/// part received is kept and the next fetch resumes it). A failed fetch stays in the row, in red,
/// until the next fetch of the set or until its files change (error()). A fetch goes on when
/// another set, or none, is shown (the row stays to show and cancel it). One fetch at a time. The
/// row may be destroyed during a fetch (it is cancelled and waited for, within about 0.2 s). GUI
/// thread only.
class DatasetFetchRow : public QWidget {
    Q_OBJECT
public:
    explicit DatasetFetchRow(QWidget* parent = nullptr);
    ~DatasetFetchRow() override;

    /// Shows the state of the catalogue set @p id (the panel's source); for an id of no catalogue
    /// set the row hides, unless a fetch runs.
    void showSet(const QString& id);

    /// The Fetch / Cancel button (hidden for verified sets and sets without a checksum).
    QPushButton* button() const { return m_button; }
    /// The text beside it: the set's state in the cache, the running fetch, or how the last one
    /// ended.
    QString status() const;
    /// Why the last fetch of the shown set failed (empty: none failed, or it was cancelled, or a
    /// later one succeeded, or its files changed since).
    QString error() const;
    /// True while a fetch runs.
    bool isFetching() const { return m_thread != nullptr; }

Q_SIGNALS:
    /// The fetch of set @p id ended; @p ok false: cancelled or failed (see error()).
    void finished(bool ok, const QString& id);

private:
    struct Shared;

    void refresh();
    void onClicked();
    void start();
    void finish(bool ok, bool cancelled, const QString& error);

    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_button = nullptr;
    QThread* m_thread = nullptr;
    std::shared_ptr<Shared> m_shared;
    QString m_shown;      ///< the set the panel shows (its source)
    QString m_fetchingId; ///< the set being fetched (while m_thread)
    QString m_outcomeId;  ///< the set the last fetch's outcome belongs to
    QString m_outcome;    ///< how it ended, for people (cancelled / failed); empty: fine
    bool m_outcomeIsError = false;
    /// The set's cache state when it ended: a file placed by hand since makes the outcome stale.
    int m_outcomeState = -1;
};

} // namespace tb::gui
