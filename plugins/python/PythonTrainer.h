// The trainer of a Python script's algorithm: fit() and predict() call the script's Trainer.
#pragma once

#include <pybind11/pybind11.h>

#include <trainbench/Trainer.h>

#include <QVariantMap>
#include <optional>

namespace tb::python {

class FitSession;
class PythonScript;

/// One run of a PythonScript's algorithm (the protocol: PythonPlugin.h).
///
/// fit() takes the process's Python training lock (PythonRuntime::lockForFit(): one Python
/// trainer at a time; Stop while waiting ends the run with no model), then, with the GIL,
/// instantiates the script's Trainer with the normalised parameters and calls its fit() with the
/// data as read-only NumPy views of the host's matrices (no copy) and the run's ctx
/// (ScriptContext), while a StopWatcher raises StopTraining in it after Stop. It fails the run
/// (std::runtime_error, the message starting with the algorithm id) when __init__() or fit()
/// raised (with Python's whole traceback), when a call into the host failed, when fit()
/// returned without one checkpoint (unless it was stopped), and when the script kept the
/// host's data after fit() returned.
///
/// predict() calls the script's predict() with a read-only view of @p x and takes its result as
/// an n×k float array (a 1-D array of n values when k = 1); anything else fails with the shape
/// or the type it got. While fit() runs and Stop was requested it returns no rows without
/// calling the script (the host then logs no point). Not thread-safe, as Trainer.
class PythonTrainer final : public Trainer {
public:
    /// A trainer of @p script's algorithm with @p params (normalised by its schema). Cheap: no
    /// Python runs before fit().
    PythonTrainer(const PythonScript& script, QVariantMap params);
    ~PythonTrainer() override;

    std::unique_ptr<Trainer> fresh() const override;
    void fit(const DatasetView& data, RunContext& ctx) override;
    /// The script's optional `Trainer.predict_cost(params, shape)` (a static or class method; shape
    /// has rows, inputs, outputs, task): a dict of the keys Trainer::predictCost() documents, above
    /// all "memory_bytes", which the host checks before the run allocates anything. Empty when the
    /// class has none (the host then says the run's memory was not checked). Throws
    /// std::runtime_error naming the script when it raises or returns anything but such a dict.
    QJsonObject predictCost(const ProblemShape& shape) const override;
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override;

private:
    /// The Python part of fit(), the GIL held: the script's __init__() and fit(), then the
    /// checks. Returns the failure to throw once the GIL and the watcher are gone (null: none).
    std::exception_ptr fitWithGil(const DatasetView& data, FitSession& session);
    /// @p result of the script's predict() for @p rows rows as a matrix, or throws naming what
    /// is wrong with it. The GIL held.
    Eigen::MatrixXd toMatrix(pybind11::handle result, Eigen::Index rows) const;
    /// "python.ridge: "
    QString prefix() const;

    const PythonScript& m_script;
    QVariantMap m_params;
    pybind11::object m_model;        ///< the script's Trainer instance after fit() began (GIL to touch)
    Eigen::Index m_outputs = 0;      ///< k: the training targets' columns
    bool m_classification = false;   ///< the task fit() was given
    std::optional<StopToken> m_stop; ///< the run's token while fit() runs
};

} // namespace tb::python
