#pragma once
/// @file BenchMain.h
/// main() of a benchmark program: process set-up, the Qt application, the command line, errors.

#include "BenchArguments.h"

#include <functional>

namespace tb::bench {

/// What a benchmark's process needs before it parses its command line.
struct BenchSetup {
    /// Restart once with glibc's huge-page tunable, as trainbench-cli and the workbench do
    /// (tb::ProcessSetup; bench/README.md, "Huge pages"). Default on.
    bool hugePages = true;
    /// A QApplication (Qt Charts render through QtGui/Widgets) on the offscreen platform unless
    /// QT_QPA_PLATFORM says otherwise; else a QCoreApplication. Default off.
    bool charts = false;
    /// A QApplication on the real display (the GUI benchmarks). Default off.
    bool widgets = false;
};

/// Runs a benchmark: applies @p setup, creates the Qt application, parses the command line
/// into @p args, then calls @p body. Returns @p body's exit code; 2 with the message when the
/// command line is wrong (BenchArguments::Error, thrown by parse() or by @p body while it reads
/// values); 1 with "program: message" when @p body throws anything else. Call it from main()
/// before anything else runs.
int benchMain(int argc, char** argv, BenchArguments& args, const BenchSetup& setup,
              const std::function<int()>& body);

} // namespace tb::bench
