// SmallMlpKernel against the Eigen path it replaces (Mlp::forwardColumns + backwardColumns on the
// gathered samples, as BatchGradient runs it): the same loss and gradient to the last bit, on
// every activation, with and without biases, over all the shapes it accepts (squared error: the
// cross-entropy is refused).
#include "Mlp.h"
#include "LaneExp.h"
#include "SmallMlpKernel.h"

#include <QtTest>
#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

using namespace tb::num;

namespace {

bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, sizeof a) == 0;
}

struct Case {
    Mlp net;
    MlpLoss loss = MlpLoss::SquaredError;
    Eigen::MatrixXd xt;  // inputs × n
    Eigen::MatrixXd y;   // n × outputs
    std::vector<Eigen::Index> rows;
    Eigen::Index capacity = 0;  // rows of the Eigen path's workspace (≥ the batch)
};

// A random network of @p sizes with the given output activation, weights U[−1.5, 1.5], and n
// samples of which the batch takes m in a shuffled order.
Case makeCase(std::mt19937_64& gen, const std::vector<Eigen::Index>& sizes, Activation output, MlpLoss loss,
              Eigen::Index m)
{
    const Activation hidden[] = {Activation::Identity, Activation::Sigmoid, Activation::Tanh, Activation::Softplus,
                                 Activation::Elu};
    std::vector<Activation> acts;
    std::vector<bool> biases;
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
        acts.push_back(l + 2 == sizes.size() ? output : hidden[gen() % 5]);
        biases.push_back(gen() % 4 != 0);
    }
    Case c{Mlp(sizes, acts, biases), loss, {}, {}, {}};
    c.net.initUniform(gen(), -1.5, 1.5);
    const Eigen::Index n = m + 3;
    std::normal_distribution<double> normal(0.0, 2.0);
    c.xt.resize(sizes.front(), n);
    for (Eigen::Index i = 0; i < c.xt.size(); ++i)
        c.xt.data()[i] = normal(gen);
    c.y.resize(n, sizes.back());
    for (Eigen::Index i = 0; i < n; ++i) {
        double sum = 0;
        for (Eigen::Index j = 0; j < c.y.cols(); ++j)
            sum += c.y(i, j) = loss == MlpLoss::SoftmaxCrossEntropy ? 0.05 + Mlp::uniform01(gen()) : normal(gen);
        if (loss == MlpLoss::SoftmaxCrossEntropy)
            c.y.row(i) /= sum;
    }
    std::vector<Eigen::Index> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), Eigen::Index(0));
    std::shuffle(all.begin(), all.end(), gen);
    c.rows.assign(all.begin(), all.begin() + m);
    c.capacity = m + Eigen::Index(gen() % 3);
    return c;
}

// The Eigen path: gather the batch, forwardColumns, backwardColumns (or loss).
double eigenPath(const Case& c, std::vector<Eigen::MatrixXd>* grads)
{
    const Eigen::Index m = Eigen::Index(c.rows.size());
    Eigen::MatrixXd xb(c.xt.rows(), m), yb(m, c.y.cols());
    for (Eigen::Index j = 0; j < m; ++j) {
        xb.col(j) = c.xt.col(c.rows[std::size_t(j)]);
        yb.row(j) = c.y.row(c.rows[std::size_t(j)]);
    }
    MlpWorkspace ws(c.net, c.capacity);
    c.net.forwardColumns(xb, ws);
    if (!grads)
        return c.net.loss(yb, c.loss, ws);
    return c.net.backwardColumns(xb, yb, c.loss, ws, *grads);
}

