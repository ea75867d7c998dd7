#include "MvGenerator.h"

#include "Rng.h"

#include <stdexcept>
#include <string>

namespace tb::data {

double MvGenerator::target(double x1, double x2, double x4, double x6, bool x7Yes, bool x8Large)
{
    if (x2 > 2)
        return 35.0 - 0.5 * x4;
    if (x4 >= -2 && x4 <= 2)
        return 10.0 - 2.0 * x1;
    if (x7Yes)
        return 3.0 - x1 / x4; // |x4| > 2 here: no division by zero
    if (!x8Large)
        return x6 + x1;
    return x1 / 2.0;
}

Dataset MvGenerator::generate(Eigen::Index rows, std::uint64_t seed)
{
    if (rows < 1 || rows > kMaxRows)
        throw std::invalid_argument("samples must be in [1, " + std::to_string(kMaxRows) + "], got " +
                                    std::to_string(rows));
    Rng rng(seed, Rng::Generate);
    Dataset d;
    d.task = tb::Task::Regression;
    d.x.resize(rows, kInputs);
    d.y.resize(rows, 1);
    for (Eigen::Index i = 0; i < rows; ++i) {
        // The nine draws of a row, always in this order.
        const double x1 = rng.uniform(-5.0, 5.0);
        const double x2 = rng.uniform(-15.0, -10.0);
        const double u3 = rng.uniform();
        const double u4 = rng.uniform();
        const double x5 = rng.uniform(-1.0, 1.0);
        const double e = rng.uniform(0.0, 5.0);
        const double u7 = rng.uniform();
        const double x9 = rng.uniform(100.0, 500.0);
        const double x10 = 1000.0 + double(rng.below(201));

        const int x3 = x1 > 0 ? 1 : (u3 < 0.4 ? 0 : 2); // 0 red, 1 green, 2 brown
        const double x4 = x3 == 1 ? x1 + 2.0 * x2 : (u4 < 0.3 ? x1 / 2.0 : x2 / 2.0);
        const double x6 = x4 * e;
        const bool x7Yes = u7 < 0.3;
        const bool x8Large = !(x5 < 0.5);

        auto r = d.x.row(i);
        r << x1, x2, x3 == 0, x3 == 1, x3 == 2, x4, x5, x6, double(x7Yes), double(x8Large), x9, x10;
        d.y(i, 0) = target(x1, x2, x4, x6, x7Yes, x8Large);
    }
    d.featureNames = {QStringLiteral("x1"),     QStringLiteral("x2"),       QStringLiteral("x3_red"),
                      QStringLiteral("x3_green"), QStringLiteral("x3_brown"), QStringLiteral("x4"),
                      QStringLiteral("x5"),     QStringLiteral("x6"),       QStringLiteral("x7_yes"),
                      QStringLiteral("x8_large"), QStringLiteral("x9"),     QStringLiteral("x10")};
    d.description = QStringLiteral("mv %1×%2").arg(rows).arg(kInputs);
    return d;
}

} // namespace tb::data
