// CsvLoader::parse on arbitrary bytes, read with several option sets per input, so that the
// test fixtures (plain CSV files) are good seeds as they are.
#include "FuzzSupport.h"

#include <data/CsvLoader.h>

#include <QByteArray>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using tb::data::CsvLoader;
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    static const char delimiters[] = {',', ';', '\t', '|', ' '};
    for (int i = 0; i < 10; ++i) {
        CsvLoader::Options o;
        o.delimiter = delimiters[i % 5];
        o.header = i < 5;
        o.skipRows = int(size % 3);
        o.task = (size + std::size_t(i)) % 2 ? tb::Task::Regression : tb::Task::Classification;
        o.targets = {CsvLoader::Column(i % 2 ? -1 : 0)};
        tb::fuzz::expectDataErrorOnly([&] { CsvLoader::parse(bytes, QStringLiteral("fuzz.csv"), o); });
    }
    return 0;
}
