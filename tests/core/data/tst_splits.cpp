#include <data/Splits.h>

#include <QtTest>
#include <set>

using namespace tb::data;

namespace {

/// Rows 0..n−1 with x = row index, classes alternating.
Dataset numbered(Eigen::Index n)
{
    Dataset d;
    d.task = tb::Task::Classification;
    d.classNames = {"even", "odd"};
    d.featureNames = {"i"};
    d.x.resize(n, 1);
    for (Eigen::Index i = 0; i < n; ++i) {
        d.x(i, 0) = double(i);
        d.labels.push_back(int(i % 2));
    }
    d.setOneHotFromLabels();
    d.description = "numbers";
    return d;
}

std::vector<Eigen::Index> ids(const Dataset& d)
{
    std::vector<Eigen::Index> v;
    for (Eigen::Index i = 0; i < d.rows(); ++i)
        v.push_back(Eigen::Index(d.x(i, 0)));
    return v;
}

} // namespace

class TestSplits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitIsAPartitionOfTheRightSize()
    {
        const Dataset d = numbered(100);
        const DatasetPair p = splitTrainTest(d, 0.3, 1);
        QCOMPARE(p.test.rows(), Eigen::Index(30));
        QCOMPARE(p.train.rows(), Eigen::Index(70));
        std::set<Eigen::Index> all;
        for (auto i : ids(p.train))
            all.insert(i);
        for (auto i : ids(p.test))
            QVERIFY(all.insert(i).second); // disjoint
        QCOMPARE(all.size(), std::size_t(100));
        // Labels and one-hot rows travel with their rows.
        for (Eigen::Index i = 0; i < p.test.rows(); ++i) {
            QCOMPARE(p.test.labels[std::size_t(i)], int(Eigen::Index(p.test.x(i, 0)) % 2));
            QCOMPARE(p.test.y(i, p.test.labels[std::size_t(i)]), 1.0);
        }
        QCOMPARE(p.train.classNames, d.classNames);
        const auto t = ids(p.train);
        QVERIFY(std::is_sorted(t.begin(), t.end())); // source order kept
        QVERIFY(p.test.description.contains("test 30 of 100"));
    }

    void splitIsSeeded()
    {
        const Dataset d = numbered(50);
        QCOMPARE(ids(splitTrainTest(d, 0.2, 4).test), ids(splitTrainTest(d, 0.2, 4).test));
        QVERIFY(ids(splitTrainTest(d, 0.2, 4).test) != ids(splitTrainTest(d, 0.2, 5).test));
    }

    void splitEdgesKeepBothSidesNonEmpty()
    {
        const Dataset d = numbered(3);
        QCOMPARE(splitTrainTest(d, 0.01, 1).test.rows(), Eigen::Index(1));
        QCOMPARE(splitTrainTest(d, 0.99, 1).train.rows(), Eigen::Index(1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, splitTrainTest(d, 0.0, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, splitTrainTest(d, 1.0, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, splitTrainTest(numbered(1), 0.5, 1));
    }

    void subsampleDistinctSeededInOrder()
    {
        const Dataset d = numbered(1000);
        const Dataset s = subsample(d, 100, 3);
        const auto v = ids(s);
        QCOMPARE(v.size(), std::size_t(100));
        QVERIFY(std::is_sorted(v.begin(), v.end()));
        QCOMPARE(std::set<Eigen::Index>(v.begin(), v.end()).size(), std::size_t(100));
        QCOMPARE(ids(subsample(d, 100, 3)), v);
        QVERIFY(ids(subsample(d, 100, 4)) != v);
        QCOMPARE(subsample(d, 1000, 3).x, d.x);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, subsample(d, 0, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, subsample(d, 1001, 1));
    }
};

QTEST_APPLESS_MAIN(TestSplits)
#include "tst_splits.moc"
