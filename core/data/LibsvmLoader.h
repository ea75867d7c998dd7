#pragma once
/// @file LibsvmLoader.h
/// Sparse "label index:value …" text files (LIBSVM / SVMlight format), kept sparse or made dense.

#include "Dataset.h"

#include <Eigen/Core>
#include <QString>
#include <QStringList>

namespace tb::data {

/// Reader of LIBSVM files. Each non-blank line is `label idx:val idx:val …` with 1-based,
/// strictly increasing indices; absent indices are 0. Text after '#' is a comment.
/// Feature j (0-based) of the matrix is index j+1 of the file.
///
/// The inputs are kept sparse (Dataset::xSparse, compressed rows, explicit zeros dropped) or made
/// dense (Dataset::x), as Options::storage says. The file is read twice, in pieces: the first
/// pass checks every line and counts each row's non-zeros, the second fills matrices allocated
/// at their exact size — the load's peak memory is the result plus a 4 MiB read buffer, never
/// the file's text (a 5-million-non-zero file takes ≈ 60 MB sparse).
///
/// Classification: labels are class names written as numbers ("+1" and "1" are the same
/// class); classes are sorted numerically. Regression: the label is the single target.
/// Every problem throws DataError naming the file, the line (1-based) and the token: bad
/// token, zero index, an index repeated or smaller than the one before it, an index above the
/// given feature count or above 2^31 − 1 (a sparse row's 32-bit column index, as LIBLINEAR and
/// LIBSVM use), more than 2^31 − 1 non-zeros, bad value, NaN/Inf. Reentrant.
class LibsvmLoader {
public:
    /// How the inputs are stored.
    enum class Storage {
        Auto,   ///< sparse when the dense matrix would take more than 64 MiB and at least 4× the sparse one
        Dense,  ///< always dense (n×d doubles; refused when they do not fit in memory)
        Sparse  ///< always sparse
    };

    struct Options {
        tb::Task task = tb::Task::Classification;
        /// Number of features d; 0 means the largest index in the file. A test file is
        /// usually read with the training set's d.
        Eigen::Index features = 0;
        /// Classification: when non-empty, labels are mapped through these names (a test
        /// file mapped through the training classes) and an unseen label is an error.
        QStringList classNames;
        Storage storage = Storage::Auto;
    };

    /// Loads @p path (plain or gzip; a regular file). Throws DataError on any problem, also
    /// when the matrix would not fit in the memory available (MemoryBudget), and when the file
    /// changes between the two passes.
    static Dataset load(const QString& path, const Options& options);

    /// Parses the bytes of one file named @p name in messages (for tests and fuzzing).
    static Dataset parse(const QByteArray& bytes, const QString& name, const Options& options);

    /// The storage Storage::Auto chooses for @p rows × @p features with @p nonZeros non-zeros.
    static Storage automaticStorage(Eigen::Index rows, Eigen::Index features, std::uint64_t nonZeros);

    /// "auto", "dense", "sparse".
    static QString storageName(Storage s);

    /// Canonical class name of a numeric label: the shortest text that reads back as the
    /// same double ("+1" → "1", "1.0" → "1", "-1" → "-1").
    static QString labelName(double label);
};

} // namespace tb::data
