// One stream of glibc's rand() per process, taken by one seeded library call at a time
// (SeededRand, issue 32): a randomised LIBLINEAR solver and a LIBSVM probability model trained at
// the same moment, on two threads, with different seeds, each give what the same run gives alone.
// The plugins are loaded as the workbench loads them (PluginRegistry, one shared library each,
// RTLD_LOCAL): a lock that each plugin had for itself would let their draws interleave.
#include <engine/PluginRegistry.h>
#include <wrapping/SeededRand.h>
#include <trainbench/Trainbench.h>
#include <trainbench/testing/TestRunContext.h>

#include <QtTest>

#include <atomic>
#include <random>
#include <thread>

using namespace tb;

namespace {

struct Problem {
    Eigen::MatrixXd x, y;
    QStringList classNames{"a", "b"};
};

// Two overlapping classes (labels flipped with probability @p flip): no separating hyperplane,
// so the dual solver needs many passes, each a rand() per row.
Problem classes(Eigen::Index n, int d, double flip, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> uniform;
    Problem p;
    p.x.resize(n, d);
    p.y = Eigen::MatrixXd::Zero(n, 2);
    for (Eigen::Index i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < d; ++j) {
            p.x(i, j) = normal(gen);
            s += (j % 3 == 0 ? 1.0 : -0.5) * p.x(i, j);
        }
        int label = s > 0;
        if (uniform(gen) < flip)
            label = 1 - label;
        p.y(i, label) = 1;
    }
    return p;
}

// Trains @p id with @p params on @p p with @p seed and returns its outputs on the training rows.
Eigen::MatrixXd trainAndPredict(const PluginRegistry& reg, const QString& id, const QVariantMap& params,
                                const Problem& p, std::uint64_t seed)
{
    auto trainer = reg.create(id, params);
    testing::TestRunContext ctx(seed);
    DatasetView view(p.x, p.y, Task::Classification);
    view.classNames = p.classNames;
    trainer->fit(view, ctx);
    return trainer->predict(p.x);
}

bool identical(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

} // namespace

class TestSeededRand : public QObject {
    Q_OBJECT
    PluginRegistry m_reg;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_PLUGIN_BUILD_DIR});
        QVERIFY2(m_reg.algorithm("liblinear.classify"), "the liblinear plugin is not built");
        QVERIFY2(m_reg.algorithm("libsvm.c_svc"), "the libsvm plugin is not built");
    }

    void oneHolderAtATime()
    {
        std::atomic<int> inside{0}, most{0}, disturbed{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 200; ++i) {
                    wrap::SeededRand held(unsigned(t * 1000 + i));
                    const int now = ++inside;
                    most = std::max(most.load(), now);
                    const int first = rand();
                    srand(unsigned(t * 1000 + i));
                    const int again = rand();
                    disturbed += first != again; // somebody drew in between
                    --inside;
                }
            });
        for (auto& t : threads)
            t.join();
        QCOMPARE(most.load(), 1);
        QCOMPARE(disturbed.load(), 0);
    }

    void liblinearAndLibsvmSideBySideEqualAlone()
    {
        // LIBLINEAR's L2-loss dual solver draws a coordinate order per pass; LIBSVM's Platt
        // scaling shuffles its cross-validation folds. Different seeds: a constant one cannot pass.
        const Problem linear = classes(4000, 20, 0.1, 1);
        const Problem kernel = classes(150, 2, 0.15, 2);
        const QVariantMap linearParams{{"solver", "l2r_l2loss_svc_dual"}, {"c", 10.0}, {"tolerance", 1e-6}};
        const QVariantMap kernelParams{{"probability", true}};
        const std::uint64_t linearSeed = 11, kernelSeed = 29;

        const Eigen::MatrixXd linearAlone = trainAndPredict(m_reg, "liblinear.classify", linearParams, linear, linearSeed);
        const Eigen::MatrixXd kernelAlone = trainAndPredict(m_reg, "libsvm.c_svc", kernelParams, kernel, kernelSeed);
        // Each alone repeats itself: the comparison below is about the other plugin's draws.
        QVERIFY(identical(linearAlone, trainAndPredict(m_reg, "liblinear.classify", linearParams, linear, linearSeed)));
        QVERIFY(identical(kernelAlone, trainAndPredict(m_reg, "libsvm.c_svc", kernelParams, kernel, kernelSeed)));

        // Side by side: the LIBSVM models are trained again and again for as long as the LIBLINEAR
        // solver runs (at least once), so that their draws meet if the stream is not shared.
        for (int round = 0; round < 3; ++round) {
            std::atomic<bool> linearDone{false};
            Eigen::MatrixXd linearTogether;
            std::vector<Eigen::MatrixXd> kernelTogether;
            std::thread a([&] {
                linearTogether = trainAndPredict(m_reg, "liblinear.classify", linearParams, linear, linearSeed);
                linearDone = true;
            });
            std::thread b([&] {
                do
                    kernelTogether.push_back(trainAndPredict(m_reg, "libsvm.c_svc", kernelParams, kernel, kernelSeed));
                while (!linearDone && kernelTogether.size() < 200);
            });
            a.join();
            b.join();
            QVERIFY2(identical(linearAlone, linearTogether),
                     qPrintable(QStringLiteral("round %1: LIBLINEAR beside LIBSVM differs from LIBLINEAR alone").arg(round)));
            for (std::size_t i = 0; i < kernelTogether.size(); ++i)
                QVERIFY2(identical(kernelAlone, kernelTogether[i]),
                         qPrintable(QStringLiteral("round %1: LIBSVM model %2 of %3 beside LIBLINEAR differs from "
                                                   "LIBSVM alone")
                                        .arg(round)
                                        .arg(i + 1)
                                        .arg(kernelTogether.size())));
        }
    }
};

QTEST_GUILESS_MAIN(TestSeededRand)
#include "tst_seededrand.moc"
