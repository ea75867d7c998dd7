// DetachedCall: a library call on an abandonable thread. Output arrives line by line on the
// waiting thread; the work's exceptions reach the caller; Stop returns within the poll interval;
// text printed outside a run goes nowhere;
// an abandoned call unwinds at its next print() and frees what it owned.
#include <wrapping/DetachedCall.h>

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
        // thread from the moment it requests Stop. The library prints every 200 ms, so a caller
        // that waited for its next line would sleep ~200 ms: the bound of 5 poll intervals (50 ms)
        // tells the two apart with room for a virtual machine's timer wake-ups (22.8 ms was seen
        // against the former bound of 20 ms, the library then printing every 20 ms).
        // Stop comes once a line has reached the caller: the work is under way, however late a
        // busy machine starts it.
        const int waiter = currentThreadId();
        std::optional<StopMeter> meter;
        std::atomic<int> delivered{0};
        std::thread stopper([&] {
            waitUntil([&] { return delivered.load() >= 1; });
            meter.emplace(waiter);
            stop.requestStop();
        });
        // A "library" that never returns by itself and prints every 200 ms.
        const auto outcome = DetachedCall::run(
            [owned, &prints] {
                for (;;) {
                    DetachedCall::print("tick\n");
                    ++prints;
                    std::this_thread::sleep_for(200ms);
                }
            },
            stop.token(), [&](const QString& l) {
                lines << l;
                ++delivered;
            });
        const ThreadMark returned = ThreadMark::now();
        stopper.join();
        owned.reset();
        QCOMPARE(outcome, DetachedCall::Outcome::Abandoned);
        const WorkAfterStop after = meter->finish(returned);
        qInfo("%s", qPrintable(after.describe()));
        QVERIFY2(after.cpuMs + after.asleepMs <= 5 * 10.0, qPrintable("more than five poll intervals: " + after.describe()));
        QVERIFY(!lines.isEmpty() && lines.first() == "tick");
        // The thread ends at its next print (≤ 200 ms later) and frees what it owned.
        QVERIFY(waitUntil([] { return DetachedCall::liveThreads() == 0; }));
        QVERIFY(destroyed.load());
        const int seen = prints.load();
        std::this_thread::sleep_for(250ms);  // longer than a print interval: a live thread would print
        QCOMPARE(prints.load(), seen);
    }

    void runToEndFinishesTheAbandonedCall()
    {
        // Abandon::RunToEnd: the call is not interrupted; it finishes, its output unread, and
        // only then frees what it owned. The "library" prints a line, then waits at a gate the
        // test opens once the caller has been let go; Stop comes once that line has arrived. So
        // the order is fixed: one line read, Stop, the rest printed into the void.
        StopSource stop;
        std::atomic<bool> destroyed{false};
        std::atomic<int> prints{0}, delivered{0};
        auto owned = std::make_shared<Owned>(&destroyed);
        auto gate = std::make_shared<std::atomic<bool>>(false); // shared with the work, which outlives run()
        const auto openGate = qScopeGuard([gate] { *gate = true; }); // also when a check fails
        std::thread stopper([&] {
            waitUntil([&] { return delivered.load() >= 1; });
            stop.requestStop();
        });
        QStringList lines;
        const auto outcome = DetachedCall::run(
            [owned, &prints, gate] {
                for (int i = 0; i < 15; ++i) {
                    DetachedCall::print("tick\n");
                    ++prints;
                    while (i == 0 && !*gate)
                        std::this_thread::sleep_for(1ms);
                }
            },
            stop.token(),
            [&](const QString& l) {
                lines << l;
                ++delivered;
            },
            DetachedCall::Abandon::RunToEnd);
        stopper.join();
        owned.reset();
        QCOMPARE(outcome, DetachedCall::Outcome::Abandoned);
        QVERIFY(!destroyed.load()); // still running, at its gate
        *gate = true;
        QVERIFY(waitUntil([] { return DetachedCall::liveThreads() == 0; }));
        QVERIFY(destroyed.load());
        QCOMPARE(prints.load(), 15);              // it ran to its end
        QCOMPARE(lines, QStringList({"tick"}));   // what it printed after Stop went nowhere
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
        // Shared with the work, which may outlive this scope's waiting. Stop comes once the work
        // has begun; its silent library step lasts until the test, with the caller let go,
        // opens the gate — an order of events, not of sleeps a busy machine may stretch.
        struct Seen {
            std::atomic<bool> abandonedBefore{true}, abandonedAfter{false}, reachedEnd{false};
            std::atomic<bool> begun{false}, gate{false};
        };
        auto seen = std::make_shared<Seen>();
        const auto openGate = qScopeGuard([seen] { seen->gate = true; }); // also when a check fails
        std::thread stopper([&] {
            waitUntil([&] { return seen->begun.load(); });
            later.requestStop();
        });
        QCOMPARE(DetachedCall::run(
                     [seen] {
                         seen->abandonedBefore = DetachedCall::abandoned();
                         seen->begun = true;
                         while (!seen->gate) // a library step without output
                             std::this_thread::sleep_for(1ms);
                         seen->abandonedAfter = DetachedCall::abandoned();
                         DetachedCall::throwIfAbandoned();
                         seen->reachedEnd = true;
                     },
                     later.token(), [](const QString&) {}),
                 DetachedCall::Outcome::Abandoned);
        stopper.join();
        QCOMPARE(DetachedCall::liveThreads(), 1); // still in its silent step
        seen->gate = true;
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
