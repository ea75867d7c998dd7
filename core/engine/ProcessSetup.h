#pragma once
/// @file ProcessSetup.h
/// Process-wide settings the executables apply first thing in main().

namespace tb {

/// Process-wide set-up that must happen before anything else runs.
class ProcessSetup {
public:
    /// Makes glibc's malloc back large allocations with transparent huge pages, by restarting
    /// the process once with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 added (glibc reads its
    /// tunables only at start-up). Call it first in main(), before any thread or Qt object
    /// exists; it returns when nothing needs doing (already set, set to something else by the
    /// user, TRAINBENCH_NO_HUGEPAGES set, running under valgrind, not Linux/glibc) or when the
    /// restart fails. The restarted process keeps its name (it execs the binary's own path, not
    /// /proc/self/exe, which would name it "exe" for ps, pgrep, kill and the OOM log).
    ///
    /// Why: training touches hundreds of megabytes of fresh memory (a transposed or float copy
    /// of the inputs, activations of every row at a checkpoint). With 4 KiB pages every first
    /// touch is a page fault, and on virtual machines a fault costs microseconds: Adam's first
    /// minibatches on Fashion-MNIST waited 0.6 s for its input copy, a BPLS fit spent 0.3 s in
    /// faults. With 2 MiB pages there are 512 times fewer (bench/README.md, "Huge pages").
    static void useHugePages(char** argv);
};

} // namespace tb
