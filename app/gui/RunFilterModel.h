#pragma once
/// @file RunFilterModel.h
/// Sorting and filtering of the run browser's tree by text and status.

#include <RunTypes.h>

#include <QSortFilterProxyModel>

#include <optional>

namespace tb::gui {

/// Proxy over a RunTreeModel: sorts by RunTreeModel::SortRole (numbers as numbers, missing
/// values last in ascending order) and filters on two criteria that must both hold:
/// - text (case-insensitive, substring of RunTreeModel::SearchTextRole): a run is shown if it or
///   its experiment matches; an experiment is shown if it or any of its runs matches;
/// - status: only runs of that status are shown, and only experiments having such runs.
/// Empty text and no status (the defaults) show everything. GUI thread only.
class RunFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    /// A proxy with no source; call setSourceModel() with a RunTreeModel.
    explicit RunFilterModel(QObject* parent = nullptr);

    /// Sets the text filter; surrounding spaces are ignored, empty shows all.
    void setFilterText(const QString& text);
    QString filterText() const { return m_text; }
    /// Shows only runs of @p status; std::nullopt (the default) shows every status.
    void setStatusFilter(std::optional<RunStatus> status);
    std::optional<RunStatus> statusFilter() const { return m_status; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool textMatches(const QModelIndex& sourceIndex) const;
    bool runAccepted(const QModelIndex& run, bool experimentMatches) const;

    QString m_text; ///< lower case, trimmed
    std::optional<RunStatus> m_status;
};

} // namespace tb::gui
