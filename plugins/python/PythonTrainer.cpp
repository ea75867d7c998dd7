#include "PythonTrainer.h"

#include "FitSession.h"
#include "PythonRuntime.h"
#include "PythonScript.h"
#include "PythonValues.h"
#include "ScriptContext.h"
#include "StopWatcher.h"

#include <pybind11/numpy.h>

#include <QStringList>
#include <cstdint>
#include <stdexcept>

namespace py = pybind11;

namespace tb::python {
namespace {

py::list stringList(const QStringList& strings)
{
    py::list out;
    for (const QString& s : strings)
        out.append(py::str(s.toStdString()));
    return out;
}

/// The class index of each row of one-hot @p y (its arg-max), as NumPy int64: a copy.
py::array_t<std::int64_t> labelsOf(const Eigen::Ref<const Eigen::MatrixXd>& y)
{
    py::array_t<std::int64_t> labels(py::ssize_t(y.rows()));
    auto out = labels.mutable_unchecked<1>();
    for (Eigen::Index i = 0; i < y.rows(); ++i) {
        Eigen::Index best = 0;
        if (y.cols() > 0)
            y.row(i).maxCoeff(&best);
        out(py::ssize_t(i)) = std::int64_t(best);
    }
    return labels;
}

QString shapeText(const py::array& a)
{
    QStringList dims;
    for (py::ssize_t i = 0; i < a.ndim(); ++i)
        dims << QString::number(a.shape(i));
    return QLatin1Char('(') + dims.join(QStringLiteral(", ")) +
           (a.ndim() == 1 ? QStringLiteral(",)") : QStringLiteral(")"));
}

} // namespace

PythonTrainer::PythonTrainer(const PythonScript& script, QVariantMap params)
    : m_script(script), m_params(std::move(params))
{
}

PythonTrainer::~PythonTrainer()
{
    if (!m_model)
        return;
    if (!Py_IsInitialized()) {
        m_model.release(); // the interpreter is gone (a Python process at its end): nothing to release
        return;
    }
    py::gil_scoped_acquire gil;
    m_model = py::object();
}

std::unique_ptr<Trainer> PythonTrainer::fresh() const
{
    return std::make_unique<PythonTrainer>(m_script, m_params);
}

QString PythonTrainer::prefix() const
{
    return m_script.algorithmId() + QStringLiteral(": ");
}

void PythonTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    if (data.isSparse())
        throw std::invalid_argument(
            (prefix() + "sparse inputs reached a Python trainer, which takes dense inputs only")
                .toStdString());
    PythonRuntime& runtime = PythonRuntime::instance();
    const auto lock = runtime.lockForFit(ctx.stopToken());
    if (!lock.owns_lock()) {
        ctx.log(prefix() +
                "stopped while it waited for another Python trainer (one trains at a time per process)");
        return; // no model: the host marks the run cancelled
    }
    m_outputs = data.outputs();
    m_classification = data.isClassification();
    m_stop = ctx.stopToken();
    FitSession session(m_script.algorithmId(), ctx);
    std::exception_ptr failure;
    int raised = 0;
    {
        // The watcher may wait for the GIL: it is joined (its destructor) after the GIL is released.
        StopWatcher watcher(session, ctx.stopToken());
        {
            py::gil_scoped_acquire gil;
            try {
                failure = fitWithGil(data, session);
            } catch (const py::error_already_set& e) {
                failure = std::make_exception_ptr(std::runtime_error(
                    (prefix() + "the host could not hand the data to Python: " + exceptionLine(e))
                        .toStdString()));
            } catch (const std::exception& e) {
                failure = std::make_exception_ptr(std::runtime_error(
                    (prefix() + "the host could not hand the data to Python: " + QString::fromUtf8(e.what()))
                        .toStdString()));
            }
        }
        raised = watcher.raised();
    }
    m_stop.reset();
    if (raised > 0)
        ctx.log(prefix() +
                QStringLiteral("Stop was raised in fit() as StopTraining (%1 time(s)): the script did not "
                               "return at ctx.checkpoint() or ctx.stopped()")
                    .arg(raised));
    if (failure)
        std::rethrow_exception(failure);
    if (session.checkpoints() == 0 && !ctx.stopRequested())
        throw std::runtime_error((prefix() +
                                  "fit() returned without calling ctx.checkpoint(); call it at least at the "
                                  "end of every epoch")
                                     .toStdString());
}

