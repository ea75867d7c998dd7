// Gram/solve benchmark of core/numerics on a Fashion-MNIST-sized problem (60000 × 785, 10
// right-hand sides), against the machine's GEMM throughput measured in the same run.
//
//   build/bin/gram_solve [rows=60000] [cols=785] [threads=all] [repeats=5]
//
// Reference: every thread of the arena runs Eigen's GEMM on its own 1024³ product at once;
// the sum of their rates is what this machine's cores can do with Eigen kernels. The Gram
// step's useful work is a symmetric rank-n update: n·d·(d+1) flops (lower triangle).
#include <LeastSquares.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <thread>
#include <vector>

namespace {
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <class F>
double bestOf(int repeats, F&& f)
{
    double best = 1e300;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = Clock::now();
        f();
        best = std::min(best, seconds(t0));
    }
    return best;
}
} // namespace

int main(int argc, char** argv)
{
    const Eigen::Index n = argc > 1 ? std::atol(argv[1]) : 60000;
    const Eigen::Index d = argc > 2 ? std::atol(argv[2]) : 785;
    const int threads = argc > 3 && std::atoi(argv[3]) > 0 ? std::atoi(argv[3]) : int(std::thread::hardware_concurrency());
    const int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
    const Eigen::Index k = 10;

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

    // Machine reference: `threads` independent 1024³ GEMMs at once.
    const Eigen::Index m = 1024;
    std::vector<Eigen::MatrixXd> x(threads, Eigen::MatrixXd::Random(m, m)), y(threads, Eigen::MatrixXd::Random(m, m)),
        z(threads, Eigen::MatrixXd(m, m));
    const double gemmT = bestOf(repeats, [&] {
        arena.execute([&] {
            tbb::parallel_for(0, threads, [&](int t) { z[t].noalias() = x[t] * y[t]; }, tbb::simple_partitioner());
        });
    });
    const double gemmRate = threads * 2.0 * double(m) * m * m / gemmT / 1e9;

    // Eigen's own product AᵀA (full, single call; Eigen's threading is off in this build).
    Eigen::MatrixXd full(d, d);
    const double eigenT = bestOf(std::max(1, repeats / 2), [&] { full.noalias() = a.transpose() * a; });
    const double eigenRate = 2.0 * double(n) * d * d / eigenT / 1e9;

    Eigen::MatrixXd g, c;
    const double gramT = bestOf(repeats, [&] { arena.execute([&] { tb::num::gramAndCross(a, b, g, c); }); });
    const double gramFlops = double(n) * d * (d + 1) + 2.0 * double(n) * d * k;
    const double gramRate = gramFlops / gramT / 1e9;

    tb::num::SolveReport rep;
    tb::num::LeastSquaresOptions opt;
    opt.relativeRidge = 1e-8;
    Eigen::MatrixXd w;
    const double solveT = bestOf(repeats, [&] { w = tb::num::solveNormalEquations(g, c, opt, &rep); });

    std::printf("problem          %ld x %ld, %ld right-hand sides, %d threads\n", long(n), long(d), long(k), threads);
    std::printf("GEMM reference   %8.1f GFLOP/s  (%d x 1024^3 Eigen GEMM at once, best of %d)\n", gemmRate, threads, repeats);
    std::printf("Eigen A^T*A      %8.1f GFLOP/s  %7.3f s  (one thread, full product)\n", eigenRate, eigenT);
    std::printf("Gram + A^T*B     %8.1f GFLOP/s  %7.3f s  = %.0f %% of GEMM reference\n", gramRate, gramT,
                100.0 * gramRate / gemmRate);
    std::printf("solve            %8.3f s  (%s)\n", solveT, rep.summary().c_str());
    return 0;
}
