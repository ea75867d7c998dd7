#include <stats/ParetoFront.h>

#include <QtTest>
#include <algorithm>
#include <random>

using namespace tb::stats;

namespace {
// The definition, O(n²): i is on the front unless some j is no worse in both and better in one.
std::vector<int> bruteForce(const std::vector<FrontPoint>& p, Better better)
{
    std::vector<int> front;
    for (int i = 0; i < int(p.size()); ++i) {
        if (std::isnan(p[i].cost) || std::isnan(p[i].value))
            continue;
        bool dominated = false;
        for (int j = 0; j < int(p.size()) && !dominated; ++j) {
            if (j == i || std::isnan(p[j].cost) || std::isnan(p[j].value))
                continue;
            const bool noWorseValue = p[j].value == p[i].value || isBetter(p[j].value, p[i].value, better);
            const bool strictly = p[j].cost < p[i].cost || isBetter(p[j].value, p[i].value, better);
            dominated = p[j].cost <= p[i].cost && noWorseValue && strictly;
        }
        if (!dominated)
            front.push_back(i);
    }
    return front;
}
} // namespace

class TestParetoFront : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handExample()
    {
        // (seconds, accuracy): 0 fast and poor, 1 dominated by 0, 2 and 4 on the front,
        // 3 dominated by 2 (slower, same accuracy), 5 NaN.
        const std::vector<FrontPoint> p{{1, 0.80}, {2, 0.79}, {3, 0.85}, {4, 0.85}, {10, 0.90}, {NAN, 0.99}};
        QCOMPARE(ParetoFront::indices(p, Better::Higher), (std::vector<int>{0, 2, 4}));
        // Lower is better (RMSE): only the cheapest-lowest chain.
        const std::vector<FrontPoint> q{{1, 0.5}, {2, 0.6}, {3, 0.4}, {3, 0.4}};
        QCOMPARE(ParetoFront::indices(q, Better::Lower), (std::vector<int>{0, 2, 3})); // equal points both stay
    }
    void matchesTheDefinitionOnRandomPoints()
    {
        std::mt19937 rng(7);
        std::uniform_int_distribution<int> coarse(0, 9); // many ties on both axes
        for (int trial = 0; trial < 200; ++trial) {
            std::vector<FrontPoint> p(size_t(1 + trial % 30));
            for (auto& x : p)
                x = {double(coarse(rng)), double(coarse(rng))};
            for (Better b : {Better::Higher, Better::Lower}) {
                std::vector<int> fast = ParetoFront::indices(p, b);
                std::sort(fast.begin(), fast.end());
                QCOMPARE(fast, bruteForce(p, b));
            }
        }
        QVERIFY(ParetoFront::indices({}, Better::Higher).empty());
    }
};

QTEST_APPLESS_MAIN(TestParetoFront)
#include "tst_paretofront.moc"
