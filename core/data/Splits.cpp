#include "Splits.h"

#include "Rng.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace tb::data {

DatasetPair splitTrainTest(const Dataset& data, double testFraction, std::uint64_t seed)
{
    if (!(testFraction > 0.0 && testFraction < 1.0))
        throw std::invalid_argument("test fraction must lie in (0, 1), got " + std::to_string(testFraction));
    const Eigen::Index n = data.rows();
    if (n < 2)
        throw std::invalid_argument("cannot split " + std::to_string(n) + " row(s) into train and test");
    const Eigen::Index nTest =
        std::clamp<Eigen::Index>(Eigen::Index(std::llround(double(n) * testFraction)), 1, n - 1);
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index(0));
    Rng rng(seed, Rng::Split);
    rng.shuffle(order);
    std::vector<Eigen::Index> test(order.begin(), order.begin() + nTest);
    std::vector<Eigen::Index> train(order.begin() + nTest, order.end());
    std::sort(test.begin(), test.end());
    std::sort(train.begin(), train.end());
    DatasetPair p{data.selectRows(train), data.selectRows(test), {}, {}};
    p.train.description = data.description + QStringLiteral(" [train %1 of %2]").arg(train.size()).arg(n);
    p.test.description = data.description + QStringLiteral(" [test %1 of %2]").arg(test.size()).arg(n);
    return p;
}

Dataset holdOutValidation(Dataset& train, double fraction, std::uint64_t seed)
{
    const Eigen::Index n = train.rows();
    const auto nVal = Eigen::Index(std::llround(double(n) * fraction));
    if (nVal < 1)
        throw std::invalid_argument(std::to_string(fraction) + " of the " + std::to_string(n) +
                                    " training rows holds out no row for validation");
    if (nVal >= n)
        throw std::invalid_argument(std::to_string(fraction) + " of the " + std::to_string(n) +
                                    " training rows holds out " + std::to_string(nVal) + " and leaves none to train on");
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index(0));
    Rng rng(seed, Rng::Validation);
    rng.shuffle(order);
    std::vector<Eigen::Index> val(order.begin(), order.begin() + nVal);
    std::vector<Eigen::Index> rest(order.begin() + nVal, order.end());
    std::sort(val.begin(), val.end());
    std::sort(rest.begin(), rest.end());
    Dataset validation = train.selectRows(val);
    validation.description = train.description + QStringLiteral(" [validation %1 of %2]").arg(val.size()).arg(n);
    const QString description = train.description + QStringLiteral(" [train %1 of %2]").arg(rest.size()).arg(n);
    train = train.selectRows(rest);
    train.description = description;
    return validation;
}

Dataset subsample(const Dataset& data, Eigen::Index n, std::uint64_t seed)
{
    if (n < 1 || n > data.rows())
        throw std::invalid_argument("subsample size " + std::to_string(n) + " outside 1.." +
                                    std::to_string(data.rows()));
    Rng rng(seed, Rng::TrainSubset);
    Dataset out = data.selectRows(rng.sampleIndices(data.rows(), n));
    out.description = data.description + QStringLiteral(" [random %1 of %2]").arg(n).arg(data.rows());
    return out;
}

} // namespace tb::data
