#pragma once
/// @file LibsvmWriter.h
/// A data set written as a LIBSVM text file, for the libraries' own command-line tools.

#include "Dataset.h"

#include <QString>

namespace tb::data {

/// Writes @p set as `label index:value …` lines: the label is the class index (classification)
/// or the single target (regression), indices 1-based, zeros left out, every value in full
/// precision (%.17g) so that a reader gets the very doubles written. Dense or sparse inputs.
/// The file is replaced atomically (QSaveFile): on any error nothing is left at @p path and
/// DataError names it and the cause (a full disk included). Reentrant.
class LibsvmWriter {
public:
    static void write(const Dataset& set, const QString& path);
};

} // namespace tb::data
