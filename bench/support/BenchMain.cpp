#include "BenchMain.h"

#include <engine/ProcessSetup.h>

#include <QApplication>
#include <QCoreApplication>

#include <cstdio>
#include <memory>
#include <new>

namespace tb::bench {

int benchMain(int argc, char** argv, BenchArguments& args, const BenchSetup& setup,
              const std::function<int()>& body)
{
    if (setup.hugePages)
        ProcessSetup::useHugePages(argv); // may restart the process once: first thing
    if (setup.charts && !setup.widgets && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    std::unique_ptr<QCoreApplication> app;
    if (setup.charts || setup.widgets)
        app = std::make_unique<QApplication>(argc, argv);
    else
        app = std::make_unique<QCoreApplication>(argc, argv);
    const QByteArray name = args.program().toLocal8Bit();
    try {
        args.parse(QCoreApplication::arguments());
        return body();
    } catch (const BenchArguments::Error& e) {
        std::fprintf(stderr, "%s: %s\n", name.constData(), e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "%s: out of memory (std::bad_alloc)\n", name.constData());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name.constData(), e.what());
        return 1;
    }
}

} // namespace tb::bench
