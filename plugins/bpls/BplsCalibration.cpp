#include "BplsCalibration.h"

#include <Eigen/Core>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <utility>

namespace tb::bpls {
namespace {

template <typename Scalar>
double measure(int workers)
{
    using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
    constexpr Eigen::Index depth = 1024, width = 256;
    std::vector<Matrix> a(static_cast<std::size_t>(workers)), c(static_cast<std::size_t>(workers));
    for (auto& m : a)
        m = Matrix::Constant(depth, width, Scalar(0.5)); // GEMM speed does not depend on the values
    double best = 0;
    for (int rep = 0; rep < 3; ++rep) { // best of 3: the first run also warms caches and pages
        const auto t0 = std::chrono::steady_clock::now();
        tbb::parallel_for(0, workers, [&](int i) { c[std::size_t(i)].noalias() = a[std::size_t(i)].transpose() * a[std::size_t(i)]; });
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s > 0)
            best = std::max(best, double(workers) * 2.0 * double(depth) * double(width) * double(width) / s);
    }
    return best;
}

} // namespace

double BplsCalibration::rate(bool floatPrecision)
{
    static std::mutex mutex;
    static std::map<std::pair<bool, int>, double> cache;
    const int workers = std::max(1, tbb::this_task_arena::max_concurrency());
    {
        std::lock_guard<std::mutex> lock(mutex);
        const auto it = cache.find({floatPrecision, workers});
        if (it != cache.end())
            return it->second;
    }
    const double r = floatPrecision ? measure<float>(workers) : measure<double>(workers);
    std::lock_guard<std::mutex> lock(mutex);
    cache[{floatPrecision, workers}] = r;
    return r;
}

} // namespace tb::bpls
