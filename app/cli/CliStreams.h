#pragma once
/// @file CliStreams.h
/// What every trainbench-cli command shares: its exit codes (docs/cli.md, "Exit codes") and the
/// process's standard output and error as text streams.

#include <QTextStream>

namespace tb::cli {

/// The exit codes of trainbench-cli, one table for every command (docs/cli.md).
enum Exit {
    Ok = 0,         ///< success
    RunsFailed = 1, ///< the experiment ran, some runs failed or diverged
    Usage = 2,      ///< unknown command, bad option, unknown id
    Invalid = 3,    ///< an invalid file or data (also: a fetched file that does not match its checksum)
    Database = 4,   ///< the database could not be opened or written
    Stopped = 5,    ///< stopped by the user
    Output = 6,     ///< a chart, CSV or table file could not be written
    Failed = 7      ///< `datasets fetch`: a download failed
};

/// The process's standard output, as one text stream for every command. Main thread only.
inline QTextStream& out()
{
    static QTextStream s(stdout);
    return s;
}

/// The process's standard error, as one text stream for every command. Main thread only.
inline QTextStream& err()
{
    static QTextStream s(stderr);
    return s;
}

} // namespace tb::cli
