#pragma once
/// @file LibraryNoise.h
/// Keeps Qt's own diagnostics, which say nothing about the user's work, off the CLI's stderr.

#include <QString>
#include <QtGlobal>

namespace tb::cli {

/// trainbench-cli's stderr is read by people and parsed by scripts: it carries the command's own
/// messages. Qt writes remarks of its own there, e.g. "QStandardPaths: XDG_RUNTIME_DIR not set,
/// defaulting to '/tmp/runtime-root'" for every user without a desktop session (the platform
/// plugin looks for the runtime folder at start-up), and platform or font remarks under Qt's
/// "qt.*" logging categories. install() drops those, at debug, info and warning level; Qt's
/// critical and fatal messages and every message of Trainbench's own code still reach stderr.
/// Whoever debugs Qt itself gets everything back by setting QT_LOGGING_RULES or
/// TRAINBENCH_QT_MESSAGES=1. Library output that bypasses Qt's message handler is not affected
/// (the CLI's dependencies print none in normal use).
class LibraryNoise {
public:
    /// Installs the filter as Qt's message handler, in front of the previous one. Call it once,
    /// before QApplication is constructed. Thread-safe once installed.
    static void install();

    /// Whether a message of @p type in logging category @p category with text @p message is
    /// Qt's own noise (dropped by the filter).
    static bool isNoise(QtMsgType type, const char* category, const QString& message);
};

} // namespace tb::cli
