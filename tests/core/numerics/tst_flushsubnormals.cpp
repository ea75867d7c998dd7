// FlushSubnormals: inside the scope the thread flushes subnormal results and operands to zero;
// outside it, before and after (also after an exception, nested scopes, other threads), IEEE
// gradual underflow as the process started with.
#include <numerics/FlushSubnormals.h>

#include <QtTest>
#include <cfloat>
#include <cmath>
#include <future>
#include <stdexcept>
#include <thread>

using tb::num::FlushSubnormals;

namespace {

// Products the compiler cannot fold: the values are read at run time.
float product(float a, float b)
{
    volatile float x = a, y = b;
    return x * y;
}

double productD(double a, double b)
{
    volatile double x = a, y = b;
    return x * y;
}

bool flushing()
{
    return product(1e-30f, 1e-10f) == 0.0f;  // 10⁻⁴⁰ is subnormal in float
}

void throwInsideScope()
{
    FlushSubnormals scope;
    throw std::runtime_error("inside");
}

} // namespace

class TestFlushSubnormals : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        if (!FlushSubnormals::active())
            QSKIP("this build cannot flush subnormals (not x86 with SSE)");
        QVERIFY2(!flushing(), "the test thread should start with gradual underflow");
    }

    void flushesResultsAndOperands()
    {
        const float sub = product(1e-30f, 1e-10f);  // made before the scope: a subnormal float
        QCOMPARE(std::fpclassify(sub), FP_SUBNORMAL);
        const double subD = productD(1e-300, 1e-10);
        QCOMPARE(std::fpclassify(subD), FP_SUBNORMAL);
        {
            FlushSubnormals scope;
            QCOMPARE(product(1e-30f, 1e-10f), 0.0f);         // result flushed (FTZ)
            QCOMPARE(product(sub, 1e30f), 0.0f);             // operand read as zero (DAZ)
            QCOMPARE(productD(1e-300, 1e-10), 0.0);          // doubles too: the flags are per thread
            QCOMPARE(product(2e-38f, 1.0f), 2e-38f);         // normal numbers are untouched
            QCOMPARE(product(1e-20f, 1e-10f), 1e-30f);
        }
        QVERIFY(!flushing());
        QCOMPARE(product(sub, 1e30f), sub * 1e30f);
        QVERIFY(product(sub, 1e30f) > 0.0f);
    }

    void nestedScopesRestoreTheirCallersMode()
    {
        {
            FlushSubnormals outer;
            {
                FlushSubnormals inner;
                QVERIFY(flushing());
            }
            QVERIFY(flushing());  // the inner scope restored the outer's mode, not the default
        }
        QVERIFY(!flushing());
    }

    void exceptionRestoresTheMode()
    {
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, throwInsideScope());
        QVERIFY(!flushing());
    }

    void otherThreadsAreNotAffected()
    {
        // The mode is the constructing thread's: a thread that already runs (a TBB worker, say)
        // keeps gradual underflow while a scope lives elsewhere — so Optimizer, which flushes,
        // updates on its own thread. (A thread created inside the scope would inherit the mode,
        // as POSIX threads inherit the floating-point environment.)
        std::promise<void> scopeOpen;
        std::promise<bool> answer;
        std::thread t([&] {
            scopeOpen.get_future().wait();
            answer.set_value(flushing());
        });
        bool otherFlushes = true;
        {
            FlushSubnormals scope;
            scopeOpen.set_value();
            otherFlushes = answer.get_future().get();
            QVERIFY(flushing());
        }
        t.join();
        QVERIFY(!otherFlushes);
    }
};

QTEST_APPLESS_MAIN(TestFlushSubnormals)
#include "tst_flushsubnormals.moc"
