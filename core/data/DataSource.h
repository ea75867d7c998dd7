#pragma once
/// @file DataSource.h
/// The single entry point from an experiment file's "dataset" object to a train/test pair.

#include "Dataset.h"

#include <QJsonObject>
#include <QVariantMap>
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
/// The "source" names a data source of DataSourceRegistry (built in: bpls-toy, moons, circles,
/// spirals, xor, friedman1, mv, fashion-mnist, idx, csv and libsvm — core/data/sources/, one file
/// each; plugins may add more). Its keys are declared once, in its schema, with the keys every
/// source takes (DataKeys::common(): test_fraction, keep_classes, the scaling options, seed, the
/// random features); docs/experiments.md lists them. Any other key is an error (usually a typo;
/// the message suggests the nearest key). The spec is normalised by that schema once (defaults
/// filled in, canonical types), then the source loads or generates its sets and this class does
/// what is common to all: the test split, keep_classes, the shape, finiteness and class checks,
/// standardisation, min-max scaling and random features (RandomFeatureOption, applied last). Rules
/// between keys that a schema cannot express are the sources' (DataSourceProvider::conflict())
/// and this class's ("min_max_scale" excludes both standardisations; an odd rf_count with
/// cos/sin pairs). Relative paths resolve against the experiment file's folder. Memory a source
/// declares (DataSourceProvider::memoryNeed()) is checked before it is allocated (MemoryBudget).
/// All functions are reentrant.
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

    /// @p spec with every file or folder key (a Path or Folder of its source's schema: "dir",
    /// "train_images", "file", "test_file" …) resolved against @p baseDir (the
    /// current directory when empty), so the object means the same data wherever it is read
    /// later (the run store keeps it for re-runs). Other keys are unchanged. Never throws.
    static QJsonObject withAbsolutePaths(const QJsonObject& spec, const QString& baseDir);

    /// The known "source" values, in list order.
    static QStringList sources();

    /// @p spec checked and normalised by its source's schema: canonical types, the defaults of
    /// the keys that apply filled in, "source" kept. nullopt with @p error (as validate()) when
    /// it is not valid. Does not touch files.
    static std::optional<QVariantMap> normalised(const QJsonObject& spec, QString* error);
};

} // namespace tb::data
