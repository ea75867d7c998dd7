#pragma once
/// @file DetachedCall.h
/// One call into a library that has no cancellation hook, run so that Stop still takes effect
/// within 200 ms.

#include <trainbench/StopToken.h>

#include <QString>
#include <chrono>
#include <functional>

namespace tb::wrap {

/// Runs one library call on a thread of its own, which the caller abandons on Stop.
///
/// LIBLINEAR's train() and LIBSVM's svm_train() cannot be interrupted: they return when their
/// solver has converged, which on large data takes minutes to hours. run() starts the call on a
/// new thread and waits for it on the calling thread (the trainer's fit()), polling the run's
/// stop token every few milliseconds. On Stop it returns Abandoned at once, and the call goes on
/// without a waiter:
///  - the work must own everything it touches (its copy of the problem, its result holder),
///    so that nothing it uses dangles once fit() has returned; what it owns is freed on its own
///    thread when the work ends;
///  - with Abandon::Unwind (the default), the library's next progress message — print(),
///    installed as the library's print hook — throws on that thread, so the call unwinds within
///    one of the library's progress intervals and the thread ends. Destructors in the library's
///    frames run; memory the library took with raw malloc/new in the frames being unwound is not
///    returned (per-row bookkeeping of a few tens of bytes a row; docs/liblinear.md and
///    docs/libsvm.md give the figures);
///  - with Abandon::RunToEnd, the call runs to its normal end, its output discarded, and then
///    frees everything: for library calls whose unwound frames would lose large buffers.
///
/// Text the library prints through print() reaches the caller line by line (onLine, on the
/// calling thread), never stdout.
///
/// Thread-safety: run() may be called from several threads at once; each call has its own
/// thread and state. print() may be called from any thread; output from a thread that run()
/// did not start is discarded (so the libraries stay silent wherever they are called).
class DetachedCall {
public:
    /// What an abandoned call does.
    enum class Abandon {
        Unwind,  ///< throw from its next print(): it ends soon, losing its raw per-call buffers
        RunToEnd ///< finish normally, output discarded: it takes its time, loses nothing
    };

    enum class Outcome {
        Finished, ///< the work returned
        Abandoned ///< Stop came first; the work's thread goes on until it unwinds
    };

    /// Runs @p work on a new thread and blocks until it returns or @p stop fires (polled every
    /// @p poll, default 10 ms; a stop already requested returns Abandoned without starting the
    /// work). Each complete line the work printed through print() is passed to @p onLine without
    /// its newline, on the calling thread; an unterminated last line when the work returns.
    /// @p abandon says what an abandoned call does (default Unwind).
    /// Rethrows the work's exception. Throws std::system_error if no thread can be started.
    static Outcome run(std::function<void()> work, const StopToken& stop,
                       const std::function<void(const QString&)>& onLine, Abandon abandon = Abandon::Unwind,
                       std::chrono::milliseconds poll = std::chrono::milliseconds(10));

    /// The print hook to install in the library (set_print_string_function,
    /// svm_set_print_string_function): appends @p text to the output of the run() whose thread
    /// calls it. On a thread whose run() was abandoned it discards the text, and with
    /// Abandon::Unwind throws an exception of a private type (not a std::exception) that unwinds
    /// the library call up to run()'s thread function.
    static void print(const char* text);

    /// On a work thread: true once its run() was abandoned (false on any other thread).
    static bool abandoned();
    /// On a work thread whose run() was abandoned: unwinds the work like print() does, whatever
    /// the Abandon policy. Work that makes several library calls checks it between them, where
    /// unwinding loses nothing.
    static void throwIfAbandoned();

    /// Threads started by run() that have not ended: running, or abandoned and not yet unwound.
    /// A thread is counted until after the work and everything it owned were destroyed.
    static int liveThreads();
};

} // namespace tb::wrap
