#pragma once
/// @file StopToken.h
/// The one way to ask long work to stop: a StopSource owns the flag, StopTokens poll it.
/// No Qt: the numerical kernels (core/numerics, core/training) take a StopToken too.

#include <atomic>

namespace tb {

class StopToken;

/// Owns a stop flag. A source may have a parent: it then reports a stop when either it or any
/// ancestor was asked to stop (an experiment's Stop reaches every run; a run's own reasons —
/// time budget, divergence — stop that run only).
///
/// Thread-safety: requestStop(), stopRequested() and token() may be called from any thread
/// at any time. The parent must outlive the child; a source must outlive its tokens.
class StopSource {
public:
    StopSource() = default;
    explicit StopSource(const StopSource* parent) : m_parent(parent) {}
    StopSource(const StopSource&) = delete;
    StopSource& operator=(const StopSource&) = delete;

    /// Asks everything that polls this source, or a child of it, to stop. Idempotent.
    void requestStop() noexcept { m_stop.store(true, std::memory_order_relaxed); }
    /// True once this source or an ancestor was asked to stop.
    bool stopRequested() const noexcept
    {
        return m_stop.load(std::memory_order_relaxed) || (m_parent && m_parent->stopRequested());
    }
    /// Clears this source's own request (not its parent's), e.g. before the next experiment.
    void reset() noexcept { m_stop.store(false, std::memory_order_relaxed); }

    /// A token that polls this source.
    inline StopToken token() const noexcept;

private:
    std::atomic<bool> m_stop{false};
    const StopSource* m_parent = nullptr;
};

/// A cheap, copyable view of a StopSource. A default-constructed token never stops.
///
/// Long work polls stopRequested() between units of work small enough that a requested stop
/// takes effect within 200 ms (the Trainer::fit() contract); once it returns true the work
/// returns as soon as it can and says so (a result flag, a status), never throws for it.
class StopToken {
public:
    StopToken() = default;
    explicit StopToken(const StopSource* source) noexcept : m_source(source) {}

    bool stopRequested() const noexcept { return m_source && m_source->stopRequested(); }
    /// False for a default token: work may skip its polling entirely.
    bool stopPossible() const noexcept { return m_source != nullptr; }

private:
    const StopSource* m_source = nullptr;
};

inline StopToken StopSource::token() const noexcept
{
    return StopToken(this);
}

} // namespace tb
