#pragma once
/// @file PyConvert.h
/// Qt values as Python objects, and columns of a frame built in C++.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <cstdint>
#include <string>
#include <vector>

namespace tb::python {

namespace py = pybind11;

/// Converters from Qt's types to Python's. Call with the GIL held.
class PyConvert {
public:
    static py::str str(const QString& s);
    /// A list of str.
    static py::list strings(const QStringList& list);
    /// JSON as Python: objects → dict, arrays → list, integral numbers → int, others → float,
    /// null → None.
    static py::object json(const QJsonValue& v);
    static py::dict json(const QJsonObject& o);
    static py::list json(const QJsonArray& a);
    /// A parameter value: bool, int, float, str; lists (an int list such as hidden-layer sizes)
    /// as tuples when @p listsAsTuples (hashable: frames can group by them), else as lists;
    /// maps as dicts; an invalid or null QVariant as None.
    static py::object variant(const QVariant& v, bool listsAsTuples = true);
    /// Milliseconds since the epoch (UTC), NaN for an invalid time: pandas reads them with
    /// pd.to_datetime(unit="ms", utc=True), NaN becoming NaT.
    static double msSinceEpoch(const QDateTime& t);
};

/// The columns of one frame, handed to Python as a dict {name: numpy array or list} in the order
/// they were put (pandas.DataFrame(dict) keeps it). Numeric columns are filled in C++ and copied
/// into numpy arrays once: they never become per-row Python objects. Call with the GIL held.
class Columns {
public:
    void put(const char* name, const std::vector<double>& v);
    void put(const char* name, const std::vector<std::int64_t>& v);
    void put(const char* name, const std::vector<std::uint64_t>& v);
    /// A numpy bool column.
    void putBools(const char* name, const std::vector<std::uint8_t>& v);
    /// An object column (str, tuples, dicts …).
    void put(const std::string& name, const py::list& v);
    /// Strings as an object column of str.
    void put(const char* name, const QStringList& v);

    const py::dict& dict() const { return m_dict; }

private:
    py::dict m_dict;
};

} // namespace tb::python
