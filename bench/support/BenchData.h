#pragma once
/// @file BenchData.h
/// Data sets for the benchmarks, loaded as the engine loads an experiment's data set.

#include <data/Dataset.h>

#include <QJsonObject>

namespace tb::bench {

class BenchArguments;

/// Loading and splitting the benchmarks' data. Stateless; thread-safe.
class BenchData {
public:
    /// The data-set object (as in an experiment file, docs/experiments.md) of Fashion-MNIST as
    /// the command line asks for it: --data DIR (when declared and given) as "dir",
    /// --train-limit N (when declared and N > 0) as "train_limit", and @p extra's keys
    /// (e.g. "keep_classes").
    static QJsonObject fashionMnistSpec(const BenchArguments& args, const QJsonObject& extra = {});

    /// Loads @p spec through tb::data::DataSource (the engine's loader: the same rows, scaling
    /// and seeded subsamples as trainbench-cli) and prints "load: TRAIN and TEST in S s".
    /// @p baseDir resolves relative file names. Throws tb::data::DataError with the key at fault.
    static data::DatasetPair load(const QJsonObject& spec, const QString& baseDir = {});

    /// How hold-out rows are ordered (both orders hold out the same rows).
    enum class Order {
        Source,   ///< training and held-out rows in the source's order (bpls_fashion, dsgd_fashion)
        Shuffled, ///< in the shuffled order that chose them (lsq_fashion's recorded figures)
    };

    /// Holds out @p rows training rows for validation: they become @p data's evaluation set (in
    /// place of the test set, which a choice made on validation must never see) and the training
    /// set keeps the others. The rows are the first @p rows of a Fisher–Yates shuffle of the row
    /// indices with tb::data::Rng(12345, Split). Throws std::invalid_argument naming --validation
    /// when @p rows is not in [1, training rows).
    static void holdOut(data::DatasetPair& data, Eigen::Index rows, Order order = Order::Source);
};

} // namespace tb::bench
