#include "LabelledSets.h"

#include "OneHot.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace tb::testsupport {

double uniformPm1(std::mt19937_64& gen)
{
    return 2.0 * double(gen() >> 11) * 0x1.0p-53 - 1.0;
}

LabelledSet separable(Eigen::Index n, int d, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    const double u0 = std::cos(M_PI / 6), u1 = std::sin(M_PI / 6);
    LabelledSet s;
    s.x.resize(n, d);
    std::vector<int> labels;
    for (Eigen::Index i = 0; i < n;) {
        for (int j = 0; j < d; ++j)
            s.x(i, j) = uniformPm1(gen);
        const double side = u0 * s.x(i, 0) + u1 * s.x(i, 1);
        if (std::abs(side) < 0.2)
            continue;
        labels.push_back(side > 0 ? 1 : 0);
        ++i;
    }
    s.y = oneHot(labels, 2);
    return s;
}

LabelledSet blobs(int perClass, int k, std::uint64_t seed, int columns)
{
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> nd(0.0, 0.3);
    LabelledSet s;
    s.x.resize(Eigen::Index(perClass) * k, 2);
    std::vector<int> labels;
    for (int i = 0; i < perClass * k; ++i) {
        const int c = i % k;
        s.x(i, 0) = 2 * std::cos(2 * M_PI * c / k) + nd(gen);
        s.x(i, 1) = 2 * std::sin(2 * M_PI * c / k) + nd(gen);
        labels.push_back(c);
    }
    s.y = oneHot(labels, columns > 0 ? columns : k);
    return s;
}

double accuracy(const Eigen::MatrixXd& scores, const Eigen::MatrixXd& y)
{
    Eigen::Index hits = 0;
    for (Eigen::Index i = 0; i < y.rows(); ++i) {
        Eigen::Index p = 0, t = 0;
        scores.row(i).maxCoeff(&p);
        y.row(i).maxCoeff(&t);
        hits += p == t;
    }
    return double(hits) / double(y.rows());
}

bool writeLibsvm(const LabelledSet& s, const QString& path)
{
    FILE* f = std::fopen(path.toLocal8Bit().constData(), "w");
    if (!f)
        return false;
    for (Eigen::Index i = 0; i < s.x.rows(); ++i) {
        Eigen::Index label = 0;
        s.y.row(i).maxCoeff(&label);
        std::fprintf(f, "%d", int(label));
        for (Eigen::Index j = 0; j < s.x.cols(); ++j)
            if (s.x(i, j) != 0.0)
                std::fprintf(f, " %d:%.17g", int(j + 1), s.x(i, j));
        std::fprintf(f, "\n");
    }
    return std::fclose(f) == 0;
}

} // namespace tb::testsupport
