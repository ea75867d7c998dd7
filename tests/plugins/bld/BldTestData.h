// Small regression problems shared by the bld plugin's tests.
#pragma once

#include <bld/BldConfig.h>

#include <Eigen/Core>
#include <QVariantMap>
#include <random>

namespace bldtest {

// Uniform [0, 1) inputs and the outputs of a random sigmoid teacher network (scaled into
// [0, 1] like the paper's targets), plus a little uniform noise: a problem a small network
// can fit but not exactly.
struct Problem {
    Eigen::MatrixXd x, y;
};

inline Problem teacher(Eigen::Index n, Eigen::Index d, Eigen::Index k, unsigned seed)
{
    std::mt19937_64 gen(seed);
    auto u = [&] { return double(gen() >> 11) * 0x1.0p-53; };
    Problem p;
    p.x.resize(n, d);
    for (Eigen::Index i = 0; i < p.x.size(); ++i)
        p.x.data()[i] = u();
    Eigen::MatrixXd w1(d + 1, 6), w2(6, k);
    for (Eigen::Index i = 0; i < w1.size(); ++i)
        w1.data()[i] = 4 * u() - 2;
    for (Eigen::Index i = 0; i < w2.size(); ++i)
        w2.data()[i] = 2 * u() - 1;
    Eigen::MatrixXd a(n, d + 1);
    a << p.x, Eigen::VectorXd::Ones(n);
    const Eigen::MatrixXd h = (1.0 + (-(a * w1)).array().exp()).inverse().matrix();
    p.y = h * w2;
    for (Eigen::Index i = 0; i < p.y.size(); ++i)
        p.y.data()[i] += 0.02 * (u() - 0.5);
    return p;
}

// Parameters as the plugin receives them: the schema's defaults completed with @p over.
inline tb::bld::BldConfig config(tb::bld::Algorithm a, const QVariantMap& over = {})
{
    QString err;
    const auto p = tb::bld::BldConfig::schema(a).normalise(over, &err);
    if (!p)
        qFatal("%s", qPrintable(err));
    return tb::bld::BldConfig::fromParams(a, *p);
}

} // namespace bldtest
