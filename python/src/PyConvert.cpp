#include "PyConvert.h"

#include <QByteArray>
#include <QVariantList>
#include <QVariantMap>

#include <cmath>
#include <limits>

namespace tb::python {

py::str PyConvert::str(const QString& s)
{
    const QByteArray utf8 = s.toUtf8();
    return py::str(utf8.constData(), std::size_t(utf8.size()));
}

py::list PyConvert::strings(const QStringList& list)
{
    py::list out(list.size());
    for (qsizetype i = 0; i < list.size(); ++i)
        out[std::size_t(i)] = str(list[i]);
    return out;
}

py::object PyConvert::json(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        return py::none();
    case QJsonValue::Bool:
        return py::bool_(v.toBool());
    case QJsonValue::Double: {
        // Qt keeps integers written as integers (1, not 1.0) as 64-bit integers: they stay int.
        const QVariant n = v.toVariant();
        if (n.typeId() == QMetaType::LongLong || n.typeId() == QMetaType::Int)
            return py::int_(n.toLongLong());
        return py::float_(v.toDouble());
    }
    case QJsonValue::String:
        return str(v.toString());
    case QJsonValue::Array:
        return json(v.toArray());
    case QJsonValue::Object:
        return json(v.toObject());
    }
    return py::none();
}

py::dict PyConvert::json(const QJsonObject& o)
{
    py::dict d;
    for (auto it = o.begin(); it != o.end(); ++it)
        d[str(it.key())] = json(it.value());
    return d;
}

py::list PyConvert::json(const QJsonArray& a)
{
    py::list l(a.size());
    for (qsizetype i = 0; i < a.size(); ++i)
        l[std::size_t(i)] = json(a.at(i));
    return l;
}

py::object PyConvert::variant(const QVariant& v, bool listsAsTuples)
{
    if (!v.isValid() || v.isNull())
        return py::none();
    switch (v.typeId()) {
    case QMetaType::Bool:
        return py::bool_(v.toBool());
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::Short:
    case QMetaType::Char:
    case QMetaType::SChar:
        return py::int_(v.toLongLong());
    case QMetaType::UInt:
    case QMetaType::ULongLong:
    case QMetaType::UShort:
    case QMetaType::UChar:
        return py::int_(v.toULongLong());
    case QMetaType::Double:
    case QMetaType::Float:
        return py::float_(v.toDouble());
    case QMetaType::QString:
        return str(v.toString());
    case QMetaType::QJsonValue:
        return json(v.toJsonValue());
    case QMetaType::QJsonObject:
        return json(v.toJsonObject());
    case QMetaType::QJsonArray:
        return json(v.toJsonArray());
    default:
        break;
    }
    if (v.typeId() == QMetaType::QVariantMap || v.typeId() == QMetaType::QVariantHash) {
        py::dict d;
        const QVariantMap m = v.toMap();
        for (auto it = m.begin(); it != m.end(); ++it)
            d[str(it.key())] = variant(it.value(), listsAsTuples);
        return d;
    }
    if (v.typeId() == QMetaType::QVariantList || v.typeId() == QMetaType::QStringList) {
        const QVariantList items = v.toList();
        py::list l(items.size());
        for (qsizetype i = 0; i < items.size(); ++i)
            l[std::size_t(i)] = variant(items[i], listsAsTuples);
        if (listsAsTuples)
            return py::tuple(l);
        return l;
    }
    // Anything else Qt can say as text (a date, a URL): its text, never dropped.
    return str(v.toString());
}

double PyConvert::msSinceEpoch(const QDateTime& t)
{
    return t.isValid() ? double(t.toMSecsSinceEpoch()) : std::numeric_limits<double>::quiet_NaN();
}

void Columns::put(const char* name, const std::vector<double>& v)
{
    m_dict[name] = py::array_t<double>(py::ssize_t(v.size()), v.data());
}

void Columns::put(const char* name, const std::vector<std::int64_t>& v)
{
    m_dict[name] = py::array_t<std::int64_t>(py::ssize_t(v.size()), v.data());
}

void Columns::put(const char* name, const std::vector<std::uint64_t>& v)
{
    m_dict[name] = py::array_t<std::uint64_t>(py::ssize_t(v.size()), v.data());
}

void Columns::putBools(const char* name, const std::vector<std::uint8_t>& v)
{
    py::array_t<bool> a(py::ssize_t(v.size()));
    bool* out = a.mutable_data();
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = v[i] != 0;
    m_dict[name] = a;
}

void Columns::put(const std::string& name, const py::list& v)
{
    m_dict[py::str(name)] = v;
}

void Columns::put(const char* name, const QStringList& v)
{
    m_dict[name] = PyConvert::strings(v);
}

} // namespace tb::python
