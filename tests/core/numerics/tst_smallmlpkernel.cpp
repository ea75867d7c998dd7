// SmallMlpKernel (issue 43: its order of roundings is fixed in its source, so it is the same on
// every CPU a build runs on):
// - against the Eigen path it stands in for (Mlp::forwardColumns + backwardColumns on the
//   gathered samples, as BatchGradient runs it): the same loss and gradient within rounding, on
//   every activation, with and without biases, over all the shapes it accepts (squared error: the
//   cross-entropy is refused) — not to the bit, which holds only where GCC contracts Eigen's sums
//   as the kernel does (on the Intel Xeon the order was taken from, not with an AMD's tuning);
// - against its own recorded bits (a checksum per instruction set), which no CPU model or
//   -mtune may change;
// - runLanes() against run(), bit for bit, and laneExp() against std::exp.
#include <numerics/Mlp.h>
#include <numerics/LaneExp.h>
#include <numerics/SmallMlpKernel.h>

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

// The Eigen path: gather the batch, forwardColumns, backwardColumns (or loss). With
// @p cancellation, also how much a softmax output's backward pass cancels (see compare()).
double eigenPath(const Case& c, std::vector<Eigen::MatrixXd>* grads, double* cancellation = nullptr)
{
    const Eigen::Index m = Eigen::Index(c.rows.size());
    Eigen::MatrixXd xb(c.xt.rows(), m), yb(m, c.y.cols());
    for (Eigen::Index j = 0; j < m; ++j) {
        xb.col(j) = c.xt.col(c.rows[std::size_t(j)]);
        yb.row(j) = c.y.row(c.rows[std::size_t(j)]);
    }
    MlpWorkspace ws(c.net, c.capacity);
    c.net.forwardColumns(xb, ws);
    if (cancellation) {
        // Squared error on a softmax output: δ = p∘(g − pᵀg), g = p − y. Its terms p_j·g_j and
        // p_j·pᵀg are larger than δ where they cancel; the ratio of their size to δ's is by how
        // much the rounding of either is magnified, here and in every earlier layer's gradient.
        *cancellation = 1;
        if (c.net.activation(c.net.layerCount() - 1) == Activation::Softmax && c.loss == MlpLoss::SquaredError) {
            const Eigen::MatrixXd p = ws.values.back().topRows(m);
            const Eigen::MatrixXd g = p - yb;
            const Eigen::VectorXd s = (p.cwiseProduct(g)).rowwise().sum();
            const Eigen::MatrixXd delta = p.cwiseProduct(g - s.replicate(1, p.cols()));
            const Eigen::MatrixXd terms = p.cwiseAbs().cwiseProduct(g.cwiseAbs() + s.cwiseAbs().replicate(1, p.cols()));
            const double small = delta.cwiseAbs().maxCoeff();
            *cancellation = small > 0 ? std::max(1.0, terms.maxCoeff() / small) : 1.0;
        }
    }
    if (!grads)
        return c.net.loss(yb, c.loss, ws);
    return c.net.backwardColumns(xb, yb, c.loss, ws, *grads);
}

// How far the kernel may be from the Eigen path, relative to the scale of what is compared: the
// loss (a sum of squares), or the largest entry of the layer's gradient times the cancellation of
// a softmax output's backward pass (eigenPath()), which magnifies every rounding before it. Both
// paths sum every product in index order and differ only in which products are rounded before
// they are added (fused or not): a few ulps of each sum, through at most 4 layers. The largest
// difference measured over every case here was 1.1e-14 of that scale with -mtune=znver3 (where
// GCC fuses other sums than on the Intel machine the order was taken from), 9.9e-15 for
// x86-64-v3 and 2.3e-14 for generic x86-64 (no FMA at all); a wrong index, a missing term or a
// wrong activation changes an entry by O(1) of it. 1e-12 (4500 u) lies between.
constexpr double kRoundingTolerance = 1e-12;

