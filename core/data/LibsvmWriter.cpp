#include "LibsvmWriter.h"

#include "DataError.h"

#include <QSaveFile>

#include <cstdio>

namespace tb::data {

void LibsvmWriter::write(const Dataset& set, const QString& path)
{
    if (!set.isClassification() && set.outputs() != 1)
        throw DataError::inFile(path, QStringLiteral("a LIBSVM file holds one target; this set has %1").arg(set.outputs()));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw DataError::inFile(path, QStringLiteral("cannot write: %1").arg(file.errorString()));
    QByteArray line;
    char number[64];
    auto put = [&](const char* format, auto value) {
        const int n = std::snprintf(number, sizeof number, format, value);
        line.append(number, n);
    };
    for (Eigen::Index i = 0; i < set.rows(); ++i) {
        line.clear();
        if (set.isClassification())
            put("%d", set.labels[std::size_t(i)]);
        else
            put("%.17g", set.y(i, 0));
        if (set.isSparse()) {
            for (SparseMatrix::InnerIterator it(set.xSparse, i); it; ++it) {
                put(" %lld", static_cast<long long>(it.col()) + 1);
                put(":%.17g", it.value());
            }
        } else {
            for (Eigen::Index j = 0; j < set.inputs(); ++j)
                if (set.x(i, j) != 0.0) {
                    put(" %lld", static_cast<long long>(j) + 1);
                    put(":%.17g", set.x(i, j));
                }
        }
        line.append('\n');
        if (file.write(line) != line.size())
            throw DataError::inFile(path, QStringLiteral("write failed at row %1: %2").arg(i + 1).arg(file.errorString()));
    }
    if (!file.commit())
        throw DataError::inFile(path, QStringLiteral("write failed: %1").arg(file.errorString()));
}

} // namespace tb::data
