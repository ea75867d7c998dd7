#include "LabelledSets.h"

#include "OneHot.h"

#include <algorithm>
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

DatasetView SparseLabelledSet::view() const
{
    DatasetView v(none, y, task);
    v.xSparse = &x;
    return v;
}

SparseLabelledSet toSparse(const LabelledSet& s)
{
    SparseLabelledSet out;
    out.x = s.x.sparseView();
    out.x.makeCompressed();
    out.y = s.y;
    out.task = s.task;
    out.none.resize(s.x.rows(), 0);
    return out;
}

LabelledSet plantedDense(Eigen::Index n, int d, double density, int classes, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    const int outputs = classes >= 2 ? classes : 2;
    Eigen::MatrixXd w(d, outputs);
    for (Eigen::Index i = 0; i < w.size(); ++i)
        w.data()[i] = uniformPm1(gen);
    LabelledSet s;
    s.x = Eigen::MatrixXd::Zero(n, d);
    for (Eigen::Index i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j)
            if (0.5 * (uniformPm1(gen) + 1.0) < density)
                s.x(i, j) = uniformPm1(gen);
    const Eigen::MatrixXd f = s.x * w;
    if (classes >= 2) {
        std::vector<int> labels(static_cast<std::size_t>(n));
        for (Eigen::Index i = 0; i < n; ++i)
            f.row(i).maxCoeff(&labels[std::size_t(i)]);
        s.y = oneHot(labels, classes);
        s.task = Task::Classification;
    } else {
        s.y = f;
        for (Eigen::Index i = 0; i < s.y.size(); ++i)
            s.y.data()[i] += 0.05 * uniformPm1(gen);
        s.task = Task::Regression;
    }
    return s;
}

DenseSparsePair denseSparsePair(bool regression, std::uint64_t seed)
{
    DenseSparsePair p;
    p.dense = plantedDense(300, 50, 0.2, regression ? 0 : 3, seed);
    p.probe = plantedDense(200, 50, 0.2, regression ? 0 : 3, seed + 1);
    p.sparse = toSparse(p.dense);
    p.probeSparse = toSparse(p.probe);
    return p;
}

SparseLabelledSet plantedSparse(Eigen::Index n, int d, int perRow, std::uint64_t weightSeed,
                                std::uint64_t rowSeed)
{
    constexpr int common = 500;
    std::mt19937_64 weights(weightSeed);
    std::vector<double> w(common);
    for (double& v : w)
        v = uniformPm1(weights);
    std::mt19937_64 gen(rowSeed);
    const int half = perRow / 2;
    auto draw = [&](int lo, int hi) { return lo + int(gen() % std::uint64_t(hi - lo)); };
    std::vector<Eigen::Triplet<double, int>> entries;
    entries.reserve(std::size_t(n) * std::size_t(perRow));
    std::vector<int> labels(static_cast<std::size_t>(n)), columns;
    for (Eigen::Index i = 0; i < n; ++i) {
        columns.clear();
        while (int(columns.size()) < perRow) {
            const int j = int(columns.size()) < half ? draw(0, common) : draw(common, d);
            if (std::find(columns.begin(), columns.end(), j) == columns.end())
                columns.push_back(j);
        }
        double score = 0;
        for (const int j : columns) {
            const double v = 0.75 + 0.5 * uniformPm1(gen);
            entries.emplace_back(int(i), j, v);
            if (j < common)
                score += w[std::size_t(j)] * v;
        }
        labels[std::size_t(i)] = score > 0 ? 1 : 0;
    }
    SparseLabelledSet s;
    s.x.resize(n, d);
    s.x.setFromTriplets(entries.begin(), entries.end());
    s.x.makeCompressed();
    s.y = oneHot(labels, 2);
    s.none.resize(n, 0);
    return s;
}

} // namespace tb::testsupport
