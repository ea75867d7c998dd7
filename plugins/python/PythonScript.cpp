#include "PythonScript.h"

#include "PythonTrainer.h"
#include "PythonValues.h"
#include "ScriptSchema.h"

#include <stdexcept>

namespace py = pybind11;

namespace tb::python {
namespace {

/// "class Trainer (line 12)", or "class Trainer" when its line cannot be found.
QString classWhere(py::handle cls)
{
    try {
        const py::tuple lines = py::module_::import("inspect").attr("getsourcelines")(cls);
        return QStringLiteral("class Trainer (line %1)").arg(lines[1].cast<long>());
    } catch (const py::error_already_set&) {
        return QStringLiteral("class Trainer");
    }
}

/// The first non-empty line of docstring @p doc (empty when it is not a string).
QString firstDocLine(py::handle doc)
{
    if (!doc || !PyUnicode_Check(doc.ptr()))
        return {};
    for (const QString& line : QString::fromStdString(doc.cast<std::string>()).split(QLatin1Char('\n')))
        if (!line.trimmed().isEmpty())
            return line.trimmed();
    return {};
}

/// The optional string attribute @p name of @p cls (empty when absent); std::nullopt with @p error
/// when it is not a string.
std::optional<QString> stringAttribute(py::handle cls, const char* name, const QString& where, QString* error)
{
    const py::object v = py::getattr(cls, name, py::none());
    if (v.is_none())
        return QString();
    if (!PyUnicode_Check(v.ptr())) {
        *error =
            QStringLiteral("%1: %2 must be a string, got a %3").arg(where, QLatin1String(name), typeName(v));
        return std::nullopt;
    }
    return QString::fromStdString(v.cast<std::string>());
}

/// Trainer.tasks as (regression, classification); false with @p error when it names anything else.
bool readTasks(py::handle cls, const QString& where, AlgorithmInfo& info, QString* error)
{
    const py::object tasks = py::getattr(cls, "tasks", py::none());
    if (tasks.is_none())
        return true; // both
    QStringList names;
    bool ok = true;
    if (PyUnicode_Check(tasks.ptr())) {
        names << QString::fromStdString(tasks.cast<std::string>());
    } else if (PyList_Check(tasks.ptr()) || PyTuple_Check(tasks.ptr()) || PyAnySet_Check(tasks.ptr())) {
        for (py::handle t : tasks) {
            ok = ok && PyUnicode_Check(t.ptr());
            if (ok)
                names << QString::fromStdString(t.cast<std::string>());
        }
    } else {
        ok = false;
    }
    const QStringList known{QStringLiteral("classification"), QStringLiteral("regression")};
    for (const QString& n : names)
        ok = ok && known.contains(n);
    if (!ok || names.isEmpty()) {
        *error = QStringLiteral("%1: tasks must name \"classification\", \"regression\" or both, e.g. "
                                "(\"classification\",), got %2")
                     .arg(where, QString::fromStdString(py::repr(tasks).cast<std::string>()));
        return false;
    }
    info.classification = names.contains(known[0]);
    info.regression = names.contains(known[1]);
    return true;
}

/// Every check of the Trainer class @p cls; fills @p info, or returns why not.
QString readTrainer(py::handle cls, const QString& stem, AlgorithmInfo& info)
{
    const QString where = classWhere(cls);
    for (const char* method : {"fit", "predict"}) {
        const py::object m = py::getattr(cls, method, py::none());
        if (m.is_none() || !PyCallable_Check(m.ptr()))
            return QStringLiteral(
                       "%1 has no method %2 (the protocol: __init__(self, params), fit(self, data, ctx), "
                       "predict(self, X))")
                .arg(where, QLatin1String(method) + (QLatin1String(method) == QLatin1String("fit")
                                                         ? QStringLiteral("(self, data, ctx)")
                                                         : QStringLiteral("(self, X)")));
    }
    QString error;
    const std::optional<QString> name = stringAttribute(cls, "name", where, &error);
    const std::optional<QString> description = stringAttribute(cls, "description", where, &error);
    const std::optional<QString> citation = stringAttribute(cls, "citation", where, &error);
    const std::optional<QString> progress = stringAttribute(cls, "progress", where, &error);
    if (!name || !description || !citation || !progress)
        return error;
    if (!readTasks(cls, where, info, &error))
        return error;
    const std::optional<ParamSchema> schema =
        ScriptSchema::read(py::getattr(cls, "params", py::none()), &error);
    if (!schema)
        return where + QStringLiteral(": ") + error;
    if (!progress->isEmpty()) {
        const ParamSpec* budget = schema->find(*progress);
        if (!budget || (budget->type != ParamType::Int && budget->type != ParamType::Real))
            return QStringLiteral("%1: progress \"%2\" must name an int or real parameter of params")
                .arg(where, *progress);
        info.progress.parameter = *progress;
    }
    info.id = QStringLiteral("python.") + stem;
    info.name = name->trimmed().isEmpty() ? stem : name->trimmed();
    info.description = *description;
    info.citation = *citation;
    info.schema = *schema;
    return {};
}

} // namespace

PythonScript::PythonScript(QString filePath, AlgorithmInfo info, py::object module, py::object trainerClass)
    : m_filePath(std::move(filePath)), m_info(std::move(info)), m_module(std::move(module)),
      m_class(std::move(trainerClass))
{
}

PythonScript::~PythonScript()
{
    // Only at exit (scripts live as long as the process): the interpreter may be gone or its GIL
    // held elsewhere, so the references are left to it.
    m_class.release();
    m_module.release();
}

std::unique_ptr<PythonScript> PythonScript::load(const QString& filePath, const QString& stem,
                                                 const QString& version, const QByteArray& source,
                                                 ScriptFile& file)
{
    file.state = ScriptFile::State::Invalid;
    file.version = version;
    const std::string moduleName = "_trainbench_script_" + stem.toStdString();
    const py::module_ sys = py::module_::import("sys");
    py::object module;
    try {
        module = py::module_::import("types").attr("ModuleType")(moduleName);
        module.attr("__file__") = filePath.toStdString();
        // The bytes that were hashed are the bytes that run (no second read of the file).
        const py::object code = py::module_::import("builtins")
                                    .attr("compile")(py::bytes(source.constData(), size_t(source.size())),
                                                     filePath.toStdString(), "exec", 0, true);
        // Registered before it runs, as importlib does (dataclasses, pickle look it up).
        sys.attr("modules")[py::str(moduleName)] = module;
        py::module_::import("builtins").attr("exec")(code, module.attr("__dict__"));
    } catch (const py::error_already_set& e) {
        sys.attr("modules").attr("pop")(moduleName, py::none());
        const bool syntax = PyObject_IsSubclass(e.type().ptr(), PyExc_SyntaxError) == 1;
        file.error =
            (syntax ? QStringLiteral("does not compile: ") : QStringLiteral("raised while it ran: ")) +
            scriptErrorLine(e, filePath);
        return nullptr;
    }
    AlgorithmInfo info;
    try {
        const py::dict names = module.attr("__dict__");
        if (!names.contains("Trainer")) {
            file.error =
                QStringLiteral("defines no class Trainer (the protocol: docs/plugin-guide.md, \"Trainers "
                               "written in Python\")");
            return nullptr;
        }
        const py::object cls = names["Trainer"];
        if (!PyType_Check(cls.ptr())) {
            file.error = QStringLiteral("Trainer is a %1, not a class").arg(typeName(cls));
            return nullptr;
        }
        if (const QString why = readTrainer(cls, stem, info); !why.isEmpty()) {
            file.error = why;
            return nullptr;
        }
        if (info.description.isEmpty()) // the first line of the class's, else the file's docstring
            info.description = firstDocLine(cls.attr("__dict__").attr("get")("__doc__"));
        if (info.description.isEmpty())
            info.description = firstDocLine(names.attr("get")("__doc__"));
        std::unique_ptr<PythonScript> script(new PythonScript(filePath, info, module, cls));
        file.state = ScriptFile::State::Usable;
        file.name = info.name;
        file.description = info.description;
        file.citation = info.citation;
        file.algorithms = {info};
        file.factory = script.get();
        file.error.clear();
        return script;
    } catch (const py::error_already_set& e) {
        // A class attribute that raised (a property of a metaclass, a failing __getattr__).
        file.error = QStringLiteral("reading class Trainer raised: ") + scriptErrorLine(e, filePath);
        return nullptr;
    }
}

std::unique_ptr<Trainer> PythonScript::create(const QString& algorithmId, const QVariantMap& params) const
{
    if (algorithmId != m_info.id)
        throw std::invalid_argument(QStringLiteral("%1 (%2): unknown algorithm \"%3\"")
                                        .arg(m_info.id, m_filePath, algorithmId)
                                        .toStdString());
    return std::make_unique<PythonTrainer>(*this, params);
}

} // namespace tb::python
