// Stop for a Python trainer that does not poll: a thread that raises StopTraining in fit().
#pragma once

#include <trainbench/StopToken.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace tb::python {

class FitSession;

/// While one fit() runs, polls the run's stop token every 20 ms; once it fires, takes the GIL and
/// raises StopTraining in the fit thread (PyThreadState_SetAsyncExc) if the script's own code is
/// running there (FitSession::inPython()) — at once, then every 100 ms while fit() goes on (a
/// bare `except:` that swallowed it delays Stop, it does not prevent it). Python delivers it at
/// the script's next bytecode: a script blocked in one long C call (time.sleep(), one huge
/// library call) sees it when that call returns.
///
/// Construct it before the fit thread takes the GIL and destroy it after the thread released it
/// (the destructor joins the watcher, which may be waiting for the GIL).
class StopWatcher {
public:
    /// Watches @p stop for @p session (its stopTraining exception from PythonRuntime). No thread
    /// when the token can never fire.
    StopWatcher(FitSession& session, StopToken stop);
    ~StopWatcher();
    StopWatcher(const StopWatcher&) = delete;
    StopWatcher& operator=(const StopWatcher&) = delete;

    /// How often StopTraining was raised so far.
    int raised() const { return m_raised.load(); }

private:
    void watch();

    FitSession& m_session;
    StopToken m_stop;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_done = false;
    std::atomic<int> m_raised{0};
    std::thread m_thread;
};

} // namespace tb::python
