#pragma once
/// @file RunFilterModel.h
/// Sorting and filtering of the run browser's tree by text and status.

#include <RunTypes.h>

#include <QSortFilterProxyModel>

#include <optional>

namespace tb::gui {

/// Proxy over a RunTreeModel: sorts by RunTreeModel::SortRole (numbers as numbers, missing
/// values last in ascending order) and filters on criteria that must all hold:
/// - words of the text (case-insensitive, each a substring of RunTreeModel::SearchTextRole): a
///   run is shown if it or its experiment matches; an experiment if it or any of its runs does;
/// - conditions on parameters written `key op value` with op one of = != < <= > >= (spaces
///   around op allowed): `lr=0.01`, `lr < 0.01`, `hidden=16,16`, `activation!=tanh`. Numbers
///   compare as numbers, lists as "a,b", the rest as text; `tag=x` matches runs tagged x. A run
///   without the key does not match; an experiment is shown when one of its runs matches;
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

    /// One `key op value` condition of the filter text.
    struct Condition {
        QString key, op, value;
    };
    /// The conditions the text holds (empty when none).
    QList<Condition> conditions() const { return m_conditions; }

private:
    bool textMatches(const QModelIndex& sourceIndex) const;
    bool conditionsHold(const QModelIndex& run) const;
    bool runAccepted(const QModelIndex& run, bool experimentMatches) const;

    QString m_text; ///< lower case, trimmed
    QStringList m_words;           ///< plain words of the text (lower case)
    QList<Condition> m_conditions; ///< key op value parts of the text
    std::optional<RunStatus> m_status;
};

} // namespace tb::gui