// Compares the kernel with the Eigen path on @p c; a message naming the first difference beyond
// kRoundingTolerance. @p worst receives the largest difference seen, relative to its scale.
QString compare(const Case& c, double* worst)
{
    const std::string what = c.net.describe() + " batch " + std::to_string(c.rows.size()) +
                             (c.loss == MlpLoss::SquaredError ? " squared error" : " cross-entropy");
    std::vector<Eigen::MatrixXd> ge = c.net.zeroGradients(), gk = c.net.zeroGradients();
    double cancellation = 1;
    const double le = eigenPath(c, &ge, &cancellation);
    const Eigen::Index m = Eigen::Index(c.rows.size());
    const double lk = SmallMlpKernel::run(c.net, c.loss, c.xt, c.y, c.rows.data(), 0, m, c.capacity, &gk);
    auto within = [worst](double a, double b, double scale) {
        const double d = std::abs(a - b);
        if (scale > 0)
            *worst = std::max(*worst, d / scale);

        return d <= kRoundingTolerance * scale;
    };
    if (!within(le, lk, std::abs(le)))
        return QString::fromStdString(what) +
               QStringLiteral(": loss %1 vs %2").arg(le, 0, 'g', 17).arg(lk, 0, 'g', 17);
    for (std::size_t l = 0; l < ge.size(); ++l) {
        const double scale = ge[l].cwiseAbs().maxCoeff() * cancellation;
        for (Eigen::Index i = 0; i < ge[l].size(); ++i)
            if (!within(ge[l].data()[i], gk[l].data()[i], scale))
                return QString::fromStdString(what) + QStringLiteral(": gradient of layer %1, entry %2: %3 vs %4 "
                                                                     "(scale %5)")
                                                          .arg(l).arg(i)
                                                          .arg(ge[l].data()[i], 0, 'g', 17)
                                                          .arg(gk[l].data()[i], 0, 'g', 17)
                                                          .arg(scale, 0, 'g', 17);
    }
    // The loss alone is the loss of the full pass, bit for bit (one kernel, one order).
    const double onlyLoss = SmallMlpKernel::run(c.net, c.loss, c.xt, c.y, c.rows.data(), 0, m, c.capacity, nullptr);
    if (!sameBits(lk, onlyLoss))
        return QString::fromStdString(what) + QStringLiteral(": loss without gradient differs");
    return {};
}

// FNV-1a over the bits of @p values.
std::uint64_t fnv1a(std::uint64_t h, const double* values, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t b;
        std::memcpy(&b, values + i, sizeof b);
        for (int k = 0; k < 8; ++k) {
            h ^= (b >> (8 * k)) & 0xff;
            h *= 0x100000001b3ULL;
        }
    }
    return h;
}

} // namespace

