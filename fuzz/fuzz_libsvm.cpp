// LibsvmLoader::parse on arbitrary bytes, as classification and as regression, with the width
// from the file and a fixed one (a test file read with the training set's width), kept sparse
// and made dense (a sparse result must be a valid compressed matrix of the declared width).
#include "FuzzSupport.h"

#include <data/LibsvmLoader.h>

#include <QByteArray>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using tb::data::LibsvmLoader;
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    for (int i = 0; i < 4; ++i) {
        LibsvmLoader::Options o;
        o.task = i % 2 ? tb::Task::Regression : tb::Task::Classification;
        o.features = i < 2 ? 0 : 8;
        if (i == 2)
            o.classNames = {QStringLiteral("-1"), QStringLiteral("1")};
        for (const auto storage : {LibsvmLoader::Storage::Dense, LibsvmLoader::Storage::Sparse}) {
            o.storage = storage;
            tb::fuzz::expectDataErrorOnly([&] {
                const tb::data::Dataset d = LibsvmLoader::parse(bytes, QStringLiteral("fuzz.libsvm"), o);
                if (d.isSparse()) {
                    const int* outer = d.xSparse.outerIndexPtr();
                    if (!d.xSparse.isCompressed() || d.x.rows() != d.xSparse.rows() || outer[0] != 0)
                        __builtin_trap();
                    for (Eigen::Index r = 0; r < d.xSparse.rows(); ++r)
                        for (int e = outer[r]; e < outer[r + 1]; ++e) {
                            const int c = d.xSparse.innerIndexPtr()[e];
                            if (c < 0 || c >= d.xSparse.cols() || (e > outer[r] && c <= d.xSparse.innerIndexPtr()[e - 1]))
                                __builtin_trap(); // columns in range and strictly increasing
                        }
                }
            });
        }
    }
    return 0;
}
