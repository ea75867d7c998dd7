#include "MemoryCheck.h"

#include "PluginRegistry.h"

#include <data/MemoryBudget.h>

#include <cmath>

namespace tb {
namespace {

std::uint64_t toBytes(double bytes)
{
    return bytes >= 1.8e19 ? UINT64_MAX : std::uint64_t(std::ceil(bytes));
}

QString bytesText(double bytes)
{
    return data::MemoryBudget::formatBytes(toBytes(bytes));
}

/// The parameters of @p d set away from their defaults whose default alone would bring the
/// prediction within @p limit: "hidden = [100000, 100000] (the default [64] needs 12 MiB)".
QStringList culprits(const PluginRegistry& registry, const MemoryCheck::Demand& d, double limitBytes)
{
    QStringList out;
    const AlgorithmEntry* entry = registry.algorithm(d.algorithmId);
    if (!entry)
        return out;
    const std::optional<QVariantMap> given = entry->info.schema.normalise(d.params, nullptr);
    if (!given)
        return out;
    const QVariantMap defaults = entry->info.schema.defaults();
    for (auto it = given->begin(); it != given->end(); ++it) {
        const QVariant fallback = defaults.value(it.key());
        if (!fallback.isValid() || fallback == it.value())
            continue;
        QVariantMap changed = *given;
        changed.insert(it.key(), fallback);
        const double smaller = CostPrediction::forAlgorithm(registry, d.algorithmId, changed, d.shape).memoryBytes();
        if (std::isnan(smaller) || MemoryCheck::kAllocatorMargin * smaller * d.atOnce > limitBytes)
            continue;
        out << QStringLiteral("%1 = %2 (its default, %3, needs %4)")
                   .arg(it.key(), ParamSchema::describe(it.value()), ParamSchema::describe(fallback), bytesText(smaller));
    }
    return out;
}

} // namespace

QString MemoryCheck::refusal(const PluginRegistry& registry, const Demand& demand, const CostPrediction& prediction)
{
    const double each = prediction.memoryBytes();
    if (std::isnan(each))
        return {};
    // Before every run: a reading up to a second old serves a run far smaller than it.
    return refusal(registry, demand, prediction,
                   data::MemoryBudget::availableFor(toBytes(kAllocatorMargin * each * std::max(1, demand.atOnce))));
}

QString MemoryCheck::refusal(const PluginRegistry& registry, const Demand& demand, const CostPrediction& prediction,
                             const data::MemoryBudget::Limit& limit)
{
    const double each = prediction.memoryBytes();
    if (std::isnan(each))
        return {};
    const int atOnce = std::max(1, demand.atOnce);
    const double total = each * atOnce;
    if (toBytes(kAllocatorMargin * total) <= limit.bytes)
        return {};
    QString need = QStringLiteral("%1 needs %2 of working memory for %3")
                       .arg(demand.algorithmId, bytesText(each), CostPrediction::describeShape(demand.shape));
    if (atOnce > 1)
        need += QStringLiteral(", %1 runs at once %2").arg(atOnce).arg(bytesText(total));
    if (toBytes(total) <= limit.bytes)
        need += QStringLiteral(" (%1 with the %2 % the allocator adds on top)")
                    .arg(bytesText(kAllocatorMargin * total))
                    .arg(qRound(100 * (kAllocatorMargin - 1)));
    const QStringList causes = culprits(registry, demand, double(limit.bytes));
    const QString cause =
        causes.isEmpty()
            ? QStringLiteral("the data's size decides it (%1 rows × %2 inputs → %3 outputs)")
                  .arg(demand.shape.rows)
                  .arg(demand.shape.inputs)
                  .arg(demand.shape.outputs)
            : QStringLiteral("sized by %1").arg(causes.join(QStringLiteral("; ")));
    return QStringLiteral("%1: %2, but only %3 is available to this process (%4); %5. Not started: make it smaller "
                          "or free memory (TRAINBENCH_MEMORY_LIMIT sets a lower cap, never a higher one)")
        .arg(demand.label.isEmpty() ? demand.algorithmId : demand.label, need,
             data::MemoryBudget::formatBytes(limit.bytes), limit.source, cause);
}

QString MemoryCheck::refusal(const PluginRegistry& registry, const QList<Demand>& demands)
{
    const data::MemoryBudget::Limit limit = data::MemoryBudget::available();
    for (Demand d : demands) {
        if (needsDensifying(registry, d.algorithmId, d.shape)) {
            // Before the first run, the training set's dense copy (the test set's comes on top;
            // Runner checks the whole before each run).
            const std::uint64_t denseBytes =
                data::MemoryBudget::bytesOf(std::uint64_t(d.shape.rows), std::uint64_t(d.shape.inputs));
            if (const QString r = densifyRefusal(registry, d.label, d.algorithmId, d.shape, denseBytes, d.atOnce);
                !r.isEmpty())
                return r;
            d.shape.nonZeros = 0;
        }
        const CostPrediction prediction = CostPrediction::forAlgorithm(registry, d.algorithmId, d.params, d.shape);
        if (const QString r = refusal(registry, d, prediction, limit); !r.isEmpty())
            return r;
    }
    return {};
}

bool MemoryCheck::needsDensifying(const PluginRegistry& registry, const QString& algorithmId, const ProblemShape& shape)
{
    if (!shape.isSparse())
        return false;
    const AlgorithmEntry* entry = registry.algorithm(algorithmId);
    return !entry || !entry->sparseInput;
}

ProblemShape MemoryCheck::shapeSeenBy(const PluginRegistry& registry, const QString& algorithmId, ProblemShape shape)
{
    if (needsDensifying(registry, algorithmId, shape))
        shape.nonZeros = 0;
    return shape;
}

QStringList MemoryCheck::sparseAlgorithms(const PluginRegistry& registry, Task task)
{
    QStringList out;
    for (const AlgorithmEntry& a : registry.algorithms())
        if (a.sparseInput && (task == Task::Classification ? a.info.classification : a.info.regression))
            out << a.info.id;
    out.sort();
    return out;
}

QString MemoryCheck::densifyRefusal(const PluginRegistry& registry, const QString& label, const QString& algorithmId,
                                    const ProblemShape& shape, std::uint64_t denseBytes, int atOnce)
{
    atOnce = std::max(1, atOnce);
    const double total = double(denseBytes) * atOnce;
    const data::MemoryBudget::Limit limit = data::MemoryBudget::available();
    if (toBytes(total) <= limit.bytes)
        return {};
    const QStringList takers = sparseAlgorithms(registry, shape.task);
    QString need = QStringLiteral("%1 takes dense inputs only, and making the sparse %2×%3 inputs (%4 non-zeros) dense "
                                  "needs %5")
                       .arg(algorithmId)
                       .arg(shape.rows)
                       .arg(shape.inputs)
                       .arg(shape.nonZeros)
                       .arg(bytesText(double(denseBytes)));
    if (atOnce > 1)
        need += QStringLiteral(", %1 runs at once %2").arg(atOnce).arg(bytesText(total));
    return QStringLiteral("%1: %2, but only %3 is available to this process (%4). Not started: %5")
        .arg(label.isEmpty() ? algorithmId : label, need, data::MemoryBudget::formatBytes(limit.bytes), limit.source,
             takers.isEmpty() ? QStringLiteral("no algorithm here takes sparse inputs as they are")
                              : QStringLiteral("these algorithms take the data as it is: %1").arg(takers.join(QStringLiteral(", "))));
}

} // namespace tb
