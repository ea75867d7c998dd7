#pragma once
/// @file MemoryCheck.h
/// Each trainer's predicted working memory set against the memory this process may use, before
/// a run starts: a network too large to allocate is bad input, refused with the bytes it needs
/// and the parameter that makes it so, never an allocation that ends in std::bad_alloc.

#include "CostPrediction.h"

#include <data/MemoryBudget.h>

#include <QList>
#include <QString>
#include <QVariantMap>

namespace tb {

class PluginRegistry;

/// The check behind ExperimentRunner's refusal (before any run of an experiment starts) and
/// Runner's (before one run's fit()). A trainer states its predicted peak working memory as
/// "memory_bytes" in Trainer::predictCost(); the check compares it, times the runs that train
/// at once, with data::MemoryBudget::available() — physical memory, cgroup and rlimit headroom,
/// TRAINBENCH_MEMORY_LIMIT — taken after the data are loaded. Trainers that state no memory are
/// not checked.
///
/// The parameter that sizes the memory is found by the host, not declared: each parameter the
/// configuration sets away from its default is put back to its default, one at a time, and the
/// prediction asked again; those whose default would fit are named, with their value and what the
/// default would need. When none does, the data's shape is named. All functions are thread-safe
/// once the registry has been scanned; call them inside the TBB arena the runs will use (some
/// predictions depend on its thread count).
class MemoryCheck {
public:
    /// A prediction counts the buffers a trainer allocates; what the allocator and the libraries
    /// add on top (glibc's rounding and arenas, Eigen's temporaries, pages of 4 KiB or 2 MiB)
    /// grows with them. The check asks for the prediction times this margin: on the example
    /// experiments' shapes the measured peaks reach 1.11 × the prediction (tst_cli_memory, which
    /// holds every built-in plugin to it; bench/README.md, "Memory predictions").
    static constexpr double kAllocatorMargin = 1.15;

    /// One configuration of an experiment: what may be trained, and how many such runs train in
    /// this process at once (noise-sweep cells, sweep.cells_at_once).
    struct Demand {
        QString label;        ///< as the experiment names it, e.g. "Adam" or "Adam lr=0.01"
        QString algorithmId;
        QVariantMap params;   ///< as given (normalised here)
        ProblemShape shape;   ///< the training set's
        int atOnce = 1;       ///< ≥ 1
    };

    /// The refusal of the first demand whose prediction does not fit, empty when all fit (or
    /// state no memory, or cannot be predicted: invalid parameters are refused elsewhere).
    static QString refusal(const PluginRegistry& registry, const QList<Demand>& demands);

    /// The refusal of @p demand given its @p prediction (from Trainer::predictCost()), empty when
    /// it fits or states no memory.
    static QString refusal(const PluginRegistry& registry, const Demand& demand, const CostPrediction& prediction);
    /// The same against @p limit, read once by the caller (data::MemoryBudget::available() reads
    /// /proc and /sys files: a tuning's 200 demands read them once, not 200 times).
    static QString refusal(const PluginRegistry& registry, const Demand& demand, const CostPrediction& prediction,
                           const data::MemoryBudget::Limit& limit);

    /// Sparse inputs (@p shape.isSparse()) for an algorithm that takes dense inputs only are made
    /// dense for it: true then. False for dense data and for algorithms that take sparse inputs.
    static bool needsDensifying(const PluginRegistry& registry, const QString& algorithmId, const ProblemShape& shape);

    /// The shape @p algorithmId trains on: @p shape, made dense (nonZeros 0) when it needs densifying.
    static ProblemShape shapeSeenBy(const PluginRegistry& registry, const QString& algorithmId, ProblemShape shape);

    /// The refusal when the dense copy of sparse data (@p denseBytes, all sets it trains and is
    /// evaluated on), @p atOnce times, does not fit in the memory available: names the algorithm,
    /// the bytes, the limit and the algorithms that take the data as it is. Empty when it fits.
    static QString densifyRefusal(const PluginRegistry& registry, const QString& label, const QString& algorithmId,
                                  const ProblemShape& shape, std::uint64_t denseBytes, int atOnce = 1);

    /// Ids of the algorithms that take sparse inputs as they are and handle @p task, sorted.
    static QStringList sparseAlgorithms(const PluginRegistry& registry, Task task);
};

} // namespace tb
