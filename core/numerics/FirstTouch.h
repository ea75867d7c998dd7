#pragma once
/// @file FirstTouch.h
/// Faults in fresh memory in pieces, polling Stop between them.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstddef>

namespace tb::num {

/// Writes one byte of every 4 KiB page of the @p bytes at @p data, in pieces of 4 MiB on the
/// arena's threads, and calls @p stopped() before each piece; returns false when it did stop.
/// The bytes written are garbage to be overwritten: call it on memory about to be filled.
///
/// Why: a large output filled in row blocks faults in its pages during its first block — and a
/// row block of a column-major matrix touches every column, so it faults in the whole matrix
/// at once. Where transparent huge pages back the allocation (glibc.malloc.hugetlb=1, which
/// ProcessSetup sets, or a system with THP "always"), each fault is the kernel zeroing 2 MiB,
/// and on a virtual machine that is slower still: BPLS's 20,000 × 1,500 activations (240 MB)
/// took 0.5–0.7 s of CPU time in one unpolled block, past Stop's 200 ms (tst_conformance,
/// stopWithin200ms). Touched here first, the same faults are paid in 4 MiB pieces that Stop can
/// end between; memory already resident costs one write per page.
template <class Stopped>
bool touchPolled(void* data, std::size_t bytes, Stopped&& stopped)
{
    constexpr std::size_t kPiece = std::size_t(4) << 20, kPage = 4096;
    volatile char* const p = static_cast<volatile char*>(data);
    const std::size_t pieces = (bytes + kPiece - 1) / kPiece;
    std::atomic<bool> halted{false};
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pieces, 1), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) {
            if (halted.load(std::memory_order_relaxed) || stopped()) {
                halted.store(true, std::memory_order_relaxed);
                return;
            }
            const std::size_t to = std::min(bytes, (i + 1) * kPiece);
            for (std::size_t b = i * kPiece; b < to; b += kPage)
                p[b] = 0;
        }
    });
    return !halted.load();
}

} // namespace tb::num
