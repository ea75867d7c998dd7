#include "ScriptContext.h"

#include "FitSession.h"
#include "PythonRuntime.h"
#include "PythonValues.h"

#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

namespace py = pybind11;

namespace tb::python {

void ScriptContext::bind(py::module_& module)
{
    // module_local: a `trainbench` Python module built with the same pybind11 shares its type
    // registry with this plugin, and must not see (or clash with) the host's classes.
    py::class_<ScriptContext, std::shared_ptr<ScriptContext>>(module, "RunContext", py::module_local(),
                                                              "The run's context, given to Trainer.fit().")
        .def_property_readonly(
            "seed", &ScriptContext::seed,
            "The run's seed: seed every generator from it (numpy.random.default_rng(ctx.seed), "
            "torch.manual_seed(ctx.seed)).")
        .def_property_readonly("threads", &ScriptContext::threads, "Threads the run may use (≥ 1).")
        .def("checkpoint", &ScriptContext::checkpoint, py::arg("epoch"), py::arg("loss") = py::none(),
             py::arg("note") = "",
             "Reports progress; the host evaluates predict() on the training and test sets. Returns True to "
             "continue, False to return from fit() now.")
        .def("stopped", &ScriptContext::stopped,
             "True once the run must end (Stop, the time budget, divergence).")
        .def("budget_spent", &ScriptContext::budgetSpent, "True once the run's time budget is spent.")
        .def("record", &ScriptContext::record, py::arg("key"), py::arg("value"),
             "Stores a JSON-like value as a fact of the run.")
        .def("log", &ScriptContext::log, py::arg("message"), "A line of the run's log.");
}

FitSession& ScriptContext::live(const char* method, bool onFitThread) const
{
    if (!m_session || !m_session->context())
        throw std::runtime_error(
            QStringLiteral("ctx.%1(): the run's context is used after fit() returned (do not keep "
                           "ctx beyond fit())")
                .arg(QLatin1String(method))
                .toStdString());
    if (onFitThread && m_session->inHost())
        throw std::runtime_error(
            QStringLiteral("%1: ctx.%2() called while the host is inside another ctx call (from "
                           "predict(), which the host calls at a checkpoint); call ctx from fit() "
                           "only")
                .arg(m_session->algorithmId(), QLatin1String(method))
                .toStdString());
    if (onFitThread && !m_session->onFitThread())
        throw std::runtime_error(
            QStringLiteral("%1: ctx.%2() called from another thread; call the run's context from "
                           "the thread that runs fit()")
                .arg(m_session->algorithmId(), QLatin1String(method))
                .toStdString());
    return *m_session;
}

template <class Call> void ScriptContext::inHost(Call&& call)
{
    FitSession& session = *m_session;
    std::exception_ptr failure;
    {
        HostCall host(session);
        try {
            call(*session.context());
        } catch (...) {
            failure = std::current_exception();
        }
    }
    if (!failure)
        return;
    // The host's own failure: fit() fails with it, whatever the script does with HostError.
    session.setHostError(failure);
    QString message = QStringLiteral("the host failed");
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        message = QString::fromUtf8(e.what());
    } catch (...) {
    }
    PyErr_SetString(PythonRuntime::instance().hostError().ptr(), message.toStdString().c_str());
    throw py::error_already_set();
}

unsigned long long ScriptContext::seed() const
{
    return live("seed", false).context()->seed();
}

int ScriptContext::threads() const
{
    return live("threads", false).context()->threads();
}

bool ScriptContext::checkpoint(double epoch, const std::optional<double>& loss, const std::string& note)
{
    FitSession& session = live("checkpoint");
    Checkpoint cp;
    cp.epoch = epoch;
    cp.loss = loss ? *loss : std::numeric_limits<double>::quiet_NaN();
    cp.note = QString::fromStdString(note);
    CheckpointAction action = CheckpointAction::Stop;
    inHost([&](RunContext& ctx) { action = ctx.checkpoint(cp); });
    session.countCheckpoint();
    return action == CheckpointAction::Continue;
}

bool ScriptContext::stopped() const
{
    return live("stopped", false).context()->stopRequested();
}

bool ScriptContext::budgetSpent() const
{
    return live("budget_spent").context()->budgetSpent();
}

void ScriptContext::record(const std::string& key, py::handle value)
{
    live("record");
    const QString k = QString::fromStdString(key);
    const QJsonValue v = toJson(value, QStringLiteral("ctx.record(\"%1\", …)").arg(k));
    inHost([&](RunContext& ctx) { ctx.record(k, v); });
}

void ScriptContext::log(const std::string& message)
{
    live("log");
    const QString line = QString::fromStdString(message);
    inHost([&](RunContext& ctx) { ctx.log(line); });
}

} // namespace tb::python
