#include "MpiProtocol.h"

#include <QDataStream>
#include <QIODevice>

#include <mpi.h>

#include <chrono>
#include <limits>
#include <list>
#include <memory>
#include <thread>

namespace tb::cluster {
namespace {

constexpr QDataStream::Version kVersion = QDataStream::Qt_6_4;
/// Bumped whenever a message's fields change: ranks of different builds refuse each other.
constexpr quint32 kMagic = 0x54420003; // "TB", protocol 3 (a Metric message holds several checkpoints)

template <typename F>
QByteArray write(F&& fields)
{
    QByteArray b;
    QDataStream s(&b, QIODevice::WriteOnly);
    s.setVersion(kVersion);
    s << kMagic;
    fields(s);
    return b;
}

template <typename T, typename F>
std::optional<T> read(const QByteArray& b, F&& fields)
{
    QDataStream s(b);
    s.setVersion(kVersion);
    quint32 magic = 0;
    s >> magic;
    if (magic != kMagic)
        return std::nullopt;
    T value{};
    fields(s, value);
    if (s.status() != QDataStream::Ok || !s.atEnd())
        return std::nullopt;
    return value;
}

QDataStream& operator<<(QDataStream& s, const MetricPoint& p)
{
    return s << qint32(p.seq) << p.epoch << p.trainTime << p.loss << p.trainAccuracy << p.testAccuracy << p.trainRmse
             << p.testRmse << p.validationAccuracy << p.validationRmse;
}
QDataStream& operator>>(QDataStream& s, MetricPoint& p)
{
    qint32 seq = 0;
    s >> seq >> p.epoch >> p.trainTime >> p.loss >> p.trainAccuracy >> p.testAccuracy >> p.trainRmse >> p.testRmse >>
        p.validationAccuracy >> p.validationRmse;
    p.seq = seq;
    return s;
}

QDataStream& operator<<(QDataStream& s, const RunResult& r)
{
    s << qint64(r.runId) << qint32(int(r.status)) << r.error << qint32(r.points.size());
    for (const MetricPoint& p : r.points)
        s << p;
    return s << r.last << r.info << r.params << r.trainSeconds << qint64(r.peakMemoryBytes);
}
QDataStream& operator>>(QDataStream& s, RunResult& r)
{
    qint64 runId = -1, peak = -1;
    qint32 status = 0, points = 0;
    s >> runId >> status >> r.error >> points;
    if (points < 0 || status < 0 || status > int(RunStatus::Interrupted)) {
        s.setStatus(QDataStream::ReadCorruptData);
        return s;
    }
    r.runId = runId;
    r.status = RunStatus(status);
    for (qint32 i = 0; i < points && s.status() == QDataStream::Ok; ++i) {
        MetricPoint p;
        s >> p;
        r.points.append(p);
    }
    s >> r.last >> r.info >> r.params >> r.trainSeconds >> peak;
    r.peakMemoryBytes = peak;
    return s;
}

} // namespace

QByteArray encode(const Hello& h)
{
    return write([&](QDataStream& s) { s << h.appVersion << h.gitHash << h.host << h.pid << h.pluginVersions; });
}

std::optional<Hello> decodeHello(const QByteArray& b)
{
    return read<Hello>(b, [](QDataStream& s, Hello& h) { s >> h.appVersion >> h.gitHash >> h.host >> h.pid >> h.pluginVersions; });
}

QByteArray encode(const ExperimentMessage& e)
{
    return write([&](QDataStream& s) { s << e.json << e.sourceName << e.sourcePath << e.baseDir; });
}

std::optional<ExperimentMessage> decodeExperiment(const QByteArray& b)
{
    return read<ExperimentMessage>(b, [](QDataStream& s, ExperimentMessage& e) {
        s >> e.json >> e.sourceName >> e.sourcePath >> e.baseDir;
    });
}

QByteArray encode(const Quit& q)
{
    return write([&](QDataStream& s) { s << qint32(q.exitCode) << q.peerLost; });
}

std::optional<Quit> decodeQuit(const QByteArray& b)
{
    return read<Quit>(b, [](QDataStream& s, Quit& q) {
        qint32 code = 0;
        s >> code >> q.peerLost;
        q.exitCode = code;
    });
}

QByteArray encode(const RunRecord& r)
{
    return write([&](QDataStream& s) {
        s << qint64(r.experimentId) << r.algorithmId << r.algorithmName << r.pluginId << r.pluginVersion << r.params
          << r.dataset << quint64(r.seed) << qint32(r.threads) << qint32(r.repeat) << r.sigma << qint32(int(r.status))
          << r.error << r.started << r.ended << r.info << r.appVersion;
    });
}

std::optional<RunRecord> decodeRunRecord(const QByteArray& b)
{
    return read<RunRecord>(b, [](QDataStream& s, RunRecord& r) {
        qint64 experimentId = -1;
        quint64 seed = 0;
        qint32 threads = 1, repeat = 0, status = 0;
        s >> experimentId >> r.algorithmId >> r.algorithmName >> r.pluginId >> r.pluginVersion >> r.params >> r.dataset
            >> seed >> threads >> repeat >> r.sigma >> status >> r.error >> r.started >> r.ended >> r.info >> r.appVersion;
        if (status < 0 || status > int(RunStatus::Interrupted))
            s.setStatus(QDataStream::ReadCorruptData);
        r.experimentId = experimentId;
        r.seed = seed;
        r.threads = threads;
        r.repeat = repeat;
        r.status = RunStatus(status);
    });
}

QByteArray encode(const QList<std::pair<qint64, MetricPoint>>& metrics)
{
    return write([&](QDataStream& s) {
        s << qint32(metrics.size());
        for (const auto& [runId, p] : metrics)
            s << runId << p;
    });
}

std::optional<QList<std::pair<qint64, MetricPoint>>> decodeMetrics(const QByteArray& b)
{
    return read<QList<std::pair<qint64, MetricPoint>>>(b, [](QDataStream& s, QList<std::pair<qint64, MetricPoint>>& m) {
        qint32 count = 0;
        s >> count;
        if (count < 0) {
            s.setStatus(QDataStream::ReadCorruptData);
            return;
        }
        for (qint32 i = 0; i < count && s.status() == QDataStream::Ok; ++i) {
            std::pair<qint64, MetricPoint> one;
            s >> one.first >> one.second;
            m.append(one);
        }
    });
}

QByteArray encodeFinish(qint64 runId, RunStatus status, const QString& error, const QJsonObject& info)
{
    return write([&](QDataStream& s) { s << runId << qint32(int(status)) << error << info; });
}

std::optional<Finish> decodeFinish(const QByteArray& b)
{
    return read<Finish>(b, [](QDataStream& s, Finish& f) {
        qint32 status = 0;
        s >> f.runId >> status >> f.error >> f.info;
        if (status < 0 || status > int(RunStatus::Interrupted))
            s.setStatus(QDataStream::ReadCorruptData);
        f.status = RunStatus(status);
    });
}

QByteArray encode(int cell, const CellOutput& out)
{
    return write([&](QDataStream& s) {
        s << qint32(cell) << qint32(out.runs.size());
        for (const RunResult& r : out.runs)
            s << r;
    });
}

std::optional<std::pair<int, CellOutput>> decodeCellDone(const QByteArray& b)
{
    return read<std::pair<int, CellOutput>>(b, [](QDataStream& s, std::pair<int, CellOutput>& c) {
        qint32 cell = -1, runs = 0;
        s >> cell >> runs;
        if (cell < 0 || runs < 0) {
            s.setStatus(QDataStream::ReadCorruptData);
            return;
        }
        c.first = cell;
        for (qint32 i = 0; i < runs && s.status() == QDataStream::Ok; ++i) {
            RunResult r;
            s >> r;
            c.second.runs.append(r);
        }
    });
}

QByteArray encodeInt(qint64 value)
{
    return write([&](QDataStream& s) { s << value; });
}

std::optional<qint64> decodeInt(const QByteArray& b)
{
    return read<qint64>(b, [](QDataStream& s, qint64& v) { s >> v; });
}

QByteArray encodeText(const QString& text)
{
    return write([&](QDataStream& s) { s << text; });
}

std::optional<QString> decodeText(const QByteArray& b)
{
    return read<QString>(b, [](QDataStream& s, QString& t) { s >> t; });
}

QByteArray encodeCells(const QList<int>& cells)
{
    return write([&](QDataStream& s) { s << cells; });
}

std::optional<QList<int>> decodeCells(const QByteArray& b)
{
    return read<QList<int>>(b, [](QDataStream& s, QList<int>& c) { s >> c; });
}

bool send(int rank, Tag tag, const QByteArray& payload)
{
    return MPI_Send(payload.constData(), int(payload.size()), MPI_BYTE, rank, int(tag), MPI_COMM_WORLD) == MPI_SUCCESS;
}

bool sendWithin(int rank, Tag tag, const QByteArray& payload, double seconds)
{
    // Buffers of sends given up on: MPI may still read them, so they are never freed.
    static std::list<QByteArray> abandoned;
    auto buffer = std::make_unique<QByteArray>(payload);
    MPI_Request request;
    if (MPI_Isend(buffer->constData(), int(buffer->size()), MPI_BYTE, rank, int(tag), MPI_COMM_WORLD, &request)
        != MPI_SUCCESS)
        return false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
        int done = 0;
        if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return false;
        if (done)
            return true;
        if (std::chrono::steady_clock::now() > deadline) {
            abandoned.push_back(std::move(*buffer));
            return false;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

std::optional<Message> poll(int source, int tag)
{
    int flag = 0;
    MPI_Message handle;
    MPI_Status status;
    // A matched probe: the message found is the one received, whichever other thread also polls.
    if (MPI_Improbe(source < 0 ? MPI_ANY_SOURCE : source, tag < 0 ? MPI_ANY_TAG : tag, MPI_COMM_WORLD, &flag, &handle,
                    &status)
            != MPI_SUCCESS
        || !flag)
        return std::nullopt;
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    Message m;
    m.source = status.MPI_SOURCE;
    m.tag = Tag(status.MPI_TAG);
    m.payload.resize(std::max(bytes, 0));
    if (MPI_Mrecv(m.payload.data(), bytes, MPI_BYTE, &handle, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return std::nullopt;
    return m;
}

} // namespace tb::cluster
