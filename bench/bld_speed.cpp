// What one L-BFGS iteration on one layer costs in B2LD, against one forward/backward pass
// through the layers it needs and against an iteration of full L-BFGS (issue 12's speed claim).
//
//   bld_speed [--arch 10x50] [--repeats 20] [--iterations 20] [--seed 1] [--quick]
//
// Data: the Mv training set as bld_tables uses it (32614 rows, 12 inputs, min-max scaled).
// Everything runs on one thread and is timed on that thread's CPU clock
// (CLOCK_THREAD_CPUTIME_ID), so other jobs on the machine change the figures little. For every
// weight layer l of the network (initial weights, seed --seed):
//  - eval: MlpObjective::evaluate() of block l (what every L-BFGS step of B2LD calls): the
//    layers before l come from the cache built by selectLayers(l, l);
//  - pass: the reference, one forward and backward pass (all gradients of the pass) of the
//    layers l … L−1 alone over the same rows with the shared network type (BatchGradient on
//    the slice, its input the cached output of layer l−1);
//  - iter: one L-BFGS iteration on block l (LbfgsDriver, --iterations iterations from the
//    initial point, total CPU time / iterations), and its evaluations per iteration;
// then the same for the whole network (full L-BFGS). Each time is the median of --repeats.
// Nothing here trains: the program times the plugin's internal steps on purpose (the block
// objective of BldObjective.h and BldConfig's network), which is why it links tb_bld_core.

#include <support/BenchArguments.h>
#include <support/BenchData.h>
#include <support/BenchMain.h>
#include <support/CpuTime.h>

#include <training/BatchGradient.h>
#include <bld/BldConfig.h>
#include <bld/BldObjective.h>
#include <training/LbfgsDriver.h>
#include <training/Sampling.h>

#include <QStringList>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double timeIt(int reps, const std::function<void()>& f)
{
    f(); // warm-up
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        const double t0 = tb::bench::CpuTime::thread();
        f();
        t.push_back(tb::bench::CpuTime::thread() - t0);
    }
    return median(t);
}

} // namespace

int main(int argc, char** argv)
{
    using tb::bench::BenchArguments;
    BenchArguments args("bld_speed",
                        "One L-BFGS iteration on one layer of B2LD against one forward/backward pass "
                        "through the layers it needs and against an iteration of full L-BFGS (thread "
                        "CPU time, one thread, Mv).");
    args.add("arch", "A", "hidden layers, e.g. 10x50 (ten of 50) or 200-50-200", "10x50", "3x20");
    args.add(BenchArguments::Common::Repeats, "20", "3", "each time is the median");
    args.add("iterations", "N", "L-BFGS iterations per timing", "20", "5");
    args.add(BenchArguments::Common::Seed, "1", {}, "of the initial weights");
    return tb::bench::benchMain(argc, argv, args, {.hugePages = false}, [&] {
        const QString arch = args.text("arch");
        const int reps = int(args.integer("repeats", 1));
        const int iterations = int(args.integer("iterations", 1));
        const std::uint64_t seed = args.seed("seed");
        QVariantList hidden;
        const QStringList x = arch.split('x');
        if (x.size() == 2)
            for (int i = 0; i < x[0].toInt(); ++i)
                hidden << x[1].toInt();
        else
            for (const QString& w : arch.split('-'))
                hidden << w.toInt();
        // The Mv training set as bld_tables and the bld experiment files load it.
        const tb::data::DatasetPair data =
            tb::bench::BenchData::load({{"source", "mv"}, {"seed", 1}, {"min_max_scale", true}});
        const auto& train = data.train;
        QString err;
        const auto p =
            tb::bld::BldConfig::schema(tb::bld::Algorithm::B2ld).normalise({{"hidden", hidden}}, &err);
        if (!p)
            throw std::invalid_argument(err.toStdString());
        const tb::bld::BldConfig c = tb::bld::BldConfig::fromParams(tb::bld::Algorithm::B2ld, *p);
        const tb::num::Mlp start = c.makeNetwork(train.inputs(), train.outputs(), tb::deriveSeed(seed, 0));
        const int layers = start.layerCount();
        const Eigen::Index n = train.rows();
        const double rho = c.rho(double(start.parameterCount()));
        std::printf("Mv train %lld rows, network %s, %lld weights, 1 thread, thread CPU time, median of %d\n",
                    (long long)n, start.describe().c_str(), (long long)start.parameterCount(), reps);
        std::printf("| block | weights | eval ms | pass ms | eval/pass | iter ms | evals/iter | iter/pass | "
                    "iter/full iter |\n");
        std::printf("|---|---|---|---|---|---|---|---|---|\n");
        tbb::task_arena(1).execute([&] {
            const Eigen::MatrixXd xt = tb::train::transposedCopy(train.x);
            tb::train::LbfgsSettings ls;
            ls.epsilon = 0;
            ls.maxIterations = iterations;
            const tb::train::LbfgsDriver driver(ls);
            struct Row {
                QString name;
                double weights, eval, pass, iter, evalsPerIter;
            };
            std::vector<Row> rows;
            for (int l = -1; l < layers; ++l) { // −1: the whole network
                tb::num::Mlp net = start;
                auto f = tb::bld::makeObjective(net, xt, train.y, rho);
                const int first = l < 0 ? 0 : l, last = l < 0 ? layers - 1 : l;
                f->selectLayers(first, last);
                const Eigen::VectorXd w0 = f->blockWeights();
                Eigen::VectorXd g;
                Row row;
                row.name = l < 0 ? QStringLiteral("all (full L-BFGS)") : QStringLiteral("layer %1").arg(l);
                row.weights = double(w0.size());
                row.eval = timeIt(reps, [&] { f->evaluate(w0, g); });
                // The reference pass: the slice of layers first … L−1 on its cached input.
                const tb::num::Mlp tail = start.slice(first, layers - 1);
                Eigen::MatrixXd inputT;
                if (first == 0)
                    inputT = xt;
                else
                    inputT = start.slice(0, first - 1).predict(train.x).transpose();
                tb::train::BatchGradient bg(tail, tb::num::MlpLoss::SquaredError, inputT, train.y, n);
                std::vector<Eigen::MatrixXd> grads = tail.zeroGradients();
                row.pass = timeIt(reps, [&] { bg.gradient(tail, nullptr, 0, n, grads); });
                // L-BFGS iterations from the start point (the same every repetition).
                long long evals = 0;
                int its = 0;
                row.iter = timeIt(std::max(3, reps / 4),
                                  [&] {
                                      Eigen::VectorXd w = w0;
                                      const auto rep = driver.minimise(*f, w);
                                      evals = rep.evaluations;
                                      its = std::max(1, rep.iterations);
                                  }) /
                           its;
                row.evalsPerIter = double(evals - 1) / its; // the first evaluation is the start point
                rows.push_back(row);
            }
            const double fullIter = rows.front().iter;
            for (const Row& r : rows)
                std::printf("| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f |\n",
                            qPrintable(r.name), r.weights, 1e3 * r.eval, 1e3 * r.pass, r.eval / r.pass,
                            1e3 * r.iter, r.evalsPerIter, r.iter / r.pass, r.iter / fullIter);
        });
        return 0;
    });
}
