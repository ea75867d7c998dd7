// LibsvmLoader::parse on arbitrary bytes, as classification and as regression, with the width
// from the file and a fixed one (a test file read with the training set's width).
#include "FuzzSupport.h"

#include <LibsvmLoader.h>

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
        tb::fuzz::expectDataErrorOnly([&] { LibsvmLoader::parse(bytes, QStringLiteral("fuzz.libsvm"), o); });
    }
    return 0;
}
