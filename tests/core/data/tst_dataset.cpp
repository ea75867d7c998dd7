#include <data/DataError.h>
#include <data/Dataset.h>

#include <QtTest>

using namespace tb::data;

class TestDataset : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneHotFollowsLabels()
    {
        Dataset d;
        d.task = tb::Task::Classification;
        d.classNames = {"a", "b", "c"};
        d.labels = {2, 0, 1, 2};
        d.x = Eigen::MatrixXd::Zero(4, 1);
        d.setOneHotFromLabels();
        QCOMPARE(d.outputs(), Eigen::Index(3));
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(d.y.row(i).sum(), 1.0);
            QCOMPARE(d.y(i, d.labels[std::size_t(i)]), 1.0);
        }
        QCOMPARE(d.classCounts(), (std::vector<Eigen::Index>{1, 1, 2}));
        d.labels[1] = 3; // outside [0, 3)
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, d.setOneHotFromLabels());
    }

    void selectRowsKeepsRowsLabelsAndNames()
    {
        Dataset d;
        d.task = tb::Task::Classification;
        d.classNames = {"no", "yes"};
        d.featureNames = {"f"};
        d.x.resize(3, 1);
        d.x << 10, 20, 30;
        d.labels = {0, 1, 1};
        d.setOneHotFromLabels();
        const Dataset s = d.selectRows({2, 0});
        QCOMPARE(s.rows(), Eigen::Index(2));
        QCOMPARE(s.x(0, 0), 30.0);
        QCOMPARE(s.x(1, 0), 10.0);
        QCOMPARE(s.labels, (std::vector<int>{1, 0}));
        QCOMPARE(s.y(0, 1), 1.0);
        QCOMPARE(s.classNames, d.classNames);
        QCOMPARE(s.featureNames, d.featureNames);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, d.selectRows({3}));
    }

    void viewSeesTheSameData()
    {
        Dataset d;
        d.task = tb::Task::Classification;
        d.classNames = {"a", "b"};
        d.featureNames = {"x1", "x2"};
        d.x = Eigen::MatrixXd::Random(5, 2);
        d.labels = {0, 1, 0, 1, 1};
        d.setOneHotFromLabels();
        const tb::DatasetView v = d.view();
        QCOMPARE(v.rows(), Eigen::Index(5));
        QCOMPARE(v.inputs(), Eigen::Index(2));
        QCOMPARE(v.outputs(), Eigen::Index(2));
        QVERIFY(v.isClassification());
        QCOMPARE(v.x.data(), d.x.data()); // a view, not a copy
        QCOMPARE(v.classNames, d.classNames);
        QCOMPARE(v.featureNames, d.featureNames);
    }

    void errorTextNamesFileLineAndValue()
    {
        const auto e = DataError::atLine("data/broken.csv", 14, "petal_width", "abc",
                                         "column 'petal_width': \"abc\" is not a number");
        QCOMPARE(QString::fromUtf8(e.what()), QString("data/broken.csv:14: column 'petal_width': \"abc\" is not a number"));
        QCOMPARE(e.line(), qint64(14));
        QCOMPARE(e.byteOffset(), qint64(-1));
        QCOMPARE(e.key(), QString("petal_width"));
        QCOMPARE(e.value(), QString("abc"));

        const auto b = DataError::atOffset("x.idx", 16, {}, {}, "truncated");
        QCOMPARE(b.text(), QString("x.idx: at byte offset 16: truncated"));
        const auto s = DataError::inSpec("dataset.samples", "\"abc\"", "dataset.samples: bad");
        QCOMPARE(s.text(), QString("dataset.samples: bad"));
        QVERIFY(s.file().isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestDataset)
#include "tst_dataset.moc"
