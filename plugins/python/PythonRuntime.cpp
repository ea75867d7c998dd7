#include "PythonRuntime.h"

#include "ScriptContext.h"

#include <pybind11/embed.h>

#include <chrono>
#include <dlfcn.h>
#include <stdexcept>

#ifndef TB_PYTHON_SONAME
#error                                                                                                       \
    "TB_PYTHON_SONAME (libpython's SONAME, e.g. libpython3.11.so.1.0) is set by plugins/python/CMakeLists.txt"
#endif

namespace py = pybind11;

namespace tb::python {

PythonRuntime& PythonRuntime::instance()
{
    // Never destroyed: the interpreter is never finalised, and nothing may release Python objects
    // at exit, when the interpreter may be gone (inside a Python process) or its GIL not held.
    static PythonRuntime* runtime = new PythonRuntime();
    return *runtime;
}

PythonRuntime::PythonRuntime()
{
    if (Py_IsInitialized()) {
        // A Python process loaded the plugin (the `trainbench` module): its interpreter, as it is.
        py::gil_scoped_acquire gil;
        defineHostModule();
        return;
    }
    // QPluginLoader loaded the plugin and libpython with it RTLD_LOCAL; NumPy's extension modules
    // do not link libpython and resolve its symbols globally: make them global first.
    if (!dlopen(TB_PYTHON_SONAME, RTLD_NOW | RTLD_GLOBAL))
        throw std::runtime_error(
            std::string("Python could not start: dlopen(\"" TB_PYTHON_SONAME "\") failed: ") + dlerror());
    try {
        // No signal handlers (Ctrl-C is the application's), nothing of the current folder on sys.path.
        py::initialize_interpreter(false, 0, nullptr, false);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("Python could not start: ") + e.what());
    }
    m_owns = true;
    try {
        defineHostModule();
        // The CLI's stdout carries its results (and `list --json`): a trainer's print() goes to stderr.
        py::module_ sys = py::module_::import("sys");
        sys.attr("stdout") = sys.attr("stderr");
    } catch (const py::error_already_set& e) {
        throw std::runtime_error(std::string("Python started but the host's module failed: ") + e.what());
    }
    // From here any thread takes the GIL with gil_scoped_acquire; this one gives it up.
    PyEval_SaveThread();
}

void PythonRuntime::defineHostModule()
{
    static PyModuleDef definition{};
    py::module_ module = py::module_::create_extension_module(
        "_trainbench_host", "The Trainbench host's objects for Python trainers (plugins/python).",
        &definition);
    ScriptContext::bind(module);
    m_stopTraining = PyErr_NewExceptionWithDoc("_trainbench_host.StopTraining",
                                               "Raised in Trainer.fit() when the run was stopped and fit() "
                                               "did not return; derives from BaseException so "
                                               "that `except Exception` does not swallow it. fit() may let "
                                               "it pass: the host marks the run cancelled.",
                                               PyExc_BaseException, nullptr);
    m_hostError = PyErr_NewExceptionWithDoc("_trainbench_host.HostError",
                                            "Raised in Trainer.fit() when a call into the host failed (e.g. "
                                            "predict() inside ctx.checkpoint()); the run "
                                            "fails with the host's message.",
                                            PyExc_BaseException, nullptr);
    if (!m_stopTraining || !m_hostError)
        throw py::error_already_set();
    module.attr("StopTraining") = m_stopTraining;
    module.attr("HostError") = m_hostError;
    py::module_::import("sys").attr("modules")["_trainbench_host"] = module;
    m_module = module.release();
}

std::unique_lock<std::recursive_timed_mutex> PythonRuntime::lockForFit(const StopToken& stop)
{
    std::unique_lock lock(m_fitMutex, std::defer_lock);
    while (!lock.try_lock_for(std::chrono::milliseconds(20)))
        if (stop.stopRequested())
            break;
    return lock;
}

} // namespace tb::python
