#pragma once
/// @file ChartRegistry.h
/// Every chart the workbench and trainbench-cli offer, each registered by its own .cpp file.

#include "ChartEntry.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace tb::charts {

/// The charts of app/charts, found by id or by the view that shows them. A chart's .cpp file
/// registers its entry with a static Registration object; the workbench's views (ChartTabs,
/// SweepResultView) make one tab per entry of their place and trainbench-cli --plot writes the
/// entries exported for the result, so a new chart is one .cpp file here and its test, with no
/// edit elsewhere (docs/contributing.md, "A new chart").
///
/// The registrations run when libtrainbench-charts is loaded (it is a shared library: every
/// object file of it is linked and its static objects constructed before main()). Entries are
/// never removed, so the pointers returned stay valid for the process's life. Thread-safe.
class ChartRegistry {
public:
    /// Every entry, by ChartEntry::order and then id.
    static QList<const ChartEntry*> entries();
    /// The entries shown in @p place, in the same order.
    static QList<const ChartEntry*> entries(ChartPlace place);
    /// The entry with @p id, or nullptr.
    static const ChartEntry* find(const QString& id);
    /// The ids of entries(), in order.
    static QStringList ids();

    /// Adds @p entry. False, with a message naming the id and the fault in @p error, when the id
    /// is empty, malformed or taken, when title, applies or build is missing, or when an exported
    /// entry has no valid fileSuffix; nothing is added then.
    static bool add(ChartEntry entry, QString* error = nullptr);
    /// Registrations that failed at load time (one message each, as add() wrote it; also sent to
    /// qCritical). Empty when every chart registered.
    static QStringList problems();

    /// Registers an entry at load time: `static const ChartRegistry::Registration r{entry};` in
    /// the chart's .cpp file. A refused entry is listed in problems().
    class Registration {
    public:
        explicit Registration(ChartEntry entry);
    };
};

} // namespace tb::charts
