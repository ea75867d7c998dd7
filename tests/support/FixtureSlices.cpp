#include "FixtureSlices.h"

#include <QLibrary>

#include <stdexcept>

namespace tb::testsupport {

std::function<long long()> fixtureCounter(const QString& pluginDir, const char* name)
{
    // Never unloaded: the registry that loaded the plugin keeps it, and so does this handle.
    auto* library = new QLibrary(pluginDir + QStringLiteral("/tb_test_trainers.so"));
    using Counter = long long (*)();
    const auto counter = reinterpret_cast<Counter>(library->resolve(name));
    if (!counter)
        throw std::runtime_error(
            (library->fileName() + ": no " + name + "(): " + library->errorString()).toStdString());
    return [counter] { return counter(); };
}

std::function<long long()> fixtureSliceCounter(const QString& pluginDir)
{
    return fixtureCounter(pluginDir, "tb_test_slices");
}

} // namespace tb::testsupport
