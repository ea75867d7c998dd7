#include "FitSession.h"

namespace tb::python {

void FitSession::begin()
{
    m_threadId = PyThread_get_thread_ident();
}

void FitSession::leavePython()
{
    m_inPython = false;
    // A StopTraining raised but not yet delivered (the script returned, or called the host,
    // before its next bytecode) must not reach the host's code on this thread, a predict() or a
    // later run: withdrawn here, with the GIL held, so the watcher cannot raise another after it.
    if (m_threadId != 0)
        PyThreadState_SetAsyncExc(m_threadId, nullptr);
}

bool FitSession::raiseInPython(pybind11::handle exception)
{
    if (!m_inPython || m_threadId == 0)
        return false;
    return PyThreadState_SetAsyncExc(m_threadId, exception.ptr()) > 0;
}

bool FitSession::onFitThread() const
{
    return PyThread_get_thread_ident() == m_threadId;
}

} // namespace tb::python
