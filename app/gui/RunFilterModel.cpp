#include "RunFilterModel.h"

#include "RunTreeModel.h"

namespace tb::gui {

RunFilterModel::RunFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(RunTreeModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    // filterAcceptsRow() below decides for both levels itself; Qt's recursive mode would call it
    // again for every child.
    setRecursiveFilteringEnabled(false);
}

void RunFilterModel::setFilterText(const QString& text)
{
    const QString t = text.trimmed().toLower();
    if (t == m_text)
        return;
    m_text = t;
    invalidateRowsFilter();
}

void RunFilterModel::setStatusFilter(std::optional<RunStatus> status)
{
    if (status == m_status)
        return;
    m_status = status;
    invalidateRowsFilter();
}

bool RunFilterModel::textMatches(const QModelIndex& sourceIndex) const
{
    return m_text.isEmpty() || sourceIndex.data(RunTreeModel::SearchTextRole).toString().contains(m_text);
}

bool RunFilterModel::runAccepted(const QModelIndex& run, bool experimentMatches) const
{
    if (m_status && run.data(RunTreeModel::StatusRole).toInt() != int(*m_status))
        return false;
    return experimentMatches || textMatches(run);
}

bool RunFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (m_text.isEmpty() && !m_status)
        return true;
    const QAbstractItemModel* src = sourceModel();
    const QModelIndex idx = src->index(sourceRow, 0, sourceParent);
    if (sourceParent.isValid())
        return runAccepted(idx, textMatches(sourceParent));
    const bool experimentMatches = textMatches(idx);
    if (experimentMatches && !m_status)
        return true;
    const int n = src->rowCount(idx);
    for (int i = 0; i < n; ++i)
        if (runAccepted(src->index(i, 0, idx), experimentMatches))
            return true;
    return false;
}

} // namespace tb::gui
