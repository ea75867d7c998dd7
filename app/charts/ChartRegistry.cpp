#include "ChartRegistry.h"

#include <QRegularExpression>
#include <QtGlobal>

#include <algorithm>
#include <list>
#include <memory>
#include <mutex>

namespace tb::charts {

namespace {

struct Store {
    std::mutex mutex;
    std::list<std::unique_ptr<const ChartEntry>> entries; ///< stable addresses
    QStringList problems;
};

// Constructed on first use: the registrations of other object files may run before any static
// of this one.
Store& store()
{
    static Store s;
    return s;
}

bool before(const ChartEntry* a, const ChartEntry* b)
{
    return a->order != b->order ? a->order < b->order : a->id < b->id;
}

} // namespace

std::function<QString(const ChartOptions&)> ChartEntry::fixedTitle(const QString& title)
{
    return [title](const ChartOptions&) { return title; };
}

bool ChartEntry::isExportedFor(const ExperimentResult& result) const
{
    return exportedFor && applies && applies(result) && exportedFor(result);
}

QList<const ChartEntry*> ChartRegistry::entries()
{
    Store& s = store();
    QList<const ChartEntry*> out;
    {
        std::lock_guard lock(s.mutex);
        for (const auto& e : s.entries)
            out << e.get();
    }
    std::stable_sort(out.begin(), out.end(), before);
    return out;
}

QList<const ChartEntry*> ChartRegistry::entries(ChartPlace place)
{
    QList<const ChartEntry*> out = entries();
    out.removeIf([place](const ChartEntry* e) { return e->place != place; });
    return out;
}

const ChartEntry* ChartRegistry::find(const QString& id)
{
    Store& s = store();
    std::lock_guard lock(s.mutex);
    for (const auto& e : s.entries)
        if (e->id == id)
            return e.get();
    return nullptr;
}

QStringList ChartRegistry::ids()
{
    QStringList out;
    for (const ChartEntry* e : entries())
        out << e->id;
    return out;
}

bool ChartRegistry::add(ChartEntry entry, QString* error)
{
    auto fail = [&](const QString& why) {
        if (error)
            *error = QStringLiteral("chart \"%1\": %2").arg(entry.id, why);
        return false;
    };
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9]+(-[a-z0-9]+)*$"));
    static const QRegularExpression suffixPattern(QStringLiteral("^[a-z0-9_-]+$"));
    if (entry.id.isEmpty())
        return fail(QStringLiteral("the id is empty"));
    if (!idPattern.match(entry.id).hasMatch())
        return fail(QStringLiteral("the id must be lower-case letters and digits joined by '-'"));
    if (!entry.title)
        return fail(QStringLiteral("no title"));
    if (!entry.applies)
        return fail(QStringLiteral("no applies() test"));
    if (!entry.build)
        return fail(QStringLiteral("no build function"));
    if (entry.exportedFor && !suffixPattern.match(entry.fileSuffix).hasMatch())
        return fail(QStringLiteral(
                        "exported, but its file suffix \"%1\" is not lower-case letters, digits, '-' and '_'")
                        .arg(entry.fileSuffix));
    Store& s = store();
    std::lock_guard lock(s.mutex);
    for (const auto& e : s.entries)
        if (e->id == entry.id)
            return fail(
                QStringLiteral("the id is taken (by the chart titled \"%1\")").arg(e->title(ChartOptions())));
    s.entries.push_back(std::make_unique<const ChartEntry>(std::move(entry)));
    return true;
}

QStringList ChartRegistry::problems()
{
    Store& s = store();
    std::lock_guard lock(s.mutex);
    return s.problems;
}

ChartRegistry::Registration::Registration(ChartEntry entry)
{
    QString error;
    if (add(std::move(entry), &error))
        return;
    qCritical("trainbench charts: %s", qPrintable(error));
    Store& s = store();
    std::lock_guard lock(s.mutex);
    s.problems << error;
}

} // namespace tb::charts
