#include "Generators.h"

#include "Rng.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace tb::data {
namespace {

constexpr double pi = std::numbers::pi;

void requireNoise(double noise, const char* name)
{
    if (!(noise >= 0) || !std::isfinite(noise))
        throw std::invalid_argument(std::string(name) + " must be a finite number ≥ 0, got " + std::to_string(noise));
}

void requireSamples(Eigen::Index n, Eigen::Index minimum)
{
    if (n < minimum)
        throw std::invalid_argument("samples must be ≥ " + std::to_string(minimum) + ", got " + std::to_string(n));
}

/// Rows per class: balanced, the first classes take the remainder.
Eigen::Index classSize(Eigen::Index n, Eigen::Index classes, Eigen::Index c)
{
    return n / classes + (c < n % classes ? 1 : 0);
}

/// A 2-D two-class set from per-class point functions; noise is added, then rows shuffled so
/// that a prefix of the set is not all one class.
template <typename PointFn>
Dataset twoClassSet(Eigen::Index n, double noise, std::uint64_t seed, const QStringList& classNames,
                    const QString& name, PointFn point)
{
    Rng rng(seed, Rng::Generate);
    Dataset d;
    d.task = tb::Task::Classification;
    d.classNames = classNames;
    d.featureNames = {QStringLiteral("x1"), QStringLiteral("x2")};
    Eigen::MatrixXd x(n, 2);
    std::vector<int> labels(static_cast<std::size_t>(n));
    Eigen::Index row = 0;
    for (int c = 0; c < 2; ++c) {
        const Eigen::Index m = classSize(n, 2, c);
        for (Eigen::Index i = 0; i < m; ++i, ++row) {
            const Eigen::RowVector2d p = point(c, i, m, rng);
            x(row, 0) = p(0);
            x(row, 1) = p(1);
            labels[std::size_t(row)] = c;
        }
    }
    if (noise > 0)
        for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index j = 0; j < 2; ++j)
                x(i, j) += noise * rng.normal();
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i)
        order[std::size_t(i)] = i;
    rng.shuffle(order);
    d.x.resize(n, 2);
    d.labels.resize(std::size_t(n));
    for (Eigen::Index i = 0; i < n; ++i) {
        d.x.row(i) = x.row(order[std::size_t(i)]);
        d.labels[std::size_t(i)] = labels[std::size_t(order[std::size_t(i)])];
    }
    d.setOneHotFromLabels();
    d.description = QStringLiteral("%1 %2 samples, noise %3").arg(name).arg(n).arg(noise);
    return d;
}

} // namespace

Eigen::RowVector2d Generators::bplsToyTargets(BplsToyFunction f, double x)
{
    if (f == BplsToyFunction::Linear)
        return {-x / 3.0 + 2.0, 2.0 * x - 1.0};
    return {1.0 / (1.0 + std::exp(std::log10(std::pow(x, -1.5)))), 1.0 / (1.0 + std::exp(std::pow(x, -0.25)))};
}

DatasetPair Generators::bplsToy(BplsToyFunction f, double sigma, std::uint64_t seed)
{
    requireNoise(sigma, "sigma");
    const QString fname = f == BplsToyFunction::Linear ? QStringLiteral("linear") : QStringLiteral("nonlinear");
    auto make = [&](double firstX, const QString& part) {
        Dataset d;
        d.task = tb::Task::Regression;
        d.featureNames = {QStringLiteral("x")};
        d.x.resize(5, 1);
        d.y.resize(5, 2);
        for (Eigen::Index i = 0; i < 5; ++i) {
            d.x(i, 0) = firstX + 2.0 * double(i);
            d.y.row(i) = bplsToyTargets(f, d.x(i, 0));
        }
        d.description = QStringLiteral("BPLS toy %1 %2, σ = %3").arg(fname, part).arg(sigma);
        return d;
    };
    DatasetPair p{make(1.0, QStringLiteral("train")), make(2.0, QStringLiteral("test")), {}, {}};
    if (sigma > 0) {
        Rng rng(seed, Rng::Noise);
        for (Eigen::Index i = 0; i < p.train.y.rows(); ++i)
            for (Eigen::Index j = 0; j < p.train.y.cols(); ++j)
                p.train.y(i, j) += sigma * rng.normal();
    }
    p.test.description = QStringLiteral("BPLS toy %1 test (clean)").arg(fname);
    return p;
}

