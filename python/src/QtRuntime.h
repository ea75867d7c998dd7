#pragma once
/// @file QtRuntime.h
/// The QCoreApplication the core needs inside a Python process.

namespace tb::python {

/// Qt inside the Python interpreter. The core needs a QCoreApplication for a few things: Qt's
/// SQLite driver is a plugin found through it, QCoreApplication::applicationDirPath() is part of
/// the plugin search path, QStandardPaths and the store's connections expect one.
class QtRuntime {
public:
    /// Creates the process's QCoreApplication if there is none (QCoreApplication::instance() is
    /// null), once; otherwise uses the one there is (a Qt application that embeds Python).
    /// Thread-safe; cheap after the first call.
    ///
    /// The application it creates: argc/argv of static storage (they outlive it; the program name
    /// is "trainbench-python"), application and organisation name "trainbench" as the CLI's, never
    /// destroyed (Python may call into the module until the process ends; Qt's objects must not
    /// die before the plugins and stores that use them). It installs no signal handler: SIGINT
    /// stays Python's (KeyboardInterrupt). The C locale is restored to what it was before
    /// (QCoreApplication sets LC_ALL from the environment on Unix, which would change LC_NUMERIC
    /// under Python's C extensions).
    ///
    /// Threads: Qt adopts as its "main thread" the first thread that uses Qt at all, and the
    /// application object belongs to the thread that creates it. The rule: make the first call
    /// from Python's main thread (importing and using the module there does). Made on another
    /// thread, it still works for everything the module does — nothing of it posts events to the
    /// application or runs an event loop; stores, runs and plugins work on every thread, also after
    /// that thread has ended (tests/python/test_qt_runtime.py) — but Qt then counts that thread as
    /// its main thread, so a Qt event loop or GUI in the same process (PySide, a Qt program that
    /// embeds Python) would have to run there; and if another thread had used Qt first, Qt warns
    /// "QApplication was not created in the main() thread".
    static void ensure();

    /// Whether ensure() created the application (false: there was one already, or not yet called).
    static bool created();
};

} // namespace tb::python
