#pragma once
/// @file Interrupts.h
/// Ctrl-C (SIGINT) and SIGTERM of every trainbench-cli command: the first asks the experiment that
/// trains (or a `datasets fetch`) to stop; a second ends the process at once with exit code 5.

#include <atomic>

namespace tb {
class ExperimentRunner;
}

namespace tb::cli {

/// Installs the handler for SIGINT and SIGTERM. Main thread only.
void catchInterrupts();

/// Where a command puts the runner that Ctrl-C stops while an experiment trains (null otherwise).
ExperimentRunner** runnerToStop();

/// Set by the first Ctrl-C: cancels a `datasets fetch` (its part is kept).
std::atomic<bool>* fetchStop();

} // namespace tb::cli
