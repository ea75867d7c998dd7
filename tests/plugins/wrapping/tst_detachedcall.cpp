// DetachedCall: a library call on an abandonable thread. Output arrives line by line on the
// waiting thread; the work's exceptions reach the caller; Stop returns within the poll interval;
// an abandoned call unwinds at its next print() and frees what it owned.
#include <DetachedCall.h>

#include <QtTest>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

using tb::StopSource;
using tb::wrap::DetachedCall;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

bool waitForNoLiveThreads(std::chrono::milliseconds limit)
{
    const auto end = Clock::now() + limit;
    while (DetachedCall::liveThreads() > 0 && Clock::now() < end)
        std::this_thread::sleep_for(1ms);
    return DetachedCall::liveThreads() == 0;
}

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
    void init() { QVERIFY(waitForNoLiveThreads(2000ms)); }

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
        std::thread stopper([&] {
            std::this_thread::sleep_for(100ms);
            stop.requestStop();
        });
        const auto t0 = Clock::now();
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
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        stopper.join();
        owned.reset();
        QCOMPARE(outcome, DetachedCall::Outcome::Abandoned);
        // Stop at 100 ms, polled every 10 ms: returns well before 200 ms (slack for a busy machine).
        QVERIFY2(ms < 180, qPrintable(QString("returned after %1 ms").arg(ms)));
        QVERIFY(!lines.isEmpty() && lines.first() == "tick");
        // The thread ends at its next print (≤ 20 ms later) and frees what it owned.
        QVERIFY(waitForNoLiveThreads(2000ms));
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
        QVERIFY(waitForNoLiveThreads(3000ms));
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
        QVERIFY(waitForNoLiveThreads(2000ms));
        QVERIFY(!seen->abandonedBefore.load());
        QVERIFY(seen->abandonedAfter.load());
        QVERIFY(!seen->reachedEnd.load());
    }

    void printOutsideARunIsDiscarded()
    {
        QVERIFY(!DetachedCall::abandoned());
        DetachedCall::print("nobody listens\n"); // neither crashes nor writes anywhere
        DetachedCall::throwIfAbandoned();        // a no-op off a work thread
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
