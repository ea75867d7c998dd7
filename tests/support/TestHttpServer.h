#pragma once
/// @file TestHttpServer.h
/// A small HTTP/1.1 server on 127.0.0.1 for the download tests: serves files from memory with
/// Range requests, and misbehaves on request (stalls, cut connections, slow transfers, errors).
/// It runs on a thread of its own, so a test may block (QProcess::waitForFinished) while it
/// serves. Only loopback is ever listened on.

#include <QByteArray>
#include <QHash>
#include <QHostAddress>
#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QRegularExpression>
#include <QStringList>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>

#include <functional>
#include <memory>

namespace tb::test {

class TestHttpServer {
public:
    /// How a path is served.
    struct Behaviour {
        int status = 200;         ///< another status: sent with an empty body
        qint64 stallAfter = -1;   ///< send this many body bytes, then nothing (the connection stays open)
        qint64 cutAfter = -1;     ///< the first response closes the connection after this many body bytes
        bool ignoreRange = false; ///< answer a Range request with the whole file (200)
        int chunk = 16384;        ///< bytes per write
        int chunkDelayMs = 0;     ///< pause between writes (a slow server)
    };

    TestHttpServer()
    {
        m_thread.start();
        m_server = new QTcpServer;
        m_server->moveToThread(&m_thread);
        QMetaObject::invokeMethod(
            m_server,
            [this] {
                m_server->listen(QHostAddress::LocalHost, 0);
                QObject::connect(m_server, &QTcpServer::newConnection, m_server, [this] {
                    while (QTcpSocket* s = m_server->nextPendingConnection())
                        accept(s);
                });
            },
            Qt::BlockingQueuedConnection);
    }

    ~TestHttpServer()
    {
        QMetaObject::invokeMethod(
            m_server,
            [this] {
                for (QObject* c : m_server->children())
                    if (auto* s = qobject_cast<QTcpSocket*>(c))
                        s->abort();
                m_server->close();
                delete m_server;
            },
            Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }

    quint16 port() const { return m_server->serverPort(); }
    /// "http://127.0.0.1:PORT" + @p path.
    QString url(const QString& path = {}) const
    {
        return QStringLiteral("http://127.0.0.1:%1%2").arg(port()).arg(path);
    }

    void serve(const QString& path, const QByteArray& body) { serve(path, body, Behaviour()); }
    void serve(const QString& path, const QByteArray& body, Behaviour b)
    {
        QMutexLocker lock(&m_mutex);
        m_files.insert(path, {body, b});
    }

    /// GET requests received for @p path.
    int requests(const QString& path) const
    {
        QMutexLocker lock(&m_mutex);
        return m_requests.value(path);
    }
    /// The Range headers received for @p path, in order ("" for a request without one).
    QStringList ranges(const QString& path) const
    {
        QMutexLocker lock(&m_mutex);
        return m_ranges.value(path);
    }

private:
    struct File {
        QByteArray body;
        Behaviour behaviour;
    };

    // Runs on the server thread.
    void accept(QTcpSocket* s)
    {
        s->setParent(m_server);
        auto buffer = std::make_shared<QByteArray>();
        QObject::connect(s, &QTcpSocket::readyRead, s, [this, s, buffer] {
            *buffer += s->readAll();
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QByteArray head = buffer->left(end);
            buffer->remove(0, end + 4);
            respond(s, head);
        });
        QObject::connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
    }

    void respond(QTcpSocket* s, const QByteArray& head)
    {
        const QList<QByteArray> lines = head.split('\n');
        const QList<QByteArray> request = lines.value(0).trimmed().split(' ');
        const QString path = QString::fromLatin1(request.value(1));
        QString range;
        for (const QByteArray& l : lines)
            if (l.toLower().startsWith("range:"))
                range = QString::fromLatin1(l.mid(6).trimmed());
        File f;
        bool found = false;
        int n = 0;
        {
            QMutexLocker lock(&m_mutex);
            found = m_files.contains(path);
            f = m_files.value(path);
            n = ++m_requests[path];
            m_ranges[path] << range;
        }
        if (!found || f.behaviour.status != 200) {
            const int status = found ? f.behaviour.status : 404;
            s->write(QStringLiteral("HTTP/1.1 %1 %2\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                         .arg(status)
                         .arg(status == 404 ? QStringLiteral("Not Found") : QStringLiteral("Error"))
                         .toLatin1());
            s->disconnectFromHost();
            return;
        }
        const qint64 size = f.body.size();
        qint64 from = 0;
        static const QRegularExpression re(QStringLiteral("^bytes=(\\d+)-$"));
        const auto m = re.match(range);
        QByteArray header;
        if (m.hasMatch() && !f.behaviour.ignoreRange) {
            from = m.captured(1).toLongLong();
            if (from >= size) {
                s->write(QStringLiteral("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */%1\r\n"
                                        "Content-Length: 0\r\nConnection: close\r\n\r\n")
                             .arg(size)
                             .toLatin1());
                s->disconnectFromHost();
                return;
            }
            header = QStringLiteral("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %1-%2/%3\r\n")
                         .arg(from)
                         .arg(size - 1)
                         .arg(size)
                         .toLatin1();
        } else {
            header = "HTTP/1.1 200 OK\r\nAccept-Ranges: bytes\r\n";
        }
        header += "Content-Length: " + QByteArray::number(size - from) + "\r\nConnection: close\r\n\r\n";
        s->write(header);
        qint64 limit = size - from;
        bool cut = false;
        if (f.behaviour.stallAfter >= 0)
            limit = std::min(limit, f.behaviour.stallAfter);
        if (f.behaviour.cutAfter >= 0 && n == 1) {
            limit = std::min(limit, f.behaviour.cutAfter);
            cut = true;
        }
        const bool stall = f.behaviour.stallAfter >= 0;
        auto sent = std::make_shared<qint64>(0);
        auto timer = new QTimer(s);
        QPointer<QTcpSocket> socket(s);
        auto step = [socket, timer, sent, f, from, limit, cut, stall] {
            if (!socket)
                return;
            const qint64 k = std::min<qint64>(f.behaviour.chunk, limit - *sent);
            if (k > 0) {
                socket->write(f.body.constData() + from + *sent, k);
                *sent += k;
            }
            if (*sent >= limit) {
                timer->stop();
                if (cut) {
                    socket->waitForBytesWritten(5000);
                    socket->abort(); // the connection breaks mid-file
                } else if (!stall) {
                    socket->disconnectFromHost();
                }
            }
        };
        QObject::connect(timer, &QTimer::timeout, s, step);
        timer->start(f.behaviour.chunkDelayMs);
    }

    QThread m_thread;
    QTcpServer* m_server = nullptr;
    mutable QMutex m_mutex;
    QHash<QString, File> m_files;
    QHash<QString, int> m_requests;
    QHash<QString, QStringList> m_ranges;
};

} // namespace tb::test
