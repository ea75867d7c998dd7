// Values between the host and Python: parameters, facts, exceptions, and NumPy views of the
// host's matrices without a copy. Every function needs the GIL.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <QJsonValue>
#include <QString>
#include <QVariant>
#include <optional>

namespace tb::python {

/// A normalised parameter value (qlonglong, double, bool, QString, QVariantList of them) as
/// Python's int, float, bool, str or list.
pybind11::object toPython(const QVariant& value);
/// A Python value of a schema (bool, int, float, str, list or tuple of them) as a QVariant of
/// the types ParamSchema reads; std::nullopt for anything else.
std::optional<QVariant> fromPython(pybind11::handle value);

/// A JSON-like Python value (None, bool, int, float, str, list, tuple, dict with str keys, and
/// objects with tolist() or __index__ / __float__: NumPy scalars and arrays) as JSON. Throws
/// pybind11::type_error naming @p what and the offending type otherwise.
QJsonValue toJson(pybind11::handle value, const QString& what);

/// The type's name of @p value, e.g. "str", "numpy.ndarray".
QString typeName(pybind11::handle value);

/// The full text of Python's traceback of @p error (traceback.format_exception), without the
/// trailing newline.
QString tracebackText(const pybind11::error_already_set& error);
/// The exception's last line, e.g. "ValueError: could not convert string to float: 'x'".
QString exceptionLine(const pybind11::error_already_set& error);
/// "line N: <exceptionLine>" for an error raised while file @p path ran (its innermost frame in
/// that file, or a SyntaxError's line), for a one-line listing.
QString scriptErrorLine(const pybind11::error_already_set& error, const QString& path);

/// A read-only NumPy view (float64, n×d, Fortran strides) of @p m — the host's memory itself, no
/// copy. Valid only while @p m is: see keptAfterCall().
pybind11::array readOnlyView(const Eigen::Ref<const Eigen::MatrixXd>& m);
/// Whether anything but the caller's own reference still holds @p view (the script kept it or a
/// view of it, after a collection of unreachable cycles) — memory the host will free.
bool keptAfterCall(pybind11::handle view);

} // namespace tb::python
