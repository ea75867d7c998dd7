#pragma once
/// @file RunFilterModel.h
/// Sorting and filtering of the run browser's tree by text and status.

#include "RunTreeModel.h"

#include <store/RunTypes.h>

#include <QJsonObject>
#include <QSortFilterProxyModel>

#include <memory>
#include <optional>

namespace tb {
class RunStore;
}

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
/// Empty text and no status (the defaults) show everything.
///
/// Which rows match is worked out by match() on a model snapshot — on any thread, so that the run
/// browser filters 100,000 runs without blocking the window — and handed to the proxy with
/// setMatches(); the proxy then only looks rows up. setFilterText() and setStatusFilter() do both
/// at once on the calling thread. The proxy itself is GUI thread only.
class RunFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    /// One `key op value` condition of the filter text.
    struct Condition {
        QString key, op, value;
    };
    /// What a filter asks for: the parsed text and the status.
    struct Criteria {
        QString text;                  ///< lower case, trimmed
        QStringList words;             ///< plain words of the text (lower case)
        QList<Condition> conditions;   ///< key op value parts of the text
        std::optional<RunStatus> status;
        /// Criteria of @p text (see the class comment) and @p status.
        static Criteria parse(const QString& text, std::optional<RunStatus> status);
        bool isEmpty() const { return text.isEmpty() && !status; }
        bool operator==(const Criteria& o) const { return text == o.text && status == o.status; }
    };
    /// Which rows of one snapshot match, by position in it.
    struct Matches {
        std::shared_ptr<const RunTreeModel::Snapshot> snapshot; ///< what the positions refer to
        Criteria criteria;
        QVector<char> groups;        ///< per experiment row: shown
        QVector<QVector<char>> runs; ///< per experiment row, per run row: shown
        int runCount = 0;            ///< runs shown
        QString error;               ///< parameters that could not be read (conditions then fail)
    };
    /// The rows of @p snapshot that meet @p criteria. Parameters for conditions come from the
    /// snapshot's whole records, or else from @p store (RunStore::runParameters(), one query).
    /// Any thread; the store must stay open until it returns.
    static Matches match(std::shared_ptr<const RunTreeModel::Snapshot> snapshot, const Criteria& criteria,
                         const RunStore* store);

    /// A proxy with no source; call setSourceModel() with a RunTreeModel.
    explicit RunFilterModel(QObject* parent = nullptr);

    /// Sets the text filter and matches on the calling thread; surrounding spaces are ignored,
    /// empty shows all.
    void setFilterText(const QString& text);
    QString filterText() const { return m_criteria.text; }
    /// Shows only runs of @p status; std::nullopt (the default) shows every status.
    void setStatusFilter(std::optional<RunStatus> status);
    std::optional<RunStatus> statusFilter() const { return m_criteria.status; }
    /// The criteria shown (set by the two above or by setMatches()).
    const Criteria& criteria() const { return m_criteria; }
    /// Shows the rows @p matches names: its criteria become the proxy's. Matches of a snapshot
    /// other than the model's are kept until the model shows that snapshot (a read and its
    /// matches arriving together); until then every row is shown.
    void setMatches(Matches matches);
    /// Runs shown: the matches' count, or every run when nothing is filtered.
    int matchingRunCount() const;
    /// The store a filter on parameters reads (not owned), for setFilterText() on a listed snapshot.
    void setStore(const RunStore* store) { m_store = store; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    void rematch();
    const RunTreeModel* tree() const;

    Criteria m_criteria;
    Matches m_matches;
    const RunStore* m_store = nullptr;
};

} // namespace tb::gui
