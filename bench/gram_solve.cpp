// Gram/solve benchmark of core/numerics on a Fashion-MNIST-sized problem (60000 × 785, 10
// right-hand sides), against the machine's GEMM throughput measured in the same run.
//
//   gram_solve [--rows 60000] [--cols 785] [--threads 0 (all)] [--repeats 5] [--rhs 10] [--quick] [--help]
//
// Reference: every thread of the arena runs Eigen's GEMM on its own 1024³ product at once;
// the sum of their rates is what this machine's cores can do with Eigen kernels. Reference
// samples are taken before and after every Gram timing (ref, Gram, ref, …, ref): the best
// Gram against the best reference estimates the quiet machine; each Gram against the better
// of the two references around it (the "paired" ratios) shows what other jobs did to it.
// One 1024³ product alone gives the one-thread rate, the yardstick of Eigen's own
// (one-thread) AᵀA.
// Useful flops (what the ratios count):
//   Gram AᵀA      n·d·(d+1)        symmetric rank-n update, lower triangle
//   cross AᵀB     2·n·d·k
//   solve         d³/3 + 2·d²·k    Cholesky and two triangular solves per right-hand side
#include <support/BenchArguments.h>
#include <support/BenchMain.h>
#include <support/Stopwatch.h>

#include <numerics/LeastSquares.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstdio>
#include <random>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <thread>
#include <vector>

namespace {

template <class F> double bestOf(int repeats, F&& f)
{
    double best = 1e300;
    for (int i = 0; i < repeats; ++i) {
        const tb::bench::Stopwatch t;
        f();
        best = std::min(best, t.seconds());
    }
    return best;
}

} // namespace

