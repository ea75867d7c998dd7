// The Mv generator against its published definition, row by row, and its draw frequencies.
#include <data/MvGenerator.h>

#include <QtTest>
#include <cmath>

using namespace tb::data;

class TestMvGenerator : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shapeAndNames()
    {
        const Dataset d = MvGenerator::generate(MvGenerator::kPaperRows, 1);
        QCOMPARE(d.rows(), Eigen::Index(40768));
        QCOMPARE(d.inputs(), Eigen::Index(12));
        QCOMPARE(d.outputs(), Eigen::Index(1));
        QCOMPARE(d.task, tb::Task::Regression);
        QCOMPARE(d.featureNames.size(), 12);
        QCOMPARE(d.featureNames.front(), QStringLiteral("x1"));
        QCOMPARE(d.featureNames.back(), QStringLiteral("x10"));
        QVERIFY(d.x.allFinite() && d.y.allFinite());
    }

    void everyRowFollowsTheDefinition()
    {
        const Dataset d = MvGenerator::generate(20000, 7);
        for (Eigen::Index i = 0; i < d.rows(); ++i) {
            const auto r = d.x.row(i);
            const double x1 = r(0), x2 = r(1), x4 = r(5), x5 = r(6), x6 = r(7), x9 = r(10), x10 = r(11);
            const bool red = r(2) == 1, green = r(3) == 1, brown = r(4) == 1;
            const QString at = QStringLiteral("row %1").arg(i);
            QVERIFY2(x1 >= -5 && x1 < 5 && x2 >= -15 && x2 < -10 && x5 >= -1 && x5 < 1, qPrintable(at));
            QVERIFY2(x9 >= 100 && x9 < 500 && x10 >= 1000 && x10 <= 1200 && x10 == std::floor(x10), qPrintable(at));
            QVERIFY2(r(2) + r(3) + r(4) == 1 && (red || green || brown), qPrintable(at + ": x3 not one-hot"));
            QVERIFY2(green == (x1 > 0), qPrintable(at + ": x3 = green exactly when x1 > 0"));
            if (green)
                QVERIFY2(x4 == x1 + 2 * x2, qPrintable(at));
            else
                QVERIFY2(x4 == x1 / 2 || x4 == x2 / 2, qPrintable(at));
            // x6 = x4·e, e ∈ [0, 5): the ratio, where defined (1e-12: one rounding of x4·e).
            if (x4 != 0)
                QVERIFY2(x6 / x4 >= -1e-12 && x6 / x4 < 5 + 1e-12, qPrintable(at));
            QVERIFY2(r(8) == 0 || r(8) == 1, qPrintable(at));
            QVERIFY2(r(9) == (x5 < 0.5 ? 0.0 : 1.0), qPrintable(at + ": x8 = large exactly when x5 ≥ 0.5"));
            QCOMPARE(d.y(i, 0), MvGenerator::target(x1, x2, x4, x6, r(8) == 1, r(9) == 1));
        }
    }

    void drawFrequencies()
    {
        // Shares of the documented probabilities over 40768 rows. Tolerances are 6 binomial
        // standard deviations (≤ 0.015 for ≥ 6000 trials at p ≤ 0.6), so a correct generator
        // fails with probability < 1e-8 and a wrong probability (e.g. 0.4 ↔ 0.6) cannot pass.
        const Dataset d = MvGenerator::generate(MvGenerator::kPaperRows, 3);
        double notGreen = 0, red = 0, half1 = 0, yes = 0, positive = 0;
        for (Eigen::Index i = 0; i < d.rows(); ++i) {
            const auto r = d.x.row(i);
            positive += r(0) > 0;
            yes += r(8);
            if (r(3) == 0) {
                ++notGreen;
                red += r(2);
                half1 += r(5) == r(0) / 2;
            }
        }
        const double n = double(d.rows());
        auto within = [](double share, double p, double trials) {
            return std::abs(share - p) <= 6 * std::sqrt(p * (1 - p) / trials);
        };
        QVERIFY2(within(positive / n, 0.5, n), qPrintable(QString::number(positive / n)));
        QVERIFY2(within(red / notGreen, 0.4, notGreen), qPrintable(QString::number(red / notGreen)));
        QVERIFY2(within(half1 / notGreen, 0.3, notGreen), qPrintable(QString::number(half1 / notGreen)));
        QVERIFY2(within(yes / n, 0.3, n), qPrintable(QString::number(yes / n)));
    }

    void targetRules()
    {
        // One case per rule, in the definition's order of precedence.
        QCOMPARE(MvGenerator::target(1, 3, 4, 0, false, false), 35.0 - 2.0);  // x2 > 2 (unreachable by the generator)
        QCOMPARE(MvGenerator::target(1.5, -12, 2, 9, true, true), 10.0 - 3.0); // −2 ≤ x4 ≤ 2 wins over x7
        QCOMPARE(MvGenerator::target(-2, -12, -6, 9, true, false), 3.0 - 2.0 / 6.0);
        QCOMPARE(MvGenerator::target(-2, -12, -6, 9, false, false), 9.0 - 2.0);
        QCOMPARE(MvGenerator::target(-2, -12, -6, 9, false, true), -1.0);
    }

    void sameSeedSameBits()
    {
        const Dataset a = MvGenerator::generate(1000, 42), b = MvGenerator::generate(1000, 42);
        QVERIFY(a.x == b.x && a.y == b.y);
        const Dataset c = MvGenerator::generate(1000, 43);
        QVERIFY(a.x != c.x);
        // A prefix is the same rows: every row draws the same number of values.
        const Dataset p = MvGenerator::generate(10, 42);
        QVERIFY(p.x == a.x.topRows(10));
    }

    void badSizesThrow()
    {
        for (Eigen::Index n : {Eigen::Index(0), Eigen::Index(-5), MvGenerator::kMaxRows + 1}) {
            try {
                MvGenerator::generate(n, 1);
                QFAIL("no exception");
            } catch (const std::invalid_argument& e) {
                QVERIFY2(QString(e.what()).contains("samples"), e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestMvGenerator)
#include "tst_mvgenerator.moc"
