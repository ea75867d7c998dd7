// The `ctx` a Python trainer's fit() receives: the run's RunContext as Python sees it.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

namespace tb::python {

class FitSession;

/// What the script calls during fit() (Python class `_trainbench_host.RunContext`):
///  - `ctx.seed`, `ctx.threads`: RunContext::seed() and threads();
///  - `ctx.checkpoint(epoch, loss=None, note="") -> bool`: RunContext::checkpoint(); True =
///    continue, False = return from fit() now (Stop, the time budget, divergence);
///  - `ctx.stopped() -> bool`, `ctx.budget_spent() -> bool`;
///  - `ctx.record(key, value)`: a JSON-like value (None, bool, int, float, str, list, tuple, dict
///    of str keys, NumPy scalars and arrays) stored as a fact of the run;
///  - `ctx.log(message)`: a line of the run's log.
/// Each call but seed, threads and stopped() must come from the thread that runs fit()
/// (RunContext's rule) and from fit() itself, not from the predict() the host calls inside
/// ctx.checkpoint(); none is valid once fit() returned (the script kept ctx). A RuntimeError
/// otherwise. The host's work inside a call runs with the GIL released (HostCall); a failure of
/// it (a reserved fact, the trainer's own predict() failing inside checkpoint()) raises
/// `_trainbench_host.HostError` and fails the run with the host's message.
class ScriptContext {
public:
    explicit ScriptContext(FitSession& session) : m_session(&session) {}

    /// Defines the Python class on @p module (the GIL held).
    static void bind(pybind11::module_& module);

    /// fit() returned: every later call raises RuntimeError.
    void detach() { m_session = nullptr; }

    unsigned long long seed() const;
    int threads() const;
    bool checkpoint(double epoch, const std::optional<double>& loss, const std::string& note);
    bool stopped() const;
    bool budgetSpent() const;
    void record(const std::string& key, pybind11::handle value);
    void log(const std::string& message);

private:
    /// The live session, checked for the thread and for a ctx call in progress when
    /// @p onFitThread; throws std::runtime_error (RuntimeError in Python) naming @p method when
    /// fit() returned, the thread is another or a ctx call is in the host.
    FitSession& live(const char* method, bool onFitThread = true) const;
    /// Runs @p call in the host (HostCall); its exception becomes the session's host error and
    /// HostError in Python.
    template <class Call> void inHost(Call&& call);

    FitSession* m_session;
};

} // namespace tb::python