// Compares the kernel with the Eigen path on @p c; a message naming the first difference.
QString compare(const Case& c)
{
    const std::string what = c.net.describe() + " batch " + std::to_string(c.rows.size()) +
                             (c.loss == MlpLoss::SquaredError ? " squared error" : " cross-entropy");
    std::vector<Eigen::MatrixXd> ge = c.net.zeroGradients(), gk = c.net.zeroGradients();
    const double le = eigenPath(c, &ge);
    const Eigen::Index m = Eigen::Index(c.rows.size());
    const double lk = SmallMlpKernel::run(c.net, c.loss, c.xt, c.y, c.rows.data(), 0, m, c.capacity, &gk);
    if (!sameBits(le, lk))
        return QString::fromStdString(what) +
               QStringLiteral(": loss %1 vs %2").arg(le, 0, 'g', 17).arg(lk, 0, 'g', 17);
    for (std::size_t l = 0; l < ge.size(); ++l)
        for (Eigen::Index i = 0; i < ge[l].size(); ++i)
            if (!sameBits(ge[l].data()[i], gk[l].data()[i]))
                return QString::fromStdString(what) + QStringLiteral(": gradient of layer %1, entry %2: %3 vs %4")
                                                          .arg(l).arg(i)
                                                          .arg(ge[l].data()[i], 0, 'g', 17)
                                                          .arg(gk[l].data()[i], 0, 'g', 17);
    const double onlyLoss = SmallMlpKernel::run(c.net, c.loss, c.xt, c.y, c.rows.data(), 0, m, c.capacity, nullptr);
    if (!sameBits(eigenPath(c, nullptr), onlyLoss))
        return QString::fromStdString(what) + QStringLiteral(": loss without gradient differs");
    return {};
}

} // namespace

