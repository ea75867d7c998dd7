// The process's one CPython interpreter as the Python trainer host uses it: started once (or
// borrowed from the Python process that loaded the plugin), never finalised, its GIL free for any
// thread to take, and the lock that lets one Python trainer train at a time.
#pragma once

#include <pybind11/pybind11.h>

#include <trainbench/StopToken.h>

#include <QString>
#include <mutex>

namespace tb::python {

/// The interpreter and the host's own Python objects (module `_trainbench_host`: StopTraining,
/// HostError, RunContext).
///
/// One interpreter per process. When Py_IsInitialized() is already true — the plugin was loaded
/// inside a Python process, e.g. by the `trainbench` Python module — the host uses that
/// interpreter and never finalises it; its caller must not hold the GIL while it runs
/// experiments (the module releases it), or the trainers' threads could never take it.
/// Otherwise the host makes libpython's symbols global (dlopen of its SONAME with RTLD_GLOBAL:
/// QPluginLoader loaded the plugin, and with it libpython, RTLD_LOCAL, and NumPy's extension
/// modules do not link libpython), starts the interpreter once — without its signal handlers
/// (Ctrl-C stays the application's), without the current folder on sys.path — sends Python's
/// sys.stdout to stderr (the CLI's stdout carries its results and JSON) and releases the GIL
/// (PyEval_SaveThread), so that any thread takes it with pybind11::gil_scoped_acquire. It is
/// never finalised: a plugin that hosts Python is never unloaded (linked -z nodelete), and the
/// host's Python objects are never released at exit.
///
/// Thread-safety: instance() and lockForFit() from any thread; the handles need the GIL.
class PythonRuntime {
public:
    /// The runtime; the first call starts (or adopts) the interpreter. Throws std::runtime_error,
    /// naming the library or the Python error, when Python cannot start.
    static PythonRuntime& instance();

    /// Whether this process's interpreter was started here (false: it belongs to the Python
    /// process that loaded the plugin).
    bool ownsInterpreter() const { return m_owns; }

    /// `_trainbench_host.StopTraining`, a BaseException (so that a trainer's `except Exception`
    /// does not swallow it): raised asynchronously in a fit() that does not return after Stop.
    pybind11::handle stopTraining() const { return m_stopTraining; }
    /// `_trainbench_host.HostError`, a BaseException: raised in the trainer when a call into the
    /// host failed (its predict() inside ctx.checkpoint(), a reserved fact); the run fails with
    /// the host's message whatever the trainer does with it.
    pybind11::handle hostError() const { return m_hostError; }

    /// Takes the process's Python training lock for one fit(), polling @p stop every 20 ms while
    /// another run holds it; returns an unlocked lock when Stop came first.
    ///
    /// Python trainers train one at a time per process: all of them share one GIL, so two would
    /// only take turns, and what they set for the process (torch.set_num_threads(),
    /// numpy's error state, the random module) would leak from one run into the other. C++
    /// trainers keep training beside them. Sub-interpreters do not help: in Python 3.11 they
    /// share one GIL, and NumPy and PyTorch do not support them. Recursive: a run nested on the
    /// same thread (a worker that picks up another run while it waits inside a checkpoint) takes
    /// it again instead of waiting for itself.
    std::unique_lock<std::recursive_timed_mutex> lockForFit(const StopToken& stop);

private:
    PythonRuntime();
    /// The host's module and its objects; the GIL held.
    void defineHostModule();

    bool m_owns = false;
    // Never released: the interpreter outlives every user of them (see the class comment).
    pybind11::handle m_module, m_stopTraining, m_hostError;
    std::recursive_timed_mutex m_fitMutex;
};

} // namespace tb::python
