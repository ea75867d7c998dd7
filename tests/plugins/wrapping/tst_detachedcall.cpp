// DetachedCall: a library call on an abandonable thread. Output arrives line by line on the
// waiting thread; the work's exceptions reach the caller; Stop returns within the poll interval;
// text printed outside a run goes nowhere;
// an abandoned call unwinds at its next print() and frees what it owned.
#include <DetachedCall.h>

#include <CpuTime.h>
#include <StopMeter.h>

#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <optional>
#include <thread>
#include <fcntl.h>
#include <unistd.h>

using tb::StopSource;
using tb::wrap::DetachedCall;
using tb::testsupport::currentThreadId;
using tb::testsupport::StopMeter;
using tb::testsupport::ThreadMark;
using tb::testsupport::waitUntil;
using tb::testsupport::WorkAfterStop;
using namespace std::chrono_literals;

namespace {

// Sets a flag when destroyed: stands for the problem copy an abandoned call owns.
struct Owned {
    explicit Owned(std::atomic<bool>* flag) : destroyed(flag) {}
    Owned(const Owned&) = delete;
    ~Owned() { destroyed->store(true); }
    std::atomic<bool>* destroyed;
};

} // namespace

class TestDetachedCall : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(waitUntil([] { return DetachedCall::liveThreads() == 0; })); }

    void finishedWorkDeliversItsLines()
    {
        StopSource stop;
        QStringList lines;
        bool ran = false;
        const auto outcome = DetachedCall::run(
            [&] {
                DetachedCall::print("first\nsec");
                DetachedCall::print("ond\n\n");
                DetachedCall::print("unterminated");
                ran = true;
            },
            stop.token(), [&](const QString& l) { lines << l; });
        QCOMPARE(outcome, DetachedCall::Outcome::Finished);
        QVERIFY(ran);
        QCOMPARE(lines, QStringList({"first", "second", "", "unterminated"}));
    }

    void exceptionsReachTheCaller()
    {
        StopSource stop;
        try {
            DetachedCall::run([] { throw std::runtime_error("library failed"); }, stop.token(),
                              [](const QString&) {});
            QFAIL("run() did not rethrow");
        } catch (const std::runtime_error& e) {
            QCOMPARE(QString(e.what()), QString("library failed"));
        }
    }

    void stopAbandonsAndTheWorkUnwindsAtItsNextPrint()
    {
        StopSource stop;
        std::atomic<bool> destroyed{false};
        std::atomic<int> prints{0};
        auto owned = std::make_shared<Owned>(&destroyed);
        QStringList lines;
        // The waiting thread's work after Stop: at most one poll interval (10 ms) asleep and the
        // wake-up, whatever the load (tests/support/StopMeter.h): the stopper measures this
        // thread from the moment it requests Stop.
        const int waiter = currentThreadId();
        std::optional<StopMeter> meter;
        std::thread stopper([&] {
            std::this_thread::sleep_for(100ms);
            meter.emplace(waiter);
            stop.requestStop();
        });
        // A "library" that never returns by itself and prints every 20 ms.
        const auto outcome = DetachedCall::run(
            [owned, &prints] {
                for (;;) {
                    DetachedCall::print("tick\n");
                    ++prints;
                    std::this_thread::sleep_for(20ms);
                }
            },
            stop.token(), [&](const QString& l) { lines << l; });
        const ThreadMark returned = ThreadMark::now();
        stopper.join();
        owned.reset();
        QCOMPARE(outcome, DetachedCall::Outcome::Abandoned);
        const WorkAfterStop after = meter->finish(returned);
        qInfo("%s", qPrintable(after.describe()));
        QVERIFY2(after.cpuMs + after.asleepMs <= 2 * 10.0, qPrintable("more than two poll intervals: " + after.describe()));
        QVERIFY(!lines.isEmpty() && lines.first() == "tick");
        // The thread ends at its next print (≤ 20 ms later) and frees what it owned.
        QVERIFY(waitUntil([] { return DetachedCall::liveThreads() == 0; }));
        QVERIFY(destroyed.load());
        const int seen = prints.load();
        std::this_thread::sleep_for(50ms);
        QCOMPARE(prints.load(), seen);
    }

    void runToEndFinishesTheAbandonedCall()
    {
        // Abandon::RunToEnd: the call is not interrupted; it finishes, its output unread, and
        // only then frees what it owned.
        StopSource stop;
        std::atomic<bool> destroyed{false};
        std::atomic<int> prints{0};
        auto owned = std::make_shared<Owned>(&destroyed);
        std::thread stopper([&] {
            std::this_thread::sleep_for(50ms);
            stop.requestStop();
        });
        QStringList lines;
        const auto outcome = DetachedCall::run(
            [owned, &prints] {
                for (int i = 0; i < 15; ++i) { // 300 ms of "library" work
                    DetachedCall::print("tick\n");
                    ++prints;
                    std::this_thread::sleep_for(20ms);
                }
            },
            stop.token(), [&](const QString& l) { lines << l; }, DetachedCall::Abandon::RunToEnd);
        stopper.join();
        owned.reset();
        QCOMPARE(outcome, DetachedCall::Outcome::Abandoned);
        QVERIFY(!destroyed.load()); // still running
        QVERIFY(waitUntil([] { return DetachedCall::liveThreads() == 0; }));
        QVERIFY(destroyed.load());
        QCOMPARE(prints.load(), 15); // it ran to its end
        QVERIFY(lines.size() < 15);  // what it printed after Stop went nowhere
    }

    void workThatDoesNotPrintEndsWhenItChecks()
    {
        StopSource stop;
        stop.requestStop();
        bool ran = false;
        // Stop already requested: the work is never started.
        QCOMPARE(DetachedCall::run([&] { ran = true; }, stop.token(), [](const QString&) {}),
                 DetachedCall::Outcome::Abandoned);
        QVERIFY(!ran);

        StopSource later;
        // Shared with the work, which may outlive this scope's waiting.
        struct Seen {
            std::atomic<bool> abandonedBefore{true}, abandonedAfter{false}, reachedEnd{false};
        };
        auto seen = std::make_shared<Seen>();
        std::thread stopper([&] {
            std::this_thread::sleep_for(30ms);
            later.requestStop();
        });
        QCOMPARE(DetachedCall::run(
                     [seen] {
                         seen->abandonedBefore = DetachedCall::abandoned();
                         std::this_thread::sleep_for(150ms); // a library step without output
                         seen->abandonedAfter = DetachedCall::abandoned();
                         DetachedCall::throwIfAbandoned();
                         seen->reachedEnd = true;
                     },
                     later.token(), [](const QString&) {}),
                 DetachedCall::Outcome::Abandoned);
        stopper.join();
        QCOMPARE(DetachedCall::liveThreads(), 1); // still in its silent step
        QVERIFY(waitUntil([] { return DetachedCall::liveThreads() == 0; }));
        QVERIFY(!seen->abandonedBefore.load());
        QVERIFY(seen->abandonedAfter.load());
        QVERIFY(!seen->reachedEnd.load());
    }

    void printOutsideARunIsDiscarded()
    {
        QVERIFY(!DetachedCall::abandoned());
        DetachedCall::throwIfAbandoned(); // a no-op off a work thread
        // While a run is active on another thread, text printed on this thread (no run's work
        // thread) reaches neither that run's lines nor stdout or stderr.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray outPath = dir.filePath("stdout").toLocal8Bit(), errPath = dir.filePath("stderr").toLocal8Bit();
        std::fflush(stdout);
        std::fflush(stderr);
        const int savedOut = dup(1), savedErr = dup(2);
        const int out = open(outPath.constData(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
        const int err = open(errPath.constData(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
        QVERIFY(savedOut >= 0 && savedErr >= 0 && out >= 0 && err >= 0);
        dup2(out, 1);
        dup2(err, 2);
        StopSource stop;
        std::atomic<bool> printedInside{false}, printedOutside{false};
        QStringList lines;
        std::thread run([&] {
            DetachedCall::run(
                [&] {
                    DetachedCall::print("inside\n");
                    printedInside = true;
                    while (!printedOutside)
                        std::this_thread::sleep_for(1ms);
                    DetachedCall::print("inside again\n");
                },
                stop.token(), [&](const QString& l) { lines << l; });
        });
        const bool started = waitUntil([&] { return printedInside.load(); });
        DetachedCall::print("nobody listens\n");
        DetachedCall::print("unterminated, nobody listens");
        printedOutside = true;
        run.join();
        std::fflush(stdout);
        std::fflush(stderr);
        dup2(savedOut, 1);
        dup2(savedErr, 2);
        for (int fd : {out, err, savedOut, savedErr})
            close(fd);
        QVERIFY(started);
        QCOMPARE(lines, QStringList({"inside", "inside again"}));
        for (const QByteArray& path : {outPath, errPath}) {
            QFile f(QString::fromLocal8Bit(path));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(f.readAll().isEmpty(), path.constData());
        }
    }

    void concurrentRunsKeepTheirOutputApart()
    {
        StopSource stop;
        QStringList a, b;
        auto work = [](const char* tag) {
            return [tag] {
                for (int i = 0; i < 50; ++i) {
                    DetachedCall::print(tag);
                    DetachedCall::print("\n");
                    std::this_thread::sleep_for(1ms);
                }
            };
        };
        std::thread other(
            [&] { DetachedCall::run(work("b"), stop.token(), [&](const QString& l) { b << l; }); });
        DetachedCall::run(work("a"), stop.token(), [&](const QString& l) { a << l; });
        other.join();
        QCOMPARE(a, QStringList(50, "a"));
        QCOMPARE(b, QStringList(50, "b"));
    }
};

QTEST_GUILESS_MAIN(TestDetachedCall)
#include "tst_detachedcall.moc"
