#include "Rng.h"

#include <trainbench/Seeds.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <numbers>
#include <utility>

namespace tb::data {

Rng::Rng(std::uint64_t seed, std::uint64_t stream) : m_engine(tb::deriveSeed(seed, stream)) {}

double Rng::normal()
{
    if (m_hasCached) {
        m_hasCached = false;
        return m_cached;
    }
    // u1 in (0, 1] so that log(u1) is finite.
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 2.0 * std::numbers::pi * u2;
    m_cached = r * std::sin(a);
    m_hasCached = true;
    return r * std::cos(a);
}

std::uint64_t Rng::below(std::uint64_t n)
{
    // Rejection from the largest multiple of n below 2^64.
    const std::uint64_t limit = (~std::uint64_t(0)) - (~std::uint64_t(0)) % n;
    std::uint64_t v;
    do {
        v = next();
    } while (v >= limit);
    return v % n;
}

void Rng::shuffle(std::vector<Eigen::Index>& v)
{
    for (std::size_t i = v.size(); i > 1; --i) {
        const auto j = std::size_t(below(i));
        std::swap(v[i - 1], v[j]);
    }
}

std::vector<Eigen::Index> Rng::sampleIndices(Eigen::Index n, Eigen::Index m)
{
    std::vector<Eigen::Index> all(std::size_t(std::max<Eigen::Index>(n, 0)));
    std::iota(all.begin(), all.end(), Eigen::Index(0));
    m = std::clamp<Eigen::Index>(m, 0, n);
    // Partial Fisher–Yates: the first m slots become a uniform random m-subset.
    for (std::size_t i = 0; i < std::size_t(m); ++i) {
        const auto j = i + std::size_t(below(all.size() - i));
        std::swap(all[i], all[j]);
    }
    all.resize(std::size_t(m));
    std::sort(all.begin(), all.end());
    return all;
}

} // namespace tb::data
