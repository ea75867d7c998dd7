#include "Interrupts.h"
#include "CliStreams.h"

#include <engine/ExperimentRunner.h>

#include <csignal>
#include <cstdlib>

namespace tb::cli {
namespace {

tb::ExperimentRunner* g_runner = nullptr;
std::atomic<int> g_interrupts{0};
std::atomic<bool> g_fetchStop{false}; // `datasets fetch`: Ctrl-C cancels the transfer, its part kept

extern "C" void onSigint(int)
{
    // Only lock-free atomic stores here: the runner's stop flag is a std::atomic<bool>.
    if (++g_interrupts > 1)
        std::_Exit(Stopped);
    if (g_runner)
        g_runner->requestStop();
    g_fetchStop.store(true);
}

} // namespace

void catchInterrupts()
{
    std::signal(SIGINT, onSigint);
    std::signal(SIGTERM, onSigint);
}

ExperimentRunner** runnerToStop()
{
    return &g_runner;
}

std::atomic<bool>* fetchStop()
{
    return &g_fetchStop;
}

} // namespace tb::cli