std::exception_ptr PythonTrainer::fitWithGil(const DatasetView& data, FitSession& session)
{
    const PythonRuntime& runtime = PythonRuntime::instance();
    session.begin();
    // The host's matrices as they are (no copy), read-only; the labels are a copy.
    py::array x = readOnlyView(data.x), y = readOnlyView(data.y);
    py::object namespaceType = py::module_::import("types").attr("SimpleNamespace");
    py::object dataObject = namespaceType(
        py::arg("x") = x, py::arg("y") = y,
        py::arg("task") = data.isClassification() ? "classification" : "regression",
        py::arg("labels") = data.isClassification() ? py::object(labelsOf(data.y)) : py::object(py::none()),
        py::arg("class_names") = stringList(data.classNames),
        py::arg("feature_names") = stringList(data.featureNames));
    py::dict params;
    for (auto it = m_params.begin(); it != m_params.end(); ++it)
        params[py::str(it.key().toStdString())] = toPython(it.value());
    auto context = std::make_shared<ScriptContext>(session);
    py::object ctxObject = py::cast(context);

    const char* stage = "__init__()";
    bool stopped = false;
    std::exception_ptr failure;
    try {
        session.enterPython();
        m_model = py::reinterpret_borrow<py::object>(m_script.trainerClass())(params);
        stage = "fit()";
        m_model.attr("fit")(dataObject, ctxObject);
        session.leavePython();
    } catch (const py::error_already_set& e) {
        session.leavePython(); // before any more Python runs here: no StopTraining after this point
        if (e.matches(runtime.stopTraining()))
            stopped = true;
        else if (!session.hostError())
            failure = std::make_exception_ptr(std::runtime_error(
                (prefix() + stage + " raised " + exceptionLine(e) + "\n" + tracebackText(e)).toStdString()));
    } catch (const std::exception& e) {
        session.leavePython();
        failure = std::make_exception_ptr(
            std::runtime_error((prefix() + stage + ": " + QString::fromUtf8(e.what())).toStdString()));
    }
    RunContext& ctx = *session.context();
    // The script may have kept ctx: from here every call of it raises.
    context->detach();
    session.end();
    ctxObject = py::object();
    context.reset();
    dataObject = py::object();
    if (session.hostError())
        failure = session.hostError(); // the host's own message, whatever the script did with HostError
    if (failure) {
        m_model = py::object(); // the host asks nothing of a failed run; its references go with it
        return failure;
    }
    if (stopped && session.checkpoints() == 0)
        m_model = py::object(); // no model: the host evaluates nothing
    if (stopped)
        ctx.log(prefix() + "fit() ended by StopTraining");
    // The views are the host's memory, freed after fit(): a script that kept one would read freed
    // memory in predict() or in a later run.
    for (const auto& [view, name] : {std::pair{&x, "data.x"}, std::pair{&y, "data.y"}})
        if (keptAfterCall(*view)) {
            m_model = py::object();
            return std::make_exception_ptr(std::runtime_error(
                (prefix() +
                 QStringLiteral("fit() kept a reference to %1 (or to a view of it, or to data) after it "
                                "returned; it is the host's memory, valid only during fit(): keep a copy "
                                "(numpy.array(%1))")
                     .arg(QLatin1String(name)))
                    .toStdString()));
        }
    return nullptr;
}

