// SparseRows: the workbench's dense matrices as LIBLINEAR/LIBSVM rows — 1-based indices in
// increasing order, zeros left out, an optional bias node, a terminator — built in parallel.
#include <SparseRows.h>

#include <QtTest>
#include <random>
#include <tbb/task_arena.h>

namespace {
struct Node {
    int index;
    double value;
};
using Rows = tb::wrap::SparseRows<Node>;
} // namespace

class TestSparseRows : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void layout()
    {
        Eigen::MatrixXd x(3, 4);
        // clang-format off
        x << 1.5, 0, -2, 0,
             0,   0,  0, 0,
             0,   7,  0, -0.0;
        // clang-format on
        Rows rows(x, 1.0, "test");
        QCOMPARE(rows.count(), 3);
        QCOMPARE(rows.nonzeros(), std::size_t(3));
        // 3 non-zeros + 3 × (bias + terminator) nodes of 16 bytes, and 3 row pointers.
        QCOMPARE(rows.bytes(), std::size_t(9 * 16 + 3 * 8));
        QCOMPARE(Rows::bytesUpperBound(3, 4, true), 3.0 * (4 + 2) * 16 + 3 * 8); // no zeros
        Node** r = rows.rows();
        QCOMPARE(r[0][0].index, 1);
        QCOMPARE(r[0][0].value, 1.5);
        QCOMPARE(r[0][1].index, 3);
        QCOMPARE(r[0][1].value, -2.0);
        QCOMPARE(r[0][2].index, 5); // the bias feature, index d + 1
        QCOMPARE(r[0][2].value, 1.0);
        QCOMPARE(r[0][3].index, -1);
        QCOMPARE(r[1][0].index, 5); // an all-zero row keeps its bias
        QCOMPARE(r[1][1].index, -1);
        QCOMPARE(r[2][0].index, 2);
        QCOMPARE(r[2][0].value, 7.0);
        QCOMPARE(r[2][1].index, 5); // −0 is a zero

        Rows plain(x, -1.0, "test"); // no bias
        QCOMPARE(plain.bytes(), std::size_t(6 * 16 + 3 * 8));
        QCOMPARE(plain.rows()[1][0].index, -1);
    }

    void parallelBuildEqualsRowByRow()
    {
        // 5000 × 37 with a third of the entries zero, built on 2 threads over 1024-row blocks,
        // against fillRow() one row at a time.
        std::mt19937_64 gen(9);
        Eigen::MatrixXd x(5000, 37);
        for (Eigen::Index i = 0; i < x.size(); ++i)
            x.data()[i] = gen() % 3 == 0 ? 0.0 : double(gen() % 1000) / 7.0 - 60.0;
        Rows rows;
        tbb::task_arena(2).execute([&] { rows = Rows(x, 0.5, "test"); });
        std::vector<Node> row(39);
        std::size_t nnz = 0;
        for (Eigen::Index i = 0; i < x.rows(); ++i) {
            Rows::fillRow(x, i, 0.5, row.data());
            const Node* built = rows.rows()[i];
            for (std::size_t k = 0;; ++k) {
                QCOMPARE(built[k].index, row[k].index);
                if (row[k].index == -1)
                    break;
                QCOMPARE(built[k].value, row[k].value);
                nnz += row[k].index <= 37 ? 1 : 0;
            }
        }
        QCOMPARE(rows.nonzeros(), nnz);
    }

    void nonFiniteEntriesAreNamed()
    {
        Eigen::MatrixXd x = Eigen::MatrixXd::Ones(4, 3);
        x(2, 1) = std::numeric_limits<double>::infinity();
        x(3, 0) = std::numeric_limits<double>::quiet_NaN();
        try {
            Rows rows(x, -1, "lib");
            QFAIL("accepted Inf");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(QString(e.what()), QString("lib: training input [row 2, column 1] is inf"));
        }
    }
};

QTEST_GUILESS_MAIN(TestSparseRows)
#include "tst_sparserows.moc"
