#include "StopWatcher.h"

#include "FitSession.h"
#include "PythonRuntime.h"

#include <chrono>
#include <optional>

namespace py = pybind11;

namespace tb::python {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr auto kRepeat = std::chrono::milliseconds(100);

} // namespace

StopWatcher::StopWatcher(FitSession& session, StopToken stop) : m_session(session), m_stop(stop)
{
    if (m_stop.stopPossible())
        m_thread = std::thread([this] { watch(); });
}

StopWatcher::~StopWatcher()
{
    {
        const std::lock_guard lock(m_mutex);
        m_done = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void StopWatcher::watch()
{
    std::unique_lock lock(m_mutex);
    std::optional<std::chrono::steady_clock::time_point> last; // when StopTraining was last raised
    while (!m_wake.wait_for(lock, kPoll, [this] { return m_done; })) {
        const auto now = std::chrono::steady_clock::now();
        if (!m_stop.stopRequested() || (last && now - *last < kRepeat))
            continue;
        // The GIL is taken without this lock held: the fit thread ends the watch (the destructor)
        // only after releasing the GIL, and takes the lock then.
        lock.unlock();
        bool raised = false;
        {
            py::gil_scoped_acquire gil;
            raised = m_session.raiseInPython(PythonRuntime::instance().stopTraining());
        }
        lock.lock();
        if (raised) {
            ++m_raised;
            last = now;
        }
    }
}

} // namespace tb::python
