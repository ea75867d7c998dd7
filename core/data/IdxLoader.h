#pragma once
/// @file IdxLoader.h
/// MNIST-style IDX files (unsigned-byte images and labels), plain or gzip-compressed.

#include "Dataset.h"
#include "Rng.h"

#include <Eigen/Core>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace tb::data {

/// Reader of the IDX format used by MNIST and Fashion-MNIST.
///
/// Labels: magic 0x00000801, count (big-endian u32), count bytes. Images: magic 0x00000803,
/// count, rows, cols (big-endian u32), count·rows·cols bytes, row-major per image.
/// gzip is detected from the first two bytes (0x1f 0x8b), never from the file name.
/// Every problem throws DataError naming the file and the byte offset (in the uncompressed
/// stream): wrong magic (expected vs found), truncation (expected vs got bytes), trailing
/// data, image/label count mismatch, label out of range, corrupt gzip data.
/// All functions are reentrant (no shared state) and may run concurrently.
class IdxLoader {
public:
    static constexpr std::uint32_t labelsMagic = 0x00000801;
    static constexpr std::uint32_t imagesMagic = 0x00000803;

    /// Options of load().
    struct Options {
        int classCount = 10;           ///< labels must lie in [0, classCount); 1..256
        QStringList classNames;        ///< classCount names; empty → "0", "1", …
        Eigen::Index limit = -1;       ///< -1: all rows; else 1..count rows drawn at random
        std::uint64_t seed = 1;        ///< seed of the random subset (when limit is set)
        std::uint64_t stream = Rng::TrainSubset; ///< Rng stream of the subset
        QString name;                  ///< description prefix, e.g. "fashion-mnist train"
    };

    /// Images as an n×(rows·cols) matrix of pixel/255, so every value lies in [0, 1].
    /// @p imageRows / @p imageCols, when given, receive the image height and width.
    static Eigen::MatrixXd readImages(const QString& path, int* imageRows = nullptr, int* imageCols = nullptr);

    /// Labels as class indices; each must lie in [0, classCount).
    static std::vector<int> readLabels(const QString& path, int classCount = 10);

    /// Images and labels as one classification Dataset (one-hot y, classNames, labels),
    /// optionally a seeded random subset of options.limit rows in file order.
    static Dataset load(const QString& imagesPath, const QString& labelsPath, const Options& options);

    /// The Fashion-MNIST folder: $TRAINBENCH_FASHION_MNIST if it names a folder, else
    /// /usr/share/datasets/fashion-mnist if it exists, else an empty string.
    static QString fashionMnistDir();

    /// The ten Fashion-MNIST class names, "T-shirt/top" … "Ankle boot".
    static QStringList fashionMnistClassNames();

    /// @p dir/@p baseName + ".gz" if that file exists, else @p dir/@p baseName (which may not
    /// exist; load() then reports it).
    static QString findFile(const QString& dir, const QString& baseName);

    /// Train (60000) and test (10000) sets from the standard file names in @p dir
    /// (train-images-idx3-ubyte[.gz] …). Limits of -1 load everything; otherwise seeded
    /// random subsets (streams Rng::TrainSubset and Rng::TestSubset of @p seed).
    static DatasetPair loadFashionMnist(const QString& dir, Eigen::Index trainLimit = -1,
                                        Eigen::Index testLimit = -1, std::uint64_t seed = 1);
};

} // namespace tb::data
