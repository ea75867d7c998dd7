// The "python" plugin: hosts trainers written in Python, one algorithm per `.py` file.
//
// The trainer protocol. A file <stem>.py (stem matching [a-z][a-z0-9_]*) offers the algorithm
// python.<stem> when it defines:
//
//     import numpy as np
//     class Trainer:
//         name = "NumPy logistic regression"        # forms and legends (default: the file stem)
//         description = "one line"                  # optional (default: the docstring's first line)
//         citation = ""                             # optional
//         tasks = ("classification", "regression")  # optional, default both
//         progress = "epochs"                       # optional: the parameter holding the planned final epoch
//         params = {                                # the schema (ScriptSchema.h): int, real, bool, choice,
//             "epochs": {"type": "int", "default": 10, "min": 1, "max": 100000, "help": "Passes."},
//             "lr": {"type": "real", "default": 0.1, "min": 0, "exclusive_min": True, "log": True},
//             "loss": {"type": "choice", "choices": ["squared", "logistic"], "default": "logistic"},
//         }
//         def __init__(self, params): ...           # a dict of the normalised values, defaults filled in
//         def fit(self, data, ctx): ...
//         def predict(self, X): ...                 # n×k array-like (class scores or values)
//
// fit() gets data.x (n×d) and data.y (n×k, one-hot for classification) — float64, read-only
// NumPy views of the host's matrices, no copy, valid only during fit() — and data.task
// ("classification" or "regression"), data.labels (n int64 class indices, a copy; None for
// regression), data.class_names, data.feature_names; and ctx (ScriptContext.h): ctx.seed,
// ctx.threads, ctx.checkpoint(epoch, loss=None, note="") -> bool (False: return now),
// ctx.stopped(), ctx.budget_spent(), ctx.record(key, value), ctx.log(message). It must call
// ctx.checkpoint() at least at the end of every epoch. predict(X) gets a read-only view of the
// host's X, also valid only during the call.
//
// The host's behaviour (the GIL, Stop, errors, reproducibility) is described in
// docs/plugin-guide.md, "Trainers written in Python", and in PythonRuntime.h, PythonTrainer.h,
// StopWatcher.h.
#pragma once

#include <trainbench/ScriptHost.h>
#include <trainbench/TrainerFactory.h>

#include <QHash>
#include <QObject>
#include <QStringList>
#include <memory>
#include <mutex>

namespace tb::python {

class PythonScript;

/// Root object of the "python" plugin: a TrainerFactory with no algorithms of its own and a
/// ScriptHost whose scripts are the `.py` files of searchPaths().
class PythonPlugin final : public QObject, public TrainerFactory, public ScriptHost {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "python.json")
    Q_INTERFACES(tb::TrainerFactory tb::ScriptHost)

public:
    PythonPlugin();
    ~PythonPlugin() override;

    /// None: every algorithm is a script's (scripts()).
    QList<AlgorithmInfo> algorithms() const override { return {}; }
    /// Throws std::invalid_argument: a script's trainers come from its own factory
    /// (ScriptFile::factory).
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;

    /// The `.py` files directly in each folder of searchPaths(), each folder's by name. A file is
    /// Refused when @p trust refuses it or its folder (never read), Invalid when it is not a
    /// regular file, its stem is not [a-z][a-z0-9_]*, it cannot be read, Python cannot start, or
    /// PythonScript::load() found a fault; Shadowed when a usable file of the same stem came
    /// earlier. Its version is "sha256:" + the first 16 hex digits of its content's SHA-256. A
    /// file read before with the same content is not executed again. Thread-safe (serialised).
    QList<ScriptFile> scripts(const ScriptTrust& trust) const override;

    /// The folders of TRAINBENCH_PYTHON_PATH (colon-separated), then <user app-data>/plugins
    /// (QStandardPaths::GenericDataLocation + "/trainbench/plugins", the user folder of
    /// PluginRegistry::defaultSearchPaths()); cleaned, duplicates removed.
    static QStringList searchPaths();

    /// The largest script read (16 MiB): beyond it the file is listed as invalid, unread.
    static constexpr qint64 kMaxScriptBytes = 16 * 1024 * 1024;

private:
    /// What one file's path and content gave the first time (its script when usable).
    struct Loaded {
        ScriptFile file;
        std::unique_ptr<PythonScript> script;
    };
    /// The entry of @p path with content @p source (hash @p version), loaded now if it is new.
    const ScriptFile& load(const QString& path, const QString& stem, const QString& version,
                           const QByteArray& source) const;

    mutable std::mutex m_mutex;
    mutable QHash<QString, std::shared_ptr<Loaded>> m_loaded; ///< by path + '\n' + version; never shrinks
};

} // namespace tb::python
