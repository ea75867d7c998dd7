#include "PythonValues.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <cstddef>

namespace py = pybind11;

namespace tb::python {
namespace {

QString fromStr(py::handle s)
{
    return QString::fromStdString(py::str(s).cast<std::string>());
}

/// A Python int as a number QVariant reads: qlonglong, or double beyond 64 bits.
QVariant fromInt(py::handle value)
{
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0)
        return QVariant(PyLong_AsDouble(value.ptr()));
    return QVariant(qlonglong(v));
}

QJsonValue toJsonAt(py::handle value, const QString& what, int depth)
{
    if (depth > 64)
        throw py::value_error(QStringLiteral("%1: nested more than 64 levels deep").arg(what).toStdString());
    if (value.is_none())
        return QJsonValue(QJsonValue::Null);
    if (PyBool_Check(value.ptr()))
        return QJsonValue(value.ptr() == Py_True);
    if (PyLong_Check(value.ptr()))
        return QJsonValue(fromInt(value).toDouble());
    if (PyFloat_Check(value.ptr()))
        return QJsonValue(PyFloat_AsDouble(value.ptr()));
    if (PyUnicode_Check(value.ptr()))
        return QJsonValue(fromStr(value));
    if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
        QJsonArray out;
        for (py::handle e : value)
            out.append(toJsonAt(e, what, depth + 1));
        return out;
    }
    if (PyDict_Check(value.ptr())) {
        QJsonObject out;
        for (auto item : py::reinterpret_borrow<py::dict>(value)) {
            if (!PyUnicode_Check(item.first.ptr()))
                throw py::type_error(QStringLiteral("%1: a dict key is a %2, not a str")
                                         .arg(what, typeName(item.first))
                                         .toStdString());
            out.insert(fromStr(item.first), toJsonAt(item.second, what, depth + 1));
        }
        return out;
    }
    // NumPy arrays and scalars (numpy.int64 is no int, numpy.ndarray no list): their tolist().
    if (py::hasattr(value, "tolist") && !py::isinstance<py::type>(value)) {
        py::object plain = value.attr("tolist")();
        if (!plain.is(value))
            return toJsonAt(plain, what, depth + 1);
    }
    if (PyIndex_Check(value.ptr()))
        return QJsonValue(fromInt(py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()))).toDouble());
    throw py::type_error(
        QStringLiteral("%1: a %2 is not a JSON value (None, bool, int, float, str, list, tuple, "
                       "dict with str keys, or a NumPy scalar or array)")
            .arg(what, typeName(value))
            .toStdString());
}

} // namespace

py::object toPython(const QVariant& value)
{
    switch (value.typeId()) {
    case QMetaType::Bool:
        return py::bool_(value.toBool());
    case QMetaType::Int:
    case QMetaType::LongLong:
        return py::int_(value.toLongLong());
    case QMetaType::UInt:
    case QMetaType::ULongLong:
        return py::int_(value.toULongLong());
    case QMetaType::Double:
    case QMetaType::Float:
        return py::float_(value.toDouble());
    case QMetaType::QString:
        return py::str(value.toString().toStdString());
    case QMetaType::QStringList:
    case QMetaType::QVariantList: {
        py::list out;
        for (const QVariant& e : value.toList())
            out.append(toPython(e));
        return out;
    }
    default:
        break;
    }
    if (!value.isValid() || value.isNull())
        return py::none();
    return py::str(value.toString().toStdString());
}

std::optional<QVariant> fromPython(py::handle value)
{
    if (PyBool_Check(value.ptr()))
        return QVariant(value.ptr() == Py_True);
    if (PyLong_Check(value.ptr()))
        return fromInt(value);
    if (PyFloat_Check(value.ptr()))
        return QVariant(PyFloat_AsDouble(value.ptr()));
    if (PyUnicode_Check(value.ptr()))
        return QVariant(fromStr(value));
    if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
        QVariantList out;
        for (py::handle e : value) {
            const std::optional<QVariant> v = fromPython(e);
            if (!v)
                return std::nullopt;
            out << *v;
        }
        return QVariant(out);
    }
    if (PyIndex_Check(value.ptr())) // numpy.int64 and friends
        return fromInt(py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr())));
    return std::nullopt;
}

QJsonValue toJson(py::handle value, const QString& what)
{
    return toJsonAt(value, what, 0);
}

QString typeName(py::handle value)
{
    const py::handle type = py::type::handle_of(value);
    const QString module = fromStr(type.attr("__module__"));
    const QString name = fromStr(type.attr("__qualname__"));
    return module == QLatin1String("builtins") ? name : module + QLatin1Char('.') + name;
}

QString tracebackText(const py::error_already_set& error)
{
    const py::object lines =
        py::module_::import("traceback").attr("format_exception")(error.type(), error.value(), error.trace());
    QString text;
    for (py::handle line : lines)
        text += fromStr(line);
    while (text.endsWith(QLatin1Char('\n')))
        text.chop(1);
    return text;
}

QString exceptionLine(const py::error_already_set& error)
{
    const py::list lines =
        py::module_::import("traceback").attr("format_exception_only")(error.type(), error.value());
    if (lines.empty())
        return QStringLiteral("an exception");
    return fromStr(lines[lines.size() - 1]).trimmed();
}

QString scriptErrorLine(const py::error_already_set& error, const QString& path)
{
    long line = 0;
    const py::handle syntaxError = PyExc_SyntaxError;
    if (PyObject_IsSubclass(error.type().ptr(), syntaxError.ptr()) == 1 &&
        py::hasattr(error.value(), "lineno") && !error.value().attr("lineno").is_none()) {
        line = error.value().attr("lineno").cast<long>();
    } else if (error.trace()) {
        const py::list frames = py::module_::import("traceback").attr("extract_tb")(error.trace());
        for (py::handle frame : frames)
            if (fromStr(frame.attr("filename")) == path)
                line = frame.attr("lineno").cast<long>();
    }
    const QString what = exceptionLine(error);
    return line > 0 ? QStringLiteral("line %1: %2").arg(line).arg(what) : what;
}

py::array readOnlyView(const Eigen::Ref<const Eigen::MatrixXd>& m)
{
    // The capsule is the array's base: NumPy then keeps the pointer as it is (no copy), and
    // refuses to make the view writeable again, since the base has no writeable buffer.
    py::capsule owner(static_cast<const void*>(m.data()), [](void*) {});
    const auto rows = py::ssize_t(m.rows()), cols = py::ssize_t(m.cols());
    const auto item = py::ssize_t(sizeof(double));
    py::array view(py::dtype::of<double>(), {rows, cols}, {item, item * py::ssize_t(m.outerStride())},
                   m.data(), owner);
    view.attr("setflags")(py::arg("write") = false);
    return view;
}

bool keptAfterCall(py::handle view)
{
    if (Py_REFCNT(view.ptr()) <= 1)
        return false;
    // A cycle the script left behind (an exception's frames, a closure) holds it until collected.
    py::module_::import("gc").attr("collect")();
    return Py_REFCNT(view.ptr()) > 1;
}

} // namespace tb::python
