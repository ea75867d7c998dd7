// SparseRows: the workbench's dense and sparse matrices as LIBLINEAR/LIBSVM rows — 1-based
// indices in increasing order, zeros left out, an optional bias node, a terminator — built in
// parallel; the same data gives the same nodes in either form; malformed sparse rows are named.
#include <wrapping/SparseRows.h>

#include <QtTest>
#include <cstring>
#include <random>
#include <tbb/task_arena.h>

namespace {
struct Node {
    int index;
    double value;
};
using Rows = tb::wrap::SparseRows<Node>;

// Every node of every row of @p a equals @p b's, bit for bit; the number of rows checked.
bool sameNodes(Rows& a, Rows& b)
{
    if (a.count() != b.count() || a.nonzeros() != b.nonzeros() || a.bytes() != b.bytes())
        return false;
    for (Eigen::Index i = 0; i < a.count(); ++i)
        for (std::size_t k = 0;; ++k) {
            const Node p = a.rows()[i][k], q = b.rows()[i][k];
            if (p.index != q.index || std::memcmp(&p.value, &q.value, sizeof(double)) != 0)
                return false;
            if (p.index == -1)
                break;
        }
    return true;
}

// 3000 × 41, about a third of the entries zero, and the same matrix sparse — with some of those
// zeros (and one −0) stored explicitly, as a matrix built by arithmetic may hold them.
std::pair<Eigen::MatrixXd, tb::SparseMatrix> denseAndSparse()
{
    std::mt19937_64 gen(17);
    Eigen::MatrixXd x(3000, 41);
    for (Eigen::Index i = 0; i < x.size(); ++i)
        x.data()[i] = gen() % 3 == 0 ? 0.0 : double(gen() % 1000) / 7.0 - 60.0;
    x(5, 3) = -0.0;
    std::vector<Eigen::Triplet<double, int>> entries;
    for (int i = 0; i < x.rows(); ++i)
        for (int j = 0; j < x.cols(); ++j)
            if (x(i, j) != 0.0 || (i + j) % 5 == 0 || (i == 5 && j == 3))
                entries.emplace_back(i, j, x(i, j));
    tb::SparseMatrix s(x.rows(), x.cols());
    s.setFromTriplets(entries.begin(), entries.end());
    s.makeCompressed();
    return {x, s};
}
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

    void sparseGivesTheDenseNodes()
    {
        // The same data, dense or sparse, with and without a bias: the same nodes bit for bit
        // (explicit zeros of the sparse form are left out as the dense form's zeros are), built
        // on 2 threads over 1024-row blocks; fillRow() of either form gives the built rows too.
        const auto [x, s] = denseAndSparse();
        QVERIFY(std::size_t(s.nonZeros()) > std::size_t((x.array() != 0.0).count())); // stored zeros
        for (const double bias : {-1.0, 0.5}) {
            Rows dense, sparse;
            tbb::task_arena(2).execute([&, &x = x, &s = s] {
                dense = Rows(x, bias, "test");
                sparse = Rows(s, bias, "test");
            });
            QVERIFY(sameNodes(dense, sparse));
            QCOMPARE(sparse.nonzeros(), std::size_t((x.array() != 0.0).count()));
            QVERIFY(double(sparse.bytes()) <=
                    Rows::sparseBytesUpperBound(double(s.rows()), double(s.nonZeros()), bias >= 0));
            std::vector<Node> a(std::size_t(x.cols()) + 2), b(a.size());
            for (Eigen::Index i = 0; i < x.rows(); i += 97) {
                QVERIFY(std::size_t(Rows::storedInRow(s, i)) + 2 <= b.size());
                Rows::fillRow(x, i, bias, a.data());
                Rows::fillRow(s, i, bias, b.data());
                for (std::size_t k = 0;; ++k) {
                    QCOMPARE(b[k].index, a[k].index);
                    QCOMPARE(b[k].index, sparse.rows()[i][k].index);
                    if (a[k].index == -1)
                        break;
                    QCOMPARE(b[k].value, a[k].value);
                }
            }
        }
        // Not compressed (room left in every row after insert()): the same rows.
        tb::SparseMatrix loose = s;
        loose.uncompress();
        loose.reserve(Eigen::VectorXi::Constant(loose.rows(), 3));
        QVERIFY(!loose.isCompressed());
        Rows a(x, 1.0, "test"), b(loose, 1.0, "test");
        QVERIFY(sameNodes(a, b));
    }

    void sparseBytesGrowWithTheNonZerosOnly()
    {
        // A million columns, 20 non-zeros in each of 100 rows: 2000 + 200 nodes, whatever d.
        tb::SparseMatrix s(100, 1000000);
        std::vector<Eigen::Triplet<double, int>> entries;
        for (int i = 0; i < 100; ++i)
            for (int k = 0; k < 20; ++k)
                entries.emplace_back(i, (i * 7919 + k * 49999) % 1000000, 1.0 + k);
        s.setFromTriplets(entries.begin(), entries.end());
        Rows rows(s, 1.0, "test");
        QCOMPARE(rows.nonzeros(), std::size_t(2000));
        QCOMPARE(rows.bytes(), std::size_t((2000 + 200) * 16 + 100 * 8));
        QCOMPARE(Rows::sparseBytesUpperBound(100, 2000, true), double(rows.bytes()));
        QCOMPARE(rows.rows()[0][20].index, 1000001); // the bias node, index d + 1
    }

    void malformedSparseRowsAreNamed()
    {
        auto error = [](const tb::SparseMatrix& s) {
            try {
                Rows rows(s, -1, "lib");
            } catch (const std::invalid_argument& e) {
                return QString(e.what());
            }
            return QString();
        };
        tb::SparseMatrix s(4, 10);
        std::vector<Eigen::Triplet<double, int>> entries{
            {0, 1, 1.0}, {1, 2, 2.0}, {2, 3, 3.0}, {2, 7, 4.0}, {3, 0, 5.0}};
        s.setFromTriplets(entries.begin(), entries.end());
        s.makeCompressed();
        QCOMPARE(error(s), QString());

        tb::SparseMatrix nan = s;
        nan.valuePtr()[3] = std::numeric_limits<double>::quiet_NaN(); // row 2, column 7
        QCOMPARE(error(nan), QString("lib: training input [row 2, column 7] is nan"));

        // Columns out of order within a row: LIBSVM's kernels merge rows by index.
        tb::SparseMatrix unsorted = s;
        std::swap(unsorted.innerIndexPtr()[2], unsorted.innerIndexPtr()[3]);
        QCOMPARE(error(unsorted), QString("lib: training input row 2 has column 3 after column 7; columns "
                                          "must be strictly increasing within a row"));
        tb::SparseMatrix duplicate = s;
        duplicate.innerIndexPtr()[3] = 3;
        QVERIFY2(error(duplicate).contains("row 2 has column 3 after column 3"),
                 qPrintable(error(duplicate)));
        tb::SparseMatrix outside = s;
        outside.innerIndexPtr()[4] = 10;
        QCOMPARE(error(outside), QString("lib: training input row 3 has column 10, outside the 10 columns of "
                                         "the matrix"));
    }
};

QTEST_GUILESS_MAIN(TestSparseRows)
#include "tst_sparserows.moc"
