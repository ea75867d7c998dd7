// IdxLoader on arbitrary bytes, plain or gzip (the loader detects gzip by content), as images
// and as labels. The bytes go to an in-memory file (memfd), which is a regular file as the
// loader demands.
#include "FuzzSupport.h"

#include <data/IdxLoader.h>

#include <QString>

#include <sys/mman.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using tb::data::IdxLoader;
    static const int fd = memfd_create("fuzz.idx", 0);
    if (fd < 0)
        return 0;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != ssize_t(size))
        return 0;
    const QString path = QStringLiteral("/proc/self/fd/%1").arg(fd);
    tb::fuzz::expectDataErrorOnly([&] { IdxLoader::readImages(path); });
    tb::fuzz::expectDataErrorOnly([&] { IdxLoader::readLabels(path, 10); });
    return 0;
}