Dataset Generators::moons(Eigen::Index samples, double noise, std::uint64_t seed)
{
    requireSamples(samples, 2);
    requireNoise(noise, "noise");
    return twoClassSet(samples, noise, seed, {QStringLiteral("upper"), QStringLiteral("lower")},
                       QStringLiteral("moons"), [](int c, Eigen::Index i, Eigen::Index m, Rng&) {
                           const double t = pi * (double(i) + 0.5) / double(m);
                           return c == 0 ? Eigen::RowVector2d(std::cos(t), std::sin(t))
                                         : Eigen::RowVector2d(1.0 - std::cos(t), 0.5 - std::sin(t));
                       });
}

Dataset Generators::circles(Eigen::Index samples, double noise, std::uint64_t seed, double factor)
{
    requireSamples(samples, 2);
    requireNoise(noise, "noise");
    if (!(factor > 0 && factor < 1))
        throw std::invalid_argument("factor must lie in (0, 1), got " + std::to_string(factor));
    return twoClassSet(samples, noise, seed, {QStringLiteral("outer"), QStringLiteral("inner")},
                       QStringLiteral("circles"), [factor](int c, Eigen::Index i, Eigen::Index m, Rng&) {
                           const double a = 2.0 * pi * double(i) / double(m);
                           const double r = c == 0 ? 1.0 : factor;
                           return Eigen::RowVector2d(r * std::cos(a), r * std::sin(a));
                       });
}

Dataset Generators::spirals(Eigen::Index samples, double noise, std::uint64_t seed)
{
    requireSamples(samples, 2);
    requireNoise(noise, "noise");
    return twoClassSet(samples, noise, seed, {QStringLiteral("arm A"), QStringLiteral("arm B")},
                       QStringLiteral("spirals"), [](int c, Eigen::Index i, Eigen::Index m, Rng&) {
                           const double t = (double(i) + 0.5) / double(m);
                           const double a = 3.0 * pi * t + pi * c;
                           return Eigen::RowVector2d(t * std::cos(a), t * std::sin(a));
                       });
}

Dataset Generators::xorQuadrants(Eigen::Index samples, double noise, std::uint64_t seed)
{
    requireSamples(samples, 2);
    requireNoise(noise, "noise");
    return twoClassSet(samples, noise, seed, {QStringLiteral("same sign"), QStringLiteral("opposite sign")},
                       QStringLiteral("xor"), [](int c, Eigen::Index i, Eigen::Index, Rng& rng) {
                           // Alternate the two quadrants of the class so both are equally full.
                           const double s1 = (i % 2 == 0) ? 1.0 : -1.0;
                           const double s2 = c == 0 ? s1 : -s1;
                           const double u1 = rng.uniform();
                           const double u2 = rng.uniform();
                           return Eigen::RowVector2d(s1 * u1, s2 * u2);
                       });
}

Dataset Generators::friedman1(Eigen::Index samples, Eigen::Index features, double noise, std::uint64_t seed)
{
    requireSamples(samples, 1);
    requireNoise(noise, "noise");
    if (features < 5)
        throw std::invalid_argument("features must be ≥ 5, got " + std::to_string(features));
    Rng rng(seed, Rng::Generate);
    Dataset d;
    d.task = tb::Task::Regression;
    d.x.resize(samples, features);
    d.y.resize(samples, 1);
    for (Eigen::Index i = 0; i < samples; ++i) {
        for (Eigen::Index j = 0; j < features; ++j)
            d.x(i, j) = rng.uniform();
        const auto x = d.x.row(i);
        d.y(i, 0) = 10.0 * std::sin(pi * x(0) * x(1)) + 20.0 * (x(2) - 0.5) * (x(2) - 0.5) + 10.0 * x(3) +
                    5.0 * x(4);
    }
    if (noise > 0)
        for (Eigen::Index i = 0; i < samples; ++i)
            d.y(i, 0) += noise * rng.normal();
    for (Eigen::Index j = 0; j < features; ++j)
        d.featureNames << QStringLiteral("x%1").arg(j + 1);
    d.description = QStringLiteral("friedman1 %1×%2, noise %3").arg(samples).arg(features).arg(noise);
    return d;
}

} // namespace tb::data