class TestSmallMlpKernel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        if (SmallMlpKernel::sizeLimit() < 1)
            QSKIP("the kernel is off in this build (not GCC): BatchGradient keeps the Eigen path");
    }

    void limitsFollowTheBuild()
    {
        const Eigen::Index limit = SmallMlpKernel::sizeLimit();
        QVERIFY(limit >= 1 && limit <= SmallMlpKernel::kMaxSize);
        const Mlp toy = Mlp::withHidden(1, {3}, 2, Activation::Sigmoid, Activation::Sigmoid);
        QCOMPARE(SmallMlpKernel::fits(toy, limit, MlpLoss::SquaredError), limit + 3 + 2 < 20);
        QVERIFY(!SmallMlpKernel::fits(toy, limit + 1, MlpLoss::SquaredError));
        QVERIFY(!SmallMlpKernel::fits(toy, 0, MlpLoss::SquaredError));
        QVERIFY(!SmallMlpKernel::fits(toy, 1, MlpLoss::SoftmaxCrossEntropy));  // no softmax output
        QVERIFY(!SmallMlpKernel::fits(Mlp::withHidden(2, {3}, 2, Activation::Sigmoid, Activation::Softmax), 1,
                                      MlpLoss::SoftmaxCrossEntropy));  // never the cross-entropy
        QVERIFY(!SmallMlpKernel::fits(Mlp::withHidden(limit + 1, {1}, 1, Activation::Tanh, Activation::Identity), 1,
                                      MlpLoss::SquaredError));
        QVERIFY(!SmallMlpKernel::fits(Mlp::withHidden(1, {1, 1, 1, 1}, 1, Activation::Tanh, Activation::Identity), 1,
                                      MlpLoss::SquaredError));  // 5 weight layers
        QVERIFY(SmallMlpKernel::fits(Mlp::withHidden(1, {1, 1, 1}, 1, Activation::Tanh, Activation::Identity), 1,
                                     MlpLoss::SquaredError));
        if (limit >= 7) // 7 + 7 + 7 ≥ 20: Eigen's GEMM kernel, not the lazy product
            QVERIFY(!SmallMlpKernel::fits(Mlp::withHidden(7, {7}, 1, Activation::Tanh, Activation::Identity), 7,
                                          MlpLoss::SquaredError));
    }

    void refusesWhatDoesNotFit()
    {
        const Mlp toy = Mlp::withHidden(1, {3}, 2, Activation::Sigmoid, Activation::Sigmoid);
        const Eigen::MatrixXd xt = Eigen::MatrixXd::Ones(1, 20), y = Eigen::MatrixXd::Zero(20, 2);
        std::vector<Eigen::MatrixXd> g = toy.zeroGradients();
        const Eigen::Index tooMany = SmallMlpKernel::sizeLimit() + 1;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 SmallMlpKernel::run(toy, MlpLoss::SquaredError, xt, y, nullptr, 0, tooMany, 20, &g));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 SmallMlpKernel::run(toy, MlpLoss::SoftmaxCrossEntropy, xt, y, nullptr, 0, 1, 1, &g));
        std::vector<Eigen::MatrixXd> wrong = g;
        wrong[1].resize(3, 2);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 SmallMlpKernel::run(toy, MlpLoss::SquaredError, xt, y, nullptr, 0, 1, 1, &wrong));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 SmallMlpKernel::run(toy, MlpLoss::SquaredError, xt, y, nullptr, 0, 2, 1, &g));
        wrong.pop_back();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 SmallMlpKernel::run(toy, MlpLoss::SquaredError, xt, y, nullptr, 0, 1, 1, &wrong));
    }

    // The BPLS paper's toy networks on their 5 training samples, linear and sigmoid.
    void toyNetworksBitIdentical()
    {
        if (!SmallMlpKernel::fits(Mlp::withHidden(1, {3}, 2, Activation::Sigmoid, Activation::Sigmoid), 5,
                                  MlpLoss::SquaredError))
            QSKIP("this build's SIMD width keeps 5-row batches on the Eigen path");
        std::mt19937_64 gen(11);
        for (Activation a : {Activation::Identity, Activation::Sigmoid})
            for (int rep = 0; rep < 200; ++rep) {
                Case c = makeCase(gen, {1, 3, 2}, a, MlpLoss::SquaredError, 5);
                c.net = Mlp::withHidden(1, {3}, 2, a, a, true, true);
                c.net.initUniform(gen(), -1.0, 1.0);
                const QString diff = compare(c);
                QVERIFY2(diff.isEmpty(), qPrintable(diff));
            }
    }

    // Every shape the kernel takes (up to three weight layers), every activation; the cross-entropy
    // cases check that fits() sends them to the general path.
    void allSmallShapesBitIdentical()
    {
        const Eigen::Index limit = SmallMlpKernel::sizeLimit();
        std::mt19937_64 gen(2026);
        const Activation outputs[] = {Activation::Identity, Activation::Sigmoid, Activation::Tanh,
                                      Activation::Softplus, Activation::Elu, Activation::Softmax};
        int checked = 0;
        for (int layers = 1; layers <= 3; ++layers)
            for (int rep = 0; rep < 1500; ++rep) {
                std::vector<Eigen::Index> sizes;
                for (int l = 0; l <= layers; ++l)
                    sizes.push_back(1 + Eigen::Index(gen() % std::uint64_t(limit)));
                const Eigen::Index m = 1 + Eigen::Index(gen() % std::uint64_t(limit));
                const Activation out = outputs[gen() % 6];
                const MlpLoss loss = out == Activation::Softmax && gen() % 2 ? MlpLoss::SoftmaxCrossEntropy
                                                                             : MlpLoss::SquaredError;
                Case c = makeCase(gen, sizes, out, loss, m);
                if (!SmallMlpKernel::fits(c.net, m, loss))
                    continue;
                const QString diff = compare(c);
                QVERIFY2(diff.isEmpty(), qPrintable(diff));
                ++checked;
            }
        QVERIFY(checked > 1000);
    }

    // runLanes(): eight replicas of one shape (each its own weights, samples and targets) against
    // run() on each, every activation but softmax, every shape the kernel takes.
    void lanesEqualOneByOne()
    {
        const Eigen::Index limit = SmallMlpKernel::sizeLimit();
        std::mt19937_64 gen(4242);
        const Activation outputs[] = {Activation::Identity, Activation::Sigmoid, Activation::Tanh,
                                      Activation::Softplus, Activation::Elu};
        int checked = 0;
        for (int layers = 1; layers <= 3; ++layers)
            for (int rep = 0; rep < 300; ++rep) {
                std::vector<Eigen::Index> sizes;
                for (int l = 0; l <= layers; ++l)
                    sizes.push_back(1 + Eigen::Index(gen() % std::uint64_t(limit)));
                const Eigen::Index m = 1 + Eigen::Index(gen() % std::uint64_t(limit));
                const Activation out = outputs[gen() % 5];
                const std::uint64_t shapeSeed = gen();
                std::vector<Case> cs;
                for (int lane = 0; lane < kLanes; ++lane) {
                    std::mt19937_64 shapeGen(shapeSeed);  // the same activations and biases
                    Case c = makeCase(shapeGen, sizes, out, MlpLoss::SquaredError, m);
                    c.net.initUniform(gen(), -1.5, 1.5);
                    for (Eigen::Index i = 0; i < c.xt.size(); ++i)
                        c.xt.data()[i] = std::normal_distribution<double>(0.0, 2.0)(gen);
                    for (Eigen::Index i = 0; i < c.y.size(); ++i)
                        c.y.data()[i] = std::normal_distribution<double>(0.0, 2.0)(gen);
                    std::shuffle(c.rows.begin(), c.rows.end(), gen);
                    c.capacity = cs.empty() ? c.capacity : cs[0].capacity;
                    cs.push_back(std::move(c));
                }
                const Case& c0 = cs[0];
                if (!SmallMlpKernel::fitsLanes(c0.net, m, MlpLoss::SquaredError))
                    continue;
                const int nl = c0.net.layerCount();
                std::vector<std::vector<Lanes>> w(static_cast<std::size_t>(nl)), g(static_cast<std::size_t>(nl));
                std::vector<const Lanes*> wp;
                std::vector<Lanes*> gp;
                for (int l = 0; l < nl; ++l) {
                    const Eigen::Index size = c0.net.weights(l).size();
                    w[std::size_t(l)].resize(std::size_t(size));
                    g[std::size_t(l)].assign(std::size_t(size), Lanes(0.0));
                    for (Eigen::Index i = 0; i < size; ++i)
                        for (int lane = 0; lane < kLanes; ++lane)
                            w[std::size_t(l)][std::size_t(i)].set(lane, cs[std::size_t(lane)].net.weights(l).data()[i]);
                    wp.push_back(w[std::size_t(l)].data());
                    gp.push_back(g[std::size_t(l)].data());
                }
                const Eigen::Index d = c0.xt.rows(), k = c0.y.cols();
                std::vector<Lanes> xs(static_cast<std::size_t>(m * d)), ys(64, Lanes(0.0));
                std::vector<const Lanes*> cols;
                for (Eigen::Index i = 0; i < m; ++i) {
                    for (int lane = 0; lane < kLanes; ++lane) {
                        const Case& c = cs[std::size_t(lane)];
                        const Eigen::Index row = c.rows[std::size_t(i)];
                        for (Eigen::Index a = 0; a < d; ++a)
                            xs[std::size_t(i * d + a)].set(lane, c.xt(a, row));
                        for (Eigen::Index j = 0; j < k; ++j)
                            ys[std::size_t(j * 8 + i)].set(lane, c.y(row, j));
                    }
                    cols.push_back(xs.data() + i * d);
                }
                const Lanes loss = SmallMlpKernel::runLanes(c0.net, MlpLoss::SquaredError, wp.data(), cols.data(),
                                                            ys.data(), m, c0.capacity, gp.data());
                const Lanes lossOnly = SmallMlpKernel::runLanes(c0.net, MlpLoss::SquaredError, wp.data(), cols.data(),
                                                                ys.data(), m, c0.capacity, nullptr);
                for (int lane = 0; lane < kLanes; ++lane) {
                    const Case& c = cs[std::size_t(lane)];
                    std::vector<Eigen::MatrixXd> gr = c.net.zeroGradients();
                    const double ref = SmallMlpKernel::run(c.net, c.loss, c.xt, c.y, c.rows.data(), 0, m, c.capacity, &gr);
                    const QString at = QStringLiteral("%1, lane %2").arg(QString::fromStdString(c.net.describe())).arg(lane);
                    QVERIFY2(sameBits(ref, loss[lane]), qPrintable(at + " loss"));
                    QVERIFY2(sameBits(ref, lossOnly[lane]), qPrintable(at + " loss without gradient"));
                    for (int l = 0; l < nl; ++l)
                        for (Eigen::Index i = 0; i < gr[std::size_t(l)].size(); ++i)
                            QVERIFY2(sameBits(gr[std::size_t(l)].data()[i], g[std::size_t(l)][std::size_t(i)][lane]),
                                     qPrintable(at + QStringLiteral(" gradient %1/%2").arg(l).arg(i)));
                }
                ++checked;
            }
        QVERIFY(checked > 300);
        // Softmax layers stay one by one.
        QVERIFY(!SmallMlpKernel::fitsLanes(Mlp::withHidden(2, {3}, 2, Activation::Tanh, Activation::Softmax), 3,
                                           MlpLoss::SquaredError));
    }

    // laneExp() against std::exp, bit for bit: the main range, its edges and everything outside.
    void laneExpIsStdExp()
    {
        qInfo("laneExp vectorised on this machine: %s", laneExpVectorised() ? "yes" : "no (std::exp per lane)");
        std::mt19937_64 gen(7);
        std::uniform_real_distribution<double> wide(-750.0, 720.0), mid(-20.0, 20.0), small(-1e-6, 1e-6);
        std::uniform_int_distribution<std::uint64_t> bits;
        const double specials[] = {0.0, -0.0, 0x1p-54, -0x1p-54, 0x1p-60, 512.0, -512.0, 709.78, 709.79, -745.13,
                                   -745.2, 1e300, -1e300, std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(), std::nan(""),
                                   std::numeric_limits<double>::denorm_min(), 1.0, -1.0};
        auto check = [](Lanes x) {
            const Lanes v = laneExp(x);
            for (int i = 0; i < kLanes; ++i) {
                const double ref = std::exp(x[i]);
                if (!(sameBits(ref, v[i]) || (std::isnan(ref) && std::isnan(v[i]))))
                    return QStringLiteral("exp(%1): %2, std::exp %3").arg(x[i], 0, 'g', 17).arg(v[i], 0, 'g', 17).arg(ref, 0, 'g', 17);
            }
            return QString();
        };
        for (double sp : specials) {
            Lanes x(1.5);
            x.set(3, sp);
            const QString e = check(x);
            QVERIFY2(e.isEmpty(), qPrintable(e));
        }
        for (int n = 0; n < 250000; ++n) {
            Lanes x;
            for (int i = 0; i < kLanes; ++i) {
                const int kind = int((n + i) % 4);
                std::uint64_t b = bits(gen);
                double r;
                std::memcpy(&r, &b, sizeof r);
                x.set(i, kind == 0 ? wide(gen) : kind == 1 ? mid(gen) : kind == 2 ? small(gen) : r);
            }
            const QString e = check(x);
            QVERIFY2(e.isEmpty(), qPrintable(e));
        }
    }

    // Contiguous samples (rows = null) read the same columns as the listed ones.
    void contiguousSamples()
    {
        std::mt19937_64 gen(5);
        Case c = makeCase(gen, {2, 3, 1}, Activation::Tanh, MlpLoss::SquaredError, 4);  // 7 samples
        const Eigen::Index m = std::min<Eigen::Index>(3, SmallMlpKernel::sizeLimit());
        std::vector<Eigen::Index> rows(static_cast<std::size_t>(m));
        std::iota(rows.begin(), rows.end(), Eigen::Index(2));
        std::vector<Eigen::MatrixXd> a = c.net.zeroGradients(), b = c.net.zeroGradients();
        const double la = SmallMlpKernel::run(c.net, c.loss, c.xt, c.y, rows.data(), 0, m, m, &a);
        const double lb = SmallMlpKernel::run(c.net, c.loss, c.xt, c.y, nullptr, 2, m, m, &b);
        QVERIFY(sameBits(la, lb));
        for (std::size_t l = 0; l < a.size(); ++l)
            QCOMPARE(a[l], b[l]);
    }
};

QTEST_APPLESS_MAIN(TestSmallMlpKernel)
#include "tst_smallmlpkernel.moc"
