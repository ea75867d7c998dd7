#include "ModulePlugins.h"
#include "ModuleRegistry.h"

#include <engine/PluginRegistry.h>

namespace tb::python {
namespace {

const PluginRegistry& scanned()
{
    py::gil_scoped_release release; // a plugin may take the GIL while it loads
    return ModuleRegistry::get();
}

} // namespace

py::list ModulePlugins::algorithms()
{
    const PluginRegistry& reg = scanned();
    py::list out;
    for (const AlgorithmEntry& e : reg.algorithms()) {
        const AlgorithmInfo& a = e.info;
        py::dict d;
        d["id"] = PyConvert::str(a.id);
        d["name"] = PyConvert::str(a.name);
        d["description"] = PyConvert::str(a.description);
        d["citation"] = PyConvert::str(!a.citation.isEmpty() || !e.plugin ? a.citation : e.plugin->citation);
        d["plugin_id"] = PyConvert::str(e.plugin ? e.plugin->id : QString());
        d["plugin_name"] = PyConvert::str(e.plugin ? e.plugin->name : QString());
        d["plugin_version"] = PyConvert::str(e.plugin ? e.plugin->version : QString());
        d["plugin_file"] = PyConvert::str(e.plugin ? e.plugin->filePath : QString());
        d["family"] = PyConvert::str(e.plugin ? e.plugin->family : QString());
        QStringList tasks;
        if (a.classification)
            tasks << QStringLiteral("classification");
        if (a.regression)
            tasks << QStringLiteral("regression");
        d["tasks"] = PyConvert::strings(tasks);
        d["sparse_inputs"] = py::bool_(e.sparseInput);
        d["schema"] = PyConvert::json(a.schema.toJson());
        out.append(d);
    }
    return out;
}

py::list ModulePlugins::plugins()
{
    const PluginRegistry& reg = scanned();
    py::list out;
    for (const auto& s : reg.plugins()) {
        py::dict d;
        d["file"] = PyConvert::str(s->filePath);
        d["id"] = PyConvert::str(s->id);
        d["name"] = PyConvert::str(s->name);
        d["version"] = PyConvert::str(s->version);
        d["family"] = PyConvert::str(s->family);
        d["citation"] = PyConvert::str(s->citation);
        d["description"] = PyConvert::str(s->description);
        d["api_version"] = py::int_(s->apiVersion);
        d["state"] = PyConvert::str(s->stateName());
        d["error"] = PyConvert::str(s->error);
        QStringList ids;
        for (const AlgorithmInfo& a : s->algorithms)
            ids << a.id;
        d["algorithms"] = PyConvert::strings(ids);
        d["data_sources"] = PyConvert::strings(s->dataSources);
        d["replaces"] = PyConvert::strings(s->replaces);
        py::dict renamed;
        for (auto it = s->renamedAlgorithms.begin(); it != s->renamedAlgorithms.end(); ++it)
            renamed[PyConvert::str(it.key())] = PyConvert::str(it.value());
        d["renamed_algorithms"] = renamed;
        out.append(d);
    }
    return out;
}

py::list ModulePlugins::folders()
{
    const PluginRegistry& reg = scanned();
    py::list out;
    for (const PluginFolder& f : reg.folders()) {
        py::dict d;
        d["path"] = PyConvert::str(f.path);
        d["state"] = PyConvert::str(f.stateName());
        d["problem"] = PyConvert::str(f.problem);
        out.append(d);
    }
    return out;
}

py::list ModulePlugins::notices()
{
    return PyConvert::strings(scanned().notices());
}

} // namespace tb::python
