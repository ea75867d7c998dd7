// The experiment file: ExperimentSpec::fromJson (JSON syntax, structure, keys written twice),
// validation of its algorithms against an empty plugin registry, and DataSource's validation
// and description of its "dataset" object. No data is loaded (a spec may ask for 10^12 samples:
// that is the loaders' harnesses' business and MemoryBudget's).
#include "FuzzSupport.h"

#include <data/DataSource.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>

#include <QByteArray>
#include <QJsonDocument>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const tb::PluginRegistry registry; // empty: every algorithm id is unknown
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    QString error;
    tb::fuzz::expectDataErrorOnly([&] {
        if (auto spec = tb::ExperimentSpec::fromJson(bytes, QStringLiteral("fuzz.json"), &error)) {
            spec->validate(registry);
            spec->toJson();
            tb::data::DataSource::validate(spec->dataset);
            tb::data::DataSource::describe(spec->dataset);
            tb::data::DataSource::task(spec->dataset);
            tb::data::DataSource::withAbsolutePaths(spec->dataset, QStringLiteral("/tmp"));
        }
        // Any object as a dataset, also where the spec's structure is wrong.
        const QJsonDocument doc = QJsonDocument::fromJson(bytes);
        if (doc.isObject()) {
            tb::data::DataSource::validate(doc.object());
            tb::data::DataSource::describe(doc.object());
        }
    });
    return 0;
}