QJsonObject PythonTrainer::predictCost(const ProblemShape& shape) const
{
    py::gil_scoped_acquire gil;
    const py::handle cls = m_script.trainerClass();
    if (!py::hasattr(cls, "predict_cost"))
        return {};
    try {
        py::dict params;
        for (auto it = m_params.begin(); it != m_params.end(); ++it)
            params[py::str(it.key().toStdString())] = toPython(it.value());
        py::object shapeObject = py::module_::import("types").attr("SimpleNamespace")(
            py::arg("rows") = py::int_(shape.rows), py::arg("inputs") = py::int_(shape.inputs),
            py::arg("outputs") = py::int_(shape.outputs),
            py::arg("task") = shape.task == Task::Classification ? "classification" : "regression");
        const py::object result = cls.attr("predict_cost")(params, shapeObject);
        if (!py::isinstance<py::dict>(result))
            throw std::runtime_error((prefix() + QStringLiteral("predict_cost() returned a %1; expected a dict such "
                                                                "as {\"memory_bytes\": 1.2e9}")
                                                     .arg(typeName(result)))
                                         .toStdString());
        const QJsonValue json = toJson(result, QStringLiteral("the value predict_cost() returned"));
        return json.toObject();
    } catch (const py::error_already_set& e) {
        throw std::runtime_error(
            (prefix() + "predict_cost() raised " + exceptionLine(e) + "\n" + tracebackText(e)).toStdString());
    } catch (const py::type_error& e) {
        throw std::runtime_error((prefix() + QString::fromUtf8(e.what())).toStdString());
    }
}

Eigen::MatrixXd PythonTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    // Inside a checkpoint of a run that is stopping: no point (docs/plugin-guide.md, "Stop").
    if (m_stop && m_stop->stopRequested())
        return {};
    py::gil_scoped_acquire gil;
    if (!m_model)
        throw std::logic_error((prefix() + "predict() called before fit() made a model").toStdString());
    py::array view = readOnlyView(x);
    Eigen::MatrixXd out;
    try {
        py::object result = m_model.attr("predict")(view);
        out = toMatrix(result, x.rows());
    } catch (const py::error_already_set& e) {
        throw std::runtime_error(
            (prefix() + "predict() raised " + exceptionLine(e) + "\n" + tracebackText(e)).toStdString());
    }
    if (keptAfterCall(view))
        throw std::runtime_error((prefix() +
                                  "predict() kept a reference to X (or to a view of it) after it returned; "
                                  "X is the host's memory, valid only during the call: keep a copy "
                                  "(numpy.array(X))")
                                     .toStdString());
    return out;
}

Eigen::MatrixXd PythonTrainer::toMatrix(py::handle result, Eigen::Index rows) const
{
    const Eigen::Index k = m_outputs;
    QString expected;
    if (m_classification)
        expected =
            QStringLiteral("(%1, %2): a row per row of X, a column per class (its score; the host takes the "
                           "arg-max)");
    else if (k == 1)
        expected = QStringLiteral("(%1, %2) or (%1,): a row per row of X, one target");
    else
        expected = QStringLiteral("(%1, %2): a row per row of X, a column per target");
    expected = expected.arg(rows).arg(k);
    if (result.is_none())
        throw std::runtime_error(
            (prefix() + "predict() returned None; expected an array of shape " + expected).toStdString());
    py::array a;
    try {
        a = py::module_::import("numpy").attr("asarray")(result, py::arg("dtype") = "float64");
    } catch (const py::error_already_set& e) {
        throw std::runtime_error(
            (prefix() + QStringLiteral("predict() returned a %1, which is not convertible to a "
                                       "float array (%2); expected an array of shape %3")
                            .arg(typeName(result), exceptionLine(e), expected))
                .toStdString());
    }
    const bool column = a.ndim() == 1 && k == 1 && a.shape(0) == rows;
    if (!column && !(a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == k))
        throw std::runtime_error(
            (prefix() +
             QStringLiteral("predict() returned shape %1; expected %2").arg(shapeText(a), expected))
                .toStdString());
    Eigen::MatrixXd out(rows, k);
    const auto* base = static_cast<const char*>(a.data());
    const py::ssize_t rowStride = a.strides(0), colStride = column ? 0 : a.strides(1);
    for (Eigen::Index j = 0; j < k; ++j)
        for (Eigen::Index i = 0; i < rows; ++i)
            out(i, j) = *reinterpret_cast<const double*>(base + py::ssize_t(i) * rowStride +
                                                         py::ssize_t(j) * colStride);
    return out;
}

} // namespace tb::python
