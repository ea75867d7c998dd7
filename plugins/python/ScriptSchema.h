// A Python trainer's `params` dict as the host's parameter schema.
#pragma once

#include <pybind11/pybind11.h>

#include <trainbench/ParamSchema.h>

#include <QString>
#include <optional>

namespace tb::python {

/// Reads `Trainer.params`: a dict of parameter name → spec, in order, each spec a dict of
///  - "type": "int", "real", "bool", "choice", "text", "int list" or "real list" (the names of
///    paramTypeName(); required),
///  - "default": its value (required; it must be valid),
///  - "min", "max": bounds of int, real and list elements (numbers; whole numbers for int
///    types; absent = unbounded); "exclusive_min", "exclusive_max": a real bound itself outside,
///  - "choices": the strings of a choice (non-empty, distinct),
///  - "log": a real shown on a log slider (its range must be positive),
///  - "min_count", "max_count": how many elements a list takes (default 0 and 64),
///  - "label", "help": for forms (default: the key in words; the help gets the default and
///    range appended, as the C++ helpers do).
/// Keys follow the house pattern [a-z_][a-z0-9_]*. Needs the GIL.
class ScriptSchema {
public:
    /// The schema of @p params, or std::nullopt with @p error naming the key, the field and the
    /// value at fault, e.g. `params["lr"]: "min" 2 is greater than "max" 1`.
    static std::optional<ParamSchema> read(pybind11::handle params, QString* error);

private:
    static std::optional<ParamSpec> readSpec(const QString& key, pybind11::handle spec, QString* error);
};

} // namespace tb::python
