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
/// The sources and their keys are declared once in DataSourceSchema (with defaults, ranges and
/// help texts; docs/experiments.md lists them): bpls-toy, moons, circles, spirals, xor,
/// friedman1, mv, fashion-mnist, idx, csv and libsvm. Any other key is an error (usually a typo;
/// the message suggests the nearest key). Rules between keys: csv and libsvm take exactly one
/// of "test_file" or "test_fraction"; a csv "target" is required unless "target_file" holds
/// the targets, and then a "test_file" needs its "test_target_file"; classification takes one
/// target column; "standardise_targets" and "min_max_scale" are for regression only, and
/// "min_max_scale" excludes both standardisations; the rf_* keys need "random_features"
/// (RandomFeatureOption: seeded random features of the inputs, fitted on the training rows,
/// applied last). Relative paths resolve against
/// the experiment file's folder. Memory for generated sets is checked before it is allocated
/// (MemoryBudget). All functions are reentrant.
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

    /// What is suspicious about a loaded pair though not an error (load() puts it into
    /// DatasetPair::warnings): a training set with one class (any classifier scores 100 %), or a
    /// "classification" with more classes than half its rows (a regression target?).
    static QStringList warnings(const DatasetPair& pair);

    /// @p spec with every file or folder key ("dir", "train_images", "train_labels",
    /// "test_images", "test_labels", "file", "test_file") resolved against @p baseDir (the
    /// current directory when empty), so the object means the same data wherever it is read
    /// later (the run store keeps it for re-runs). Other keys are unchanged. Never throws.
    static QJsonObject withAbsolutePaths(const QJsonObject& spec, const QString& baseDir);

    /// The known "source" values.
    static QStringList sources();
};

} // namespace tb::data
