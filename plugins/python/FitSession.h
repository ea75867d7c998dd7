// One fit() of a Python trainer as its parts share it: the trainer (PythonTrainer), the ctx
// object the script calls (ScriptContext), and the thread that delivers Stop (StopWatcher).
#pragma once

#include <pybind11/pybind11.h>

#include <trainbench/RunContext.h>

#include <QString>
#include <exception>
#include <optional>

namespace tb::python {

/// The state of one fit() call. Whether the fit thread is running the script's Python code
/// (inPython()) decides whether Stop may be raised in it as an exception: it is while the
/// script runs, and it is not while control is in the host (inside a ctx call, and in the
/// trainer's predict() that the host calls from ctx.checkpoint()), so that StopTraining can only
/// ever reach the script's own code. Every method but the constructor needs the GIL, which is
/// what makes the flag and the pending exception consistent: the watcher raises only with the
/// GIL held and the flag set, and leavePython() clears what it raised with the GIL held.
class FitSession {
public:
    /// A session of @p algorithmId (e.g. "python.ridge", the start of every message) on @p ctx.
    FitSession(QString algorithmId, RunContext& ctx) : m_algorithmId(std::move(algorithmId)), m_ctx(&ctx) {}

    /// Records the calling thread as the fit thread (the one whose Python code Stop interrupts).
    void begin();
    /// The script's code runs from here: Stop may be raised in it.
    void enterPython() { m_inPython = true; }
    /// Control leaves the script's code: no Stop is raised in it any more, and one raised but not
    /// yet delivered is withdrawn (PyThreadState_SetAsyncExc(thread, NULL)).
    void leavePython();
    bool inPython() const { return m_inPython; }
    /// Whether a ctx call is in the host now (HostCall): the script's predict(), which the host
    /// calls from ctx.checkpoint(), must not call ctx in turn.
    bool inHost() const { return m_inHost; }
    void setInHost(bool inHost) { m_inHost = inHost; }
    /// Raises @p exception (StopTraining) in the fit thread if its Python code is running (the
    /// watcher, with the GIL). True when it was raised.
    bool raiseInPython(pybind11::handle exception);
    /// Whether the calling thread is the fit thread.
    bool onFitThread() const;

    /// The run's context while fit() runs; nullptr after end().
    RunContext* context() const { return m_ctx; }
    /// fit() returned: the ctx object the script may still hold refuses every call from now on.
    void end() { m_ctx = nullptr; }

    const QString& algorithmId() const { return m_algorithmId; }
    /// Checkpoints the script reported.
    int checkpoints() const { return m_checkpoints; }
    void countCheckpoint() { ++m_checkpoints; }

    /// A call into the host failed (its exception, kept whatever the script does with the
    /// HostError it sees): fit() fails with it.
    void setHostError(std::exception_ptr e)
    {
        if (!m_hostError)
            m_hostError = std::move(e);
    }
    std::exception_ptr hostError() const { return m_hostError; }

private:
    QString m_algorithmId;
    RunContext* m_ctx;
    unsigned long m_threadId = 0;
    bool m_inPython = false;
    bool m_inHost = false;
    int m_checkpoints = 0;
    std::exception_ptr m_hostError;
};

/// For the duration of a call into the host from the script (a ctx method): control leaves the
/// script's code (FitSession::leavePython()) and the GIL is released, so that the host's work —
/// the evaluation at a checkpoint, which calls the trainer's predict() on this thread and takes
/// the GIL again there — never holds up another thread's Python, and Stop is never raised in it.
/// Constructed and destroyed with the GIL held.
class HostCall {
public:
    explicit HostCall(FitSession& session) : m_session(session)
    {
        m_session.leavePython();
        m_session.setInHost(true);
        m_release.emplace();
    }
    ~HostCall()
    {
        m_release.reset();
        m_session.setInHost(false);
        m_session.enterPython();
    }
    HostCall(const HostCall&) = delete;
    HostCall& operator=(const HostCall&) = delete;

private:
    FitSession& m_session;
    std::optional<pybind11::gil_scoped_release> m_release;
};

} // namespace tb::python