int main(int argc, char** argv)
{
    using tb::bench::BenchArguments;
    BenchArguments args(
        "gram_solve",
        "Times the least-squares step of core/numerics (Gram AtA with the cross product AtB, then "
        "the Cholesky solve) on a random rows x cols matrix, and reports its GFLOP/s as a share of "
        "the machine's Eigen GEMM rate measured in the same run (threads x concurrent 1024^3 "
        "products, sampled before and after every Gram timing). Timings are the best of --repeats.");
    args.add("rows", "N", "rows of A", "60000", "10000");
    args.add("cols", "D", "columns of A", "785");
    args.add(BenchArguments::Common::Threads, "0", {}, "0: every core");
    args.add(BenchArguments::Common::Repeats, "5", "2", "the best counts");
    args.add("rhs", "K", "right-hand sides (columns of B)", "10");
    return tb::bench::benchMain(argc, argv, args, {}, [&] {
        const Eigen::Index n = args.integer("rows", 1, 100000000);
        const Eigen::Index d = args.integer("cols", 1, 100000);
        const int hw = int(std::max(1u, std::thread::hardware_concurrency()));
        const long threadArg = long(args.integer("threads", 0, 4096));
        const int threads = threadArg > 0 ? int(threadArg) : hw;
        const int repeats = int(args.integer("repeats", 1, 1000));
        const Eigen::Index k = args.integer("rhs", 1, 100000);

        std::mt19937_64 gen(1);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        Eigen::MatrixXd a(n, d), b(n, k);
        for (Eigen::Index j = 0; j < d; ++j)
            for (Eigen::Index i = 0; i < n; ++i)
                a(i, j) = u(gen);
        for (Eigen::Index j = 0; j < k; ++j)
            for (Eigen::Index i = 0; i < n; ++i)
                b(i, j) = u(gen);

        tbb::task_arena arena(threads);

        // Machine reference: `threads` independent 1024³ GEMMs at once. One sample is the best of
        // 3 such rounds (about 0.1 s).
        const Eigen::Index m = 1024;
        const auto count = std::size_t(threads);
        std::vector<Eigen::MatrixXd> x(count, Eigen::MatrixXd::Random(m, m)),
            y(count, Eigen::MatrixXd::Random(m, m)), z(count, Eigen::MatrixXd(m, m));
        const double gemmFlops = 2.0 * double(m) * double(m) * double(m);
        auto gemmSample = [&] {
            const double t = bestOf(3, [&] {
                arena.execute([&] {
                    tbb::parallel_for(
                        0, threads,
                        [&](int i) { z[std::size_t(i)].noalias() = x[std::size_t(i)] * y[std::size_t(i)]; },
                        tbb::simple_partitioner());
                });
            });
            return threads * gemmFlops / t / 1e9;
        };
        // One thread alone: the yardstick of Eigen's one-thread AᵀA below, and (against the
        // reference) how the machine scales, e.g. when another job holds a core.
        const double gemmOneRate = gemmFlops / bestOf(repeats, [&] { z[0].noalias() = x[0] * y[0]; }) / 1e9;

        // Eigen's own product AᵀA (full, single call; Eigen's threading is off in this build).
        Eigen::MatrixXd full(d, d);
        const double eigenT = bestOf(std::max(1, repeats / 2), [&] { full.noalias() = a.transpose() * a; });
        const double eigenRate = 2.0 * double(n) * double(d) * double(d) / eigenT / 1e9;

        // Gram samples interleaved with reference samples (ref, Gram, ref, Gram, …, ref): on a
        // shared machine the best of each estimates the quiet machine, and each Gram set against
        // the references on either side of it shows what another job's load did to the ratio.
        Eigen::MatrixXd g, c;
        const double gramFlops =
            double(n) * double(d) * double(d + 1) + 2.0 * double(n) * double(d) * double(k);
        arena.execute([&] { tb::num::gramAndCross(a, b, g, c); }); // warm-up: first touch of g, c
        std::vector<double> ref{gemmSample()}, gramRates;
        for (int i = 0; i < repeats; ++i) {
            const tb::bench::Stopwatch t;
            arena.execute([&] { tb::num::gramAndCross(a, b, g, c); });
            gramRates.push_back(gramFlops / t.seconds() / 1e9);
            ref.push_back(gemmSample());
        }
        std::vector<double> paired;
        for (int i = 0; i < repeats; ++i)
            paired.push_back(gramRates[std::size_t(i)] /
                             std::max(ref[std::size_t(i)], ref[std::size_t(i) + 1]));
        std::sort(paired.begin(), paired.end());
        const double gemmRate = *std::max_element(ref.begin(), ref.end());
        const double gemmLow = *std::min_element(ref.begin(), ref.end());
        const double gramRate = *std::max_element(gramRates.begin(), gramRates.end());
        const double gramT = gramFlops / gramRate / 1e9;
        const double pairedMedian = paired[paired.size() / 2];

        tb::num::SolveReport rep;
        tb::num::LeastSquaresOptions opt;
        opt.relativeRidge = 1e-8;
        Eigen::MatrixXd w;
        const double solveT = bestOf(repeats, [&] { w = tb::num::solveNormalEquations(g, c, opt, &rep); });
        const double solveFlops =
            double(d) * double(d) * double(d) / 3.0 + 2.0 * double(d) * double(d) * double(k);
        const double solveRate = solveFlops / solveT / 1e9;
        const double stepRate = (gramFlops + solveFlops) / (gramT + solveT) / 1e9;

        std::printf("problem          %ld x %ld, %ld right-hand sides, %d threads, best of %d\n", long(n),
                    long(d), long(k), threads, repeats);
        std::printf(
            "GEMM reference   %8.1f GFLOP/s  (%d x 1024^3 Eigen GEMM at once; %d samples, lowest %.1f)\n",
            gemmRate, threads, int(ref.size()), gemmLow);
        std::printf("GEMM one thread  %8.1f GFLOP/s  (one 1024^3 Eigen GEMM alone)\n", gemmOneRate);
        std::printf(
            "Eigen A^T*A      %8.1f GFLOP/s  %7.3f s  (one call, one thread, full product) = %.0f %% of one "
            "thread's GEMM\n",
            eigenRate, eigenT, 100.0 * eigenRate / gemmOneRate);
        std::printf(
            "Gram + A^T*B     %8.1f GFLOP/s  %7.3f s  = %.0f %% of GEMM reference (paired with the reference "
            "samples around each: median %.0f %%, range %.0f-%.0f %%)\n",
            gramRate, gramT, 100.0 * gramRate / gemmRate, 100.0 * pairedMedian, 100.0 * paired.front(),
            100.0 * paired.back());
        std::printf("solve            %8.1f GFLOP/s  %7.3f s  (%s)\n", solveRate, solveT,
                    rep.summary().c_str());
        std::printf("Gram/solve step  %8.1f GFLOP/s  %7.3f s  = %.0f %% of GEMM reference\n", stepRate,
                    gramT + solveT, 100.0 * stepRate / gemmRate);
        return 0;
    });
}
