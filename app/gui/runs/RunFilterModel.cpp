#include "RunFilterModel.h"

#include "RunTreeModel.h"

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

QString valueText(const QVariant& v)
{
    if (v.typeId() == QMetaType::QVariantList || v.typeId() == QMetaType::QStringList) {
        QStringList parts;
        for (const QVariant& x : v.toList())
            parts << x.toString();
        return parts.join(QLatin1Char(','));
    }
    if (v.typeId() == QMetaType::Bool)
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return v.toString();
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

} // namespace

void RunFilterModel::setFilterText(const QString& text)
{
    const QString t = text.trimmed().toLower();
    if (t == m_text)
        return;
    m_text = t;
    // "lr < 0.01" and "lr<0.01" alike: operators glue to their key and value.
    static const QRegularExpression spaced(QStringLiteral("\\s*(<=|>=|!=|=|<|>)\\s*"));
    static const QRegularExpression condition(QStringLiteral("^([a-z_][a-z0-9_.]*)(<=|>=|!=|=|<|>)(.+)$"),
                                              QRegularExpression::CaseInsensitiveOption);
    m_words.clear();
    m_conditions.clear();
    for (const QString& token : QString(text.trimmed()).replace(spaced, QStringLiteral("\\1")).split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const auto m = condition.match(token);
        if (m.hasMatch())
            m_conditions << Condition{m.captured(1), m.captured(2), m.captured(3)};
        else
            m_words << token.toLower();
    }
    invalidateRowsFilter();
}

bool RunFilterModel::conditionsHold(const QModelIndex& run) const
{
    if (m_conditions.isEmpty())
        return true;
    const QVariantMap params = run.data(RunTreeModel::ParamsRole).toMap();
    const QStringList tags = run.data(RunTreeModel::TagsRole).toStringList();
    for (const Condition& c : m_conditions) {
        if (c.key == u"tag") {
            const bool tagged = tags.contains(c.value, Qt::CaseInsensitive);
            if ((c.op == u"=" && !tagged) || (c.op == u"!=" && tagged))
                return false;
            continue;
        }
        if (!params.contains(c.key) || !compare(valueText(params.value(c.key)), c.op, c.value))
            return false;
    }
    return true;
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
    const QString text = sourceIndex.data(RunTreeModel::SearchTextRole).toString();
    for (const QString& w : m_words)
        if (!text.contains(w))
            return false;
    return true;
}

bool RunFilterModel::runAccepted(const QModelIndex& run, bool experimentMatches) const
{
    if (m_status && run.data(RunTreeModel::StatusRole).toInt() != int(*m_status))
        return false;
    if (!conditionsHold(run))
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
    if (experimentMatches && !m_status && m_conditions.isEmpty())
        return true;
    const int n = src->rowCount(idx);
    for (int i = 0; i < n; ++i)
        if (runAccepted(src->index(i, 0, idx), experimentMatches))
            return true;
    return false;
}

} // namespace tb::gui
