#pragma once
/// @file ModuleErrors.h
/// The C++ exceptions the module throws for its Python exception classes (Module.cpp registers
/// them): trainbench.StoreError and trainbench.ExperimentError.

#include <stdexcept>
#include <string>

namespace tb::python {

/// A run store that cannot be opened or read: raised as trainbench.StoreError with RunStore's
/// message (it names the file and the cause).
class StoreError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// An experiment that could not start (its data did not load, …): raised as
/// trainbench.ExperimentError with ExperimentResult::error.
class ExperimentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace tb::python
