#pragma once
/// @file FlushSubnormals.h
/// A scope in which the calling thread's floating-point unit flushes subnormal numbers to zero.

namespace tb::num {

/// While an instance lives, arithmetic on the constructing thread treats subnormal operands as
/// zero and rounds subnormal results to zero (x86's MXCSR flags DAZ and FTZ); the destructor
/// restores the thread's previous mode exactly, exceptions included. Subnormals are the numbers
/// below the smallest normal one (float: 1.18·10⁻³⁸, double: 2.23·10⁻³⁰⁸); on x86 an operation
/// that reads or writes one can take ~100 times as long as a normal one.
///
/// Why it exists: float32 optimiser state decays into that range (Adam's m shrinks by β₁ = 0.9 at
/// every step whose gradient is zero: in ~800 steps from 10⁻⁴; Fashion-MNIST's border pixels are zero
/// in most images), and the batch-1 update then ran at half speed (docs/gradient.md).
///
/// The mode is per thread: tasks that this thread hands to running TBB workers do not get it, so a
/// scope must cover only work that runs on its own thread (BasicOptimizer's updates). The flags are
/// defined by the x86 architecture and give the same results on every x86-64 CPU. On other
/// architectures the scope does nothing and active() says so.
///
/// Not copyable; construct and destroy on the same thread.
class FlushSubnormals {
public:
    FlushSubnormals() noexcept;
    ~FlushSubnormals();

    FlushSubnormals(const FlushSubnormals&) = delete;
    FlushSubnormals& operator=(const FlushSubnormals&) = delete;

    /// Whether this build can flush subnormals (x86 with SSE); false means the scope is a no-op.
    static constexpr bool active()
    {
#if defined(__SSE2__)
        return true;
#else
        return false;
#endif
    }

private:
    unsigned m_saved = 0;  // the thread's control word before the scope
};

} // namespace tb::num
