// trainbench._core: the C++ half of the `trainbench` Python module (python/trainbench/ is the
// public API that wraps it; see its docstrings). Every function here creates the process's
// QCoreApplication on first use (QtRuntime) and scans the plugins once (ModuleRegistry).

#include "ModuleErrors.h"
#include "ModulePlugins.h"
#include "ModuleRegistry.h"
#include "ModuleRun.h"
#include "ModuleStore.h"
#include "QtRuntime.h"

#include <engine/PluginRegistry.h>
#include <store/BuildInfo.h>
#include <store/StoreSchema.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace tb::python;

PYBIND11_MODULE(_core, m)
{
    m.doc() = "The C++ core of the trainbench module (use the trainbench package, not this one).";

    // trainbench.Error is the base of the module's own exceptions.
    static py::exception<std::runtime_error> base(m, "Error", PyExc_Exception);
    py::register_exception<StoreError>(m, "StoreError", base.ptr());
    py::register_exception<ExperimentError>(m, "ExperimentError", base.ptr());

    m.attr("__version__") = TB_APP_VERSION;
    m.def(
        "git_hash", [] { return tb::gitHash().toStdString(); }, "The commit this module was built from.");
    m.def(
        "schema_version", [] { return tb::StoreSchema::latestVersion(); },
        "The newest run-store schema this module reads and writes.");
    m.def(
        "module_file", [] { return ModuleRegistry::moduleFile().toStdString(); },
        "The path of this shared library.");
    m.def("qt_application_created", &QtRuntime::created,
          "Whether the module created the process's QCoreApplication (false: the host program's, or none "
          "yet).");
    m.def("ensure_qt", &QtRuntime::ensure, "Creates the process's QCoreApplication if there is none.");

    m.def(
        "search_paths",
        [] {
            QtRuntime::ensure();
            return PyConvert::strings(ModuleRegistry::searchPaths());
        },
        "The plugin search path, in priority order.");
    m.def("algorithms", &ModulePlugins::algorithms);
    m.def("plugins", &ModulePlugins::plugins);
    m.def("plugin_folders", &ModulePlugins::folders);
    m.def("plugin_notices", &ModulePlugins::notices);

    py::class_<ModuleStore>(m, "Store")
        .def(py::init<const std::string&>(), py::arg("path"))
        .def_property_readonly("path", &ModuleStore::path)
        .def_property_readonly("schema_version", &ModuleStore::schemaVersion)
        .def_property_readonly("closed", &ModuleStore::isClosed)
        .def("close", &ModuleStore::close)
        .def("experiments", &ModuleStore::experiments)
        .def("runs", &ModuleStore::runs, py::arg("experiment") = py::none(), py::arg("info") = false)
        .def("checkpoints", &ModuleStore::checkpoints, py::arg("run") = py::none(),
             py::arg("experiment") = py::none())
        .def("summary_points", &ModuleStore::summaryPoints, py::arg("experiment") = py::none());

    m.def(
        "run",
        [](const std::string& spec, bool isPath, std::optional<std::string> db, const py::object& progress,
           std::optional<int> threads, bool resume, const py::object& notify) {
            ModuleRun::Request request;
            request.spec = spec;
            request.isPath = isPath;
            request.db = std::move(db);
            request.threads = threads;
            request.resume = resume;
            return ModuleRun::run(request, progress, notify);
        },
        py::arg("spec"), py::arg("is_path"), py::arg("db") = py::none(), py::arg("progress") = py::none(),
        py::arg("threads") = py::none(), py::arg("resume") = false, py::arg("notify") = py::none());
}
