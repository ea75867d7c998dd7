#include "RunFilterModel.h"

#include <store/RunStore.h>

#include <QJsonArray>
#include <QRegularExpression>

namespace tb::gui {

RunFilterModel::RunFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(RunTreeModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    // filterAcceptsRow() below decides for both levels itself; Qt's recursive mode would call it
    // again for every child.
    setRecursiveFilteringEnabled(false);
}

namespace {

QString valueText(const QJsonValue& v)
{
    if (v.isArray()) {
        QStringList parts;
        for (const QJsonValue& x : v.toArray())
            parts << valueText(x);
        return parts.join(QLatin1Char(','));
    }
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 17);
    return v.toVariant().toString();
}

bool compare(const QString& have, const QString& op, const QString& want)
{
    bool a = false, b = false;
    const double x = have.toDouble(&a), y = want.toDouble(&b);
    if (a && b) {
        if (op == u"=") return x == y;
        if (op == u"!=") return x != y;
        if (op == u"<") return x < y;
        if (op == u"<=") return x <= y;
        if (op == u">") return x > y;
        if (op == u">=") return x >= y;
        return false;
    }
    const int c = QString::compare(have.simplified().remove(QLatin1Char(' ')), want.simplified().remove(QLatin1Char(' ')),
                                   Qt::CaseInsensitive);
    if (op == u"=") return c == 0;
    if (op == u"!=") return c != 0;
    if (op == u"<") return c < 0;
    if (op == u"<=") return c <= 0;
    if (op == u">") return c > 0;
    if (op == u">=") return c >= 0;
    return false;
}

bool wordsMatch(const QString& text, const QStringList& words)
{
    for (const QString& w : words)
        if (!text.contains(w))
            return false;
    return true;
}

bool conditionsHold(const RunRecord& run, const QJsonObject* params, const QList<RunFilterModel::Condition>& conditions)
{
    for (const RunFilterModel::Condition& c : conditions) {
        if (c.key == u"tag") {
            const bool tagged = run.tags.contains(c.value, Qt::CaseInsensitive);
            if ((c.op == u"=" && !tagged) || (c.op == u"!=" && tagged))
                return false;
            continue;
        }
        if (!params || !params->contains(c.key) || !compare(valueText(params->value(c.key)), c.op, c.value))
            return false;
    }
    return true;
}

} // namespace

RunFilterModel::Criteria RunFilterModel::Criteria::parse(const QString& text, std::optional<RunStatus> status)
{
    Criteria c;
    c.text = text.trimmed().toLower();
    c.status = status;
    // "lr < 0.01" and "lr<0.01" alike: operators glue to their key and value.
    static const QRegularExpression spaced(QStringLiteral("\\s*(<=|>=|!=|=|<|>)\\s*"));
    static const QRegularExpression condition(QStringLiteral("^([a-z_][a-z0-9_.]*)(<=|>=|!=|=|<|>)(.+)$"),
                                              QRegularExpression::CaseInsensitiveOption);
    for (const QString& token :
         QString(text.trimmed()).replace(spaced, QStringLiteral("\\1")).split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const auto m = condition.match(token);
        if (m.hasMatch())
            c.conditions << Condition{m.captured(1), m.captured(2), m.captured(3)};
        else
            c.words << token.toLower();
    }
    return c;
}

RunFilterModel::Matches RunFilterModel::match(std::shared_ptr<const RunTreeModel::Snapshot> snapshot,
                                              const Criteria& criteria, const RunStore* store)
{
    Matches m;
    m.criteria = criteria;
    if (!snapshot)
        return m;
    m.snapshot = snapshot;
    // Parameters only when a condition asks for them: from whole records, or one query.
    bool needParams = false;
    for (const Condition& c : criteria.conditions)
        needParams = needParams || c.key != u"tag";
    QHash<qint64, QJsonObject> params;
    if (needParams) {
        if (snapshot->complete) {
            for (const RunTreeModel::Group& g : snapshot->groups)
                for (const RunTreeModel::RunRow& r : g.runs)
                    params.insert(r.record.id, QJsonObject::fromVariantMap(r.record.params));
        } else if (store) {
            params = store->runParameters(&m.error);
        }
    }
    const int n = int(snapshot->groups.size());
    m.groups.resize(n);
    m.runs.resize(n);
    for (int gi = 0; gi < n; ++gi) {
        const RunTreeModel::Group& g = snapshot->groups[gi];
        const bool experimentMatches = wordsMatch(g.search, criteria.words);
        QVector<char>& runs = m.runs[gi];
        runs.resize(g.runs.size());
        int shown = 0;
        for (int ri = 0; ri < g.runs.size(); ++ri) {
            const RunTreeModel::RunRow& r = g.runs[ri];
            bool ok = !criteria.status || r.record.status == *criteria.status;
            if (ok && !criteria.conditions.isEmpty()) {
                const auto it = params.constFind(r.record.id);
                ok = conditionsHold(r.record, it == params.constEnd() ? nullptr : &*it, criteria.conditions);
            }
            ok = ok && (experimentMatches || criteria.words.isEmpty() ||
                        wordsMatch(RunTreeModel::searchText(r), criteria.words));
            runs[ri] = ok;
            shown += ok ? 1 : 0;
        }
        m.runCount += shown;
        // An experiment matched by its words alone shows even without runs, unless runs are asked for.
        m.groups[gi] = shown > 0 || (experimentMatches && !criteria.status && criteria.conditions.isEmpty());
    }
    return m;
}

const RunTreeModel* RunFilterModel::tree() const
{
    return qobject_cast<const RunTreeModel*>(sourceModel());
}

void RunFilterModel::rematch()
{
    const RunTreeModel* model = tree();
    setMatches(match(model ? model->snapshot() : nullptr, m_criteria, m_store));
}

void RunFilterModel::setFilterText(const QString& text)
{
    const Criteria c = Criteria::parse(text, m_criteria.status);
    if (c == m_criteria)
        return;
    m_criteria = c;
    rematch();
}

void RunFilterModel::setStatusFilter(std::optional<RunStatus> status)
{
    if (status == m_criteria.status)
        return;
    m_criteria = Criteria::parse(m_criteria.text, status);
    rematch();
}

void RunFilterModel::setMatches(Matches matches)
{
    m_criteria = matches.criteria;
    m_matches = std::move(matches);
    // Matches of a snapshot the model is about to show: the model's reset re-filters.
    const RunTreeModel* model = tree();
    if (model && m_matches.snapshot && m_matches.snapshot != model->snapshot() && !m_criteria.isEmpty())
        return;
    // One re-filter of every mapping, not Qt's row-by-row insertions and removals: with thousands
    // of interleaved rows appearing (a filter cleared) those cost seconds in persistent-index updates.
    invalidate();
}

int RunFilterModel::matchingRunCount() const
{
    const RunTreeModel* model = tree();
    if (m_criteria.isEmpty() || !model || m_matches.snapshot != model->snapshot())
        return model ? model->runCount() : 0;
    return m_matches.runCount;
}

bool RunFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (m_criteria.isEmpty())
        return true;
    const RunTreeModel* model = tree();
    if (!model || m_matches.snapshot != model->snapshot())
        return true; // matches of another snapshot: their positions mean nothing here
    if (!sourceParent.isValid())
        return sourceRow < m_matches.groups.size() && m_matches.groups[sourceRow];
    const int gi = sourceParent.row();
    return gi < m_matches.runs.size() && sourceRow < m_matches.runs[gi].size() && m_matches.runs[gi][sourceRow];
}

} // namespace tb::gui
