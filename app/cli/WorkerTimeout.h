#pragma once
/// @file WorkerTimeout.h
/// --worker-timeout of `run --mpi` and `reproduce --mpi`: seconds of silence after which a worker
/// rank counts as lost. One parser, so both commands accept and refuse the same values.

#include <QCommandLineParser>
#include <QString>
#include <optional>

namespace tb::cli {

/// The option's value in seconds: 30 when it is not given; nullopt, with @p error naming the value,
/// when it is not a number in [1, 86400].
inline std::optional<double> workerTimeout(const QCommandLineParser& p, QString* error)
{
    if (!p.isSet(QStringLiteral("worker-timeout")))
        return 30.0;
    bool ok = false;
    const QString text = p.value(QStringLiteral("worker-timeout"));
    const double seconds = text.toDouble(&ok);
    if (!ok || !(seconds >= 1) || seconds > 86400) {
        *error = QStringLiteral("--worker-timeout: expected seconds in [1, 86400], got \"%1\"").arg(text);
        return std::nullopt;
    }
    return seconds;
}

} // namespace tb::cli