class TestSmallMlpKernel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The kernel's limits are its own, the same in every build (they once followed Eigen's
    // packet width, so an SSE2 build kept the toy networks on the slow path).
    void limitsAreTheKernels()
    {
        const Eigen::Index limit = SmallMlpKernel::sizeLimit();
        QCOMPARE(limit, SmallMlpKernel::kMaxSize);
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
    void toyNetworksAgreeWithEigen()
    {
        QVERIFY(SmallMlpKernel::fits(Mlp::withHidden(1, {3}, 2, Activation::Sigmoid, Activation::Sigmoid), 5,
                                     MlpLoss::SquaredError));
        std::mt19937_64 gen(11);
        double worst = 0;
        for (Activation a : {Activation::Identity, Activation::Sigmoid})
            for (int rep = 0; rep < 200; ++rep) {
                Case c = makeCase(gen, {1, 3, 2}, a, MlpLoss::SquaredError, 5);
                c.net = Mlp::withHidden(1, {3}, 2, a, a, true, true);
                c.net.initUniform(gen(), -1.0, 1.0);
                const QString diff = compare(c, &worst);
                QVERIFY2(diff.isEmpty(), qPrintable(diff));
            }
        qInfo("largest difference from the Eigen path: %g of its scale (2^%.1f)", worst,
              worst > 0 ? std::log2(worst) : -1074.0);
    }

    // Every shape the kernel takes (up to three weight layers), every activation; the cross-entropy
    // cases check that fits() sends them to the general path.
    void allSmallShapesAgreeWithEigen()
    {
        const Eigen::Index limit = SmallMlpKernel::sizeLimit();
        std::mt19937_64 gen(2026);
        double worst = 0;
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
                const QString diff = compare(c, &worst);
                QVERIFY2(diff.isEmpty(), qPrintable(diff));
                ++checked;
            }
        QVERIFY(checked > 1000);
        qInfo("largest difference from the Eigen path: %g of its scale (2^%.1f)", worst,
              worst > 0 ? std::log2(worst) : -1074.0);
    }

    // The kernel's bits are fixed by its source and the build's instruction set (FMA or not),
    // not by the CPU it runs on or the compiler's tuning: checksums of run() over fixed sets of
    // cases — the toy networks and random small shapes — against the ones recorded for that
    // instruction set, once for networks of identity layers (arithmetic only) and once with tanh
    // layers too (glibc's tanh calls expm1, which glibc picks by CPU: FMA or not; a build that
    // targets FMA runs on FMA CPUs only, a generic build may not). Recorded with -march=native on
    // an Intel Xeon (AVX-512) and checked there with -mtune=znver3 (the tuning GCC 12 gives an AMD
    // EPYC), -march=x86-64-v3 (AVX2) and -march=x86-64-v4; the generic build's (TB_NATIVE=OFF) on
    // the same Xeon, which has FMA. A change of the kernel's order is a change of every toy sweep's
    // numbers: record the new checksums in the same commit.
    void bitsAreFixedBySource()
    {
        auto checksum = [](bool tanh, int* cases) {
            std::mt19937_64 gen(tanh ? 43 : 44);
            std::uint64_t h = 0xcbf29ce484222325ULL;
            *cases = 0;
            for (int rep = 0; rep < 400; ++rep) {
                const int layers = 1 + rep % 3;
                std::vector<Eigen::Index> sizes;
                for (int l = 0; l <= layers; ++l)
                    sizes.push_back(rep < 100 ? (l == 0 ? 1 : l == layers ? 2 : 3) : 1 + Eigen::Index(gen() % 7));
                const Eigen::Index m = rep < 100 ? 5 : 1 + Eigen::Index(gen() % 7);
                Case c = makeCase(gen, sizes, Activation::Identity, MlpLoss::SquaredError, m);
                std::vector<Activation> acts;
                for (int l = 0; l < layers; ++l)
                    acts.push_back(tanh && gen() % 2 ? Activation::Tanh : Activation::Identity);
                c.net = Mlp(sizes, acts, c.net.layerBiases());
                c.net.initUniform(gen(), -1.5, 1.5);
                if (!SmallMlpKernel::fits(c.net, m, MlpLoss::SquaredError))
                    continue;
                std::vector<Eigen::MatrixXd> g = c.net.zeroGradients();
                const double loss = SmallMlpKernel::run(c.net, c.loss, c.xt, c.y, c.rows.data(), 0, m, c.capacity, &g);
                h = fnv1a(h, &loss, 1);
                for (const Eigen::MatrixXd& gl : g)
                    h = fnv1a(h, gl.data(), std::size_t(gl.size()));
                ++*cases;
            }
            return h;
        };
#if defined(__FMA__)
        const std::uint64_t recorded[2] = {0x2558cb4c1fc49514ULL, 0xa5494aad0d13b97aULL};  // every build that targets FMA
#else
        const std::uint64_t recorded[2] = {0xa986bc7630e4685fULL, 0x133d76182b9f2678ULL};  // builds without FMA (generic x86-64)
#endif
        for (bool tanh : {false, true}) {
            int cases = 0;
            const std::uint64_t h = checksum(tanh, &cases);
            QVERIFY(cases > 300);
#if !defined(__FMA__) && (defined(__x86_64__) || defined(__i386__))
            if (tanh && !__builtin_cpu_supports("fma")) {
                qInfo("tanh layers not compared: this CPU has no FMA, so glibc's expm1 is its other variant");
                continue;
            }
#endif
            QVERIFY2(h == recorded[tanh], qPrintable(QStringLiteral("%1 layers: checksum 0x%2 over %3 cases, recorded 0x%4")
                                                         .arg(tanh ? "tanh and identity" : "identity")
                                                         .arg(h, 16, 16, QLatin1Char('0'))
                                                         .arg(cases)
                                                         .arg(recorded[tanh], 16, 16, QLatin1Char('0'))));
        }
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
