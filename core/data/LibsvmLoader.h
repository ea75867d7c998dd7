#pragma once
/// @file LibsvmLoader.h
/// Sparse "label index:value …" text files (LIBSVM / SVMlight format), made dense.

#include "Dataset.h"

#include <Eigen/Core>
#include <QString>
#include <QStringList>

namespace tb::data {

/// Reader of LIBSVM files. Each non-blank line is `label idx:val idx:val …` with 1-based,
/// strictly increasing indices; absent indices are 0. Text after '#' is a comment.
/// Feature j (0-based) of the dense matrix is index j+1 of the file.
///
/// Classification: labels are class names written as numbers ("+1" and "1" are the same
/// class); classes are sorted numerically. Regression: the label is the single target.
/// Every problem throws DataError naming the file, the line (1-based) and the token: bad
/// token, zero or non-increasing index, index above the given feature count, bad value,
/// NaN/Inf. Reentrant.
class LibsvmLoader {
public:
    struct Options {
        tb::Task task = tb::Task::Classification;
        /// Number of features d; 0 means the largest index in the file. A test file is
        /// usually read with the training set's d.
        Eigen::Index features = 0;
        /// Classification: when non-empty, labels are mapped through these names (a test
        /// file mapped through the training classes) and an unseen label is an error.
        QStringList classNames;
    };

    /// Loads @p path (plain or gzip; a regular file). Throws DataError on any problem, also
    /// when the dense matrix would not fit in the memory available (MemoryBudget).
    static Dataset load(const QString& path, const Options& options);

    /// Parses the bytes of one file named @p name in messages (for tests and fuzzing).
    static Dataset parse(const QByteArray& bytes, const QString& name, const Options& options);

    /// Canonical class name of a numeric label: the shortest text that reads back as the
    /// same double ("+1" → "1", "1.0" → "1", "-1" → "-1").
    static QString labelName(double label);
};

} // namespace tb::data
