#pragma once
/// @file DatasetsCommand.h
/// `trainbench-cli datasets`: the data-set catalogue — list, fetch, verify, path, remove.

#include <QStringList>
#include <atomic>

namespace tb::cli {

/// Runs `trainbench-cli datasets [list|fetch|verify|path|remove] …` (docs/cli.md) with @p args
/// as given to QCommandLineParser (args[0] is the program). @p stop, set by the CLI's SIGINT
/// handler, cancels a fetch (its part is kept and resumes). Returns the CLI's exit code: 0 ok,
/// 2 usage (unknown name or sub-command, a removal not confirmed), 3 a file does not match its
/// checksum, 5 stopped by the user, 7 a download failed (network, disk).
int datasetsCommand(const QStringList& args, std::atomic<bool>* stop);

} // namespace tb::cli
