#pragma once
/// @file MpiProtocol.h
/// The messages between rank 0 (which owns the run store) and the worker ranks of
/// `trainbench-cli run --mpi` and `reproduce --mpi`: their tags, their encoding, and
/// sending/receiving them.
///
/// Every message is one MPI_BYTE buffer holding a QDataStream (Qt 6.4 format) of the fields
/// named below. Doubles travel bit for bit (NaN included), so a checkpoint stored by rank 0
/// holds exactly the numbers the worker computed. The conversation:
///   worker → 0  Hello       {app version, git hash, host, pid, {algorithm id → plugin version}}
///   0 → worker  Cells       {cell indices}          a batch, trained in order … or Done {} (no more
///                           cells: exit). Batches grow while cells are short (MpiRootExecutor).
///   worker → 0  CreateRun   {RunRecord}             0 → worker RunId {id}
///   worker → 0  Metric      {[(run id, MetricPoint)]} checkpoints in the order they were logged: those
///                           logged within 20 ms of the last Metric wait for the next one (MpiWorkerExecutor)
///   worker → 0  FinishRun   {run id, status, error, info}
///   worker → 0  CellDone    {cell index, CellOutput}
///   worker → 0  CellSkipped {cell index}            a cell of its batch not begun because of Stop
///   worker → 0  Heartbeat   {} every second, from a thread of its own, while the rank lives
///   0 → worker  Stop        {} (the user stopped the experiment: cancel the cell in hand)
///   worker → 0  Refused     {message} (this rank cannot run the experiment, e.g. its data file is
///                           missing on that node), instead of Hello; then it waits for Done
/// Several experiments in one job (`reproduce --mpi`) wrap that conversation, once per experiment
/// that has cells to train, in:
///   0 → worker  Experiment  {ExperimentMessage}     the next experiment; the conversation above follows
///   worker → 0  Served      {}                      after its Done: everything this rank sent for that
///                           experiment has been sent (rank 0 drops what it did not read of it)
///   0 → worker  Quit        {exit code, rank lost}  no more experiments: exit with that code

#include <engine/CellExecutor.h>
#include <store/RunTypes.h>

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace tb::cluster {

enum class Tag : int {
    Hello = 1, Cells, Done, CreateRun, RunId, Metric, FinishRun, CellDone, Heartbeat, Stop, Refused, CellSkipped,
    Experiment, Served, Quit
};

/// Who a worker is, and what it would run with.
struct Hello {
    QString appVersion;
    QString gitHash;
    QString host;
    qint64 pid = 0;
    QHash<QString, QString> pluginVersions; ///< algorithm id → its plugin's version ("" if unknown)
};

/// An experiment of `reproduce --mpi` as rank 0 parsed it: the object ExperimentSpec::fromObject()
/// read (before upgradeParams(): each rank upgrades with its own plugins, which Hello checks are
/// rank 0's), the name its errors use, and the file it stands for (relative data paths resolve
/// against baseDir on every rank, as for `run --mpi`).
struct ExperimentMessage {
    QJsonObject json;
    QString sourceName;
    QString sourcePath;
    QString baseDir;
};

/// The end of a `reproduce --mpi` job for a worker.
struct Quit {
    int exitCode = 0;      ///< rank 0's exit code: the worker exits with it
    bool peerLost = false; ///< a rank of the job died: do not call MPI_Finalize
};

QByteArray encode(const Hello& h);
QByteArray encode(const ExperimentMessage& e);
QByteArray encode(const Quit& q);
QByteArray encode(const RunRecord& r);
QByteArray encode(const QList<std::pair<qint64, MetricPoint>>& metrics);
QByteArray encodeFinish(qint64 runId, RunStatus status, const QString& error, const QJsonObject& info);
QByteArray encode(int cell, const CellOutput& out);
QByteArray encodeInt(qint64 value);
QByteArray encodeText(const QString& text);
QByteArray encodeCells(const QList<int>& cells);

/// Decoders: std::nullopt for a buffer that is not a complete message of that kind.
std::optional<Hello> decodeHello(const QByteArray& b);
std::optional<ExperimentMessage> decodeExperiment(const QByteArray& b);
std::optional<Quit> decodeQuit(const QByteArray& b);
std::optional<RunRecord> decodeRunRecord(const QByteArray& b);
std::optional<QList<std::pair<qint64, MetricPoint>>> decodeMetrics(const QByteArray& b);
struct Finish {
    qint64 runId = -1;
    RunStatus status = RunStatus::Failed;
    QString error;
    QJsonObject info;
};
std::optional<Finish> decodeFinish(const QByteArray& b);
std::optional<std::pair<int, CellOutput>> decodeCellDone(const QByteArray& b);
std::optional<qint64> decodeInt(const QByteArray& b);
std::optional<QString> decodeText(const QByteArray& b);
std::optional<QList<int>> decodeCells(const QByteArray& b);

/// Sends @p payload to @p rank with @p tag (blocking until the buffer may be reused). False if
/// MPI reported an error.
bool send(int rank, Tag tag, const QByteArray& payload);
/// As send(), but gives up after @p seconds when @p rank does not take the message (a dead
/// process over TCP never does: a blocking send would never return). The abandoned message's
/// buffer is kept for the life of the process. False on timeout or error.
bool sendWithin(int rank, Tag tag, const QByteArray& payload, double seconds);
/// A message that has arrived.
struct Message {
    int source = -1;
    Tag tag = Tag::Done;
    QByteArray payload;
};
/// The next message from @p source (MPI_ANY_SOURCE: −1 here) with @p tag (−1: any), if one has
/// arrived; never blocks.
std::optional<Message> poll(int source = -1, int tag = -1);

} // namespace tb::cluster
