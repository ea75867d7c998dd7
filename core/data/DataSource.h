#pragma once
/// @file DataSource.h
/// The single entry point from an experiment file's "dataset" object to a train/test pair.

#include "Dataset.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

namespace tb::data {

/// Values an experiment imposes on the dataset spec, e.g. one cell of a noise sweep.
struct DataOverrides {
    /// Noise level: replaces "sigma" of bpls-toy and "noise" of moons, circles, spirals, xor and
    /// friedman1. Must be finite and ≥ 0. A file source given a sigma is an error.
    std::optional<double> sigma;
    /// Seed used when the spec has no "seed" key (the spec's own seed wins).
    std::optional<std::uint64_t> seed;
};

/// Builds a DatasetPair from the "dataset" JSON object of an experiment file.
///
/// Keys (all others are errors, usually typos):
///  - {"source":"bpls-toy", "function":"linear"|"nonlinear" (required), "sigma": ≥ 0 (default 0)}
///  - {"source":"moons"|"circles"|"spirals"|"xor", "samples": ≥ 2 (default 400),
///     "noise": ≥ 0 (default 0.1), "test_fraction": (0, 1) (default 0.3)}
///  - {"source":"friedman1", "samples": ≥ 2 (default 1000), "features": ≥ 5 (default 10),
///     "noise": ≥ 0 (default 1.0), "test_fraction": (0, 1) (default 0.3)}
///  - {"source":"fashion-mnist", "dir": folder (default IdxLoader::fashionMnistDir()),
///     "train_limit": N, "test_limit": N (optional seeded random subsets)}
///  - {"source":"idx", "train_images", "train_labels", "test_images", "test_labels" (required
///     paths), "train_limit", "test_limit", "classes": 1..256 (default 10)}
///  - {"source":"csv", "file" (required), "target": "col" or ["c1", …] (required),
///     "task": "classification"|"regression" (required), and exactly one of "test_file" or
///     "test_fraction"}
///  - {"source":"libsvm", "file", "task", "test_file" | "test_fraction", "features": d (optional)}
///  - every source: "standardise": bool (default false; fitted on train, applied to both),
///    "seed": non-negative integer or decimal string (generation, split and subset seed;
///    default DataOverrides::seed, else 1).
/// Relative paths resolve against the experiment file's folder. All functions are reentrant.
class DataSource {
public:
    /// Loads or generates the pair. After loading it checks that train and test have the same
    /// d and k, that every value is finite and that every test class occurs in train.
    /// Throws DataError for every problem: spec errors name the key ("dataset.samples: …"),
    /// file errors name the file and line or byte offset.
    static DatasetPair load(const QJsonObject& spec, const QString& baseDir, const DataOverrides& overrides = {});

    /// Short human text, e.g. "moons, 400 samples, noise 0.1, 30% test". Never throws; an
    /// invalid spec gives "invalid dataset: " and the validate() message.
    static QString describe(const QJsonObject& spec);

    /// Empty when @p spec is valid, else one message naming the key, e.g.
    /// `dataset.samples: expected a positive integer, got "abc"`. Does not touch files.
    static QString validate(const QJsonObject& spec);

    /// The task a valid spec yields without loading it; nullopt for an invalid spec.
    static std::optional<tb::Task> task(const QJsonObject& spec);

    /// True if the source has a noise level that DataOverrides::sigma may sweep.
    static bool hasNoiseLevel(const QJsonObject& spec);

    /// @p spec with every file or folder key ("dir", "train_images", "train_labels",
    /// "test_images", "test_labels", "file", "test_file") resolved against @p baseDir (the
    /// current directory when empty), so the object means the same data wherever it is read
    /// later (the run store keeps it for re-runs). Other keys are unchanged. Never throws.
    static QJsonObject withAbsolutePaths(const QJsonObject& spec, const QString& baseDir);

    /// The known "source" values.
    static QStringList sources();
};

} // namespace tb::data
