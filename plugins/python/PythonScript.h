// One `.py` trainer file, executed once and checked against the trainer protocol
// (PythonPlugin.h): its algorithm python.<stem>, and the factory of its trainers.
#pragma once

#include <pybind11/pybind11.h>

#include <trainbench/ScriptHost.h>
#include <trainbench/TrainerFactory.h>

#include <QByteArray>
#include <QString>
#include <memory>

namespace tb::python {

/// A script that passed every check, as the factory of its one algorithm. Lives for the
/// process's life (PythonPlugin keeps it); its Python objects are never released at exit.
/// Thread-safety: algorithms() and create() from any thread (neither touches Python).
class PythonScript final : public TrainerFactory {
public:
    /// Executes @p source (the content of @p filePath, whose file stem is @p stem and content hash
    /// @p version) as a fresh module and checks its `Trainer` class. Returns the script and
    /// fills @p file (state Usable, its algorithm, this factory), or returns null with @p file
    /// Invalid and its reason: a syntax error or an exception while it ran ("line N: …"), no
    /// class Trainer, a missing fit() or predict(), an invalid name, description, citation, tasks,
    /// progress or params. Needs the GIL; never throws for the script's faults.
    static std::unique_ptr<PythonScript> load(const QString& filePath, const QString& stem,
                                              const QString& version, const QByteArray& source,
                                              ScriptFile& file);
    ~PythonScript() override;

    /// Its one algorithm.
    QList<AlgorithmInfo> algorithms() const override { return {m_info}; }
    /// A PythonTrainer of @p params (normalised by the schema). Cheap: the script's Trainer is
    /// instantiated in fit(). Throws std::invalid_argument for another algorithm id.
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;

    const QString& algorithmId() const { return m_info.id; }
    const QString& filePath() const { return m_filePath; }
    /// The script's Trainer class (the GIL needed to use it).
    pybind11::handle trainerClass() const { return m_class; }

private:
    PythonScript(QString filePath, AlgorithmInfo info, pybind11::object module,
                 pybind11::object trainerClass);

    QString m_filePath;
    AlgorithmInfo m_info;
    pybind11::object m_module, m_class;
};

} // namespace tb::python
