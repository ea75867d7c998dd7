// A classification set reduced to some of its classes: rows kept in data order, relabelled in
// the order asked, names carried over; bad class lists refused with the class named.
#include <data/ClassSubset.h>

#include <QtTest>

using namespace tb::data;

namespace {

Dataset fourClasses()
{
    Dataset s;
    s.task = tb::Task::Classification;
    s.classNames = {"a", "b", "c", "d"};
    s.labels = {0, 3, 1, 3, 2, 0, 1};
    s.x.resize(7, 2);
    for (Eigen::Index i = 0; i < 7; ++i)
        s.x.row(i) << double(i), -double(i);
    s.setOneHotFromLabels();
    s.description = "four";
    return s;
}

} // namespace

class TestClassSubset : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void keepsTheRowsOfTheClassesInDataOrder()
    {
        const Dataset s = ClassSubset::keep(fourClasses(), {3, 0});
        QCOMPARE(s.classNames, QStringList({"d", "a"}));
        QCOMPARE(s.labels, (std::vector<int>{1, 0, 0, 1}));  // rows 0 (a), 1 (d), 3 (d), 5 (a)
        QCOMPARE(s.x.col(0), Eigen::Vector4d(0, 1, 3, 5));
        QCOMPARE(s.y.cols(), Eigen::Index(2));
        QCOMPARE(s.y(1, 0), 1.0);
        QCOMPARE(s.description, QString("four classes 3,0"));
    }

    void badClassListsNameTheClass()
    {
        auto message = [](const std::vector<int>& c) {
            try {
                ClassSubset::keep(fourClasses(), c);
            } catch (const std::invalid_argument& e) {
                return QString(e.what());
            }
            return QString();
        };
        QVERIFY(message({1, 4}).contains("class 4"));
        QVERIFY(message({2, 2}).contains("class 2 is listed twice"));
        QVERIFY(message({1}).contains("at least two"));
        Dataset r;
        r.x = Eigen::MatrixXd::Zero(2, 1);
        r.y = Eigen::MatrixXd::Zero(2, 1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ClassSubset::keep(r, {0, 1}));
    }
};

QTEST_GUILESS_MAIN(TestClassSubset)
#include "tst_classsubset.moc"
