#include "SparseTextGenerator.h"

#include "Rng.h"

#include <trainbench/SparseMatrix.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace tb::data {

std::uint64_t SparseTextGenerator::memoryNeed(const Spec& spec)
{
    // Expected non-zeros, with room for long rows; the entries twice (working vectors, then the
    // matrix), the Zipf table, the planted topics and the one-hot targets.
    const double nnz = double(spec.rows) * spec.wordsPerRow * 1.2;
    const double bytes = 2 * nnz * (sizeof(double) + sizeof(int)) + double(spec.features) * (2 * sizeof(double) + sizeof(int)) +
                         double(spec.rows) * (double(spec.classes) + 1) * sizeof(double);
    return bytes >= 1.8e19 ? UINT64_MAX : std::uint64_t(bytes);
}

Dataset SparseTextGenerator::generate(const Spec& s)
{
    if (s.rows < 1 || s.features < 1 || s.features > SparseMaxIndex || !(s.wordsPerRow > 0) ||
        !std::isfinite(s.wordsPerRow) || s.classes < 2 || !(s.labelNoise >= 0) || !std::isfinite(s.labelNoise))
        throw std::invalid_argument("SparseTextGenerator: rows ≥ 1, 1 ≤ features ≤ 2^31 − 1, words per row > 0, "
                                    "classes ≥ 2, label noise ≥ 0 (got " + std::to_string(s.rows) + ", " +
                                    std::to_string(s.features) + ", " + std::to_string(s.wordsPerRow) + ", " +
                                    std::to_string(s.classes) + ", " + std::to_string(s.labelNoise) + ")");
    const Eigen::Index d = s.features;
    const int k = s.classes;
    // Zipf's law over the words, as a cumulative table for drawing by bisection.
    std::vector<double> cdf(std::size_t(d), 0.0);
    double total = 0;
    for (Eigen::Index j = 0; j < d; ++j) {
        total += std::pow(double(j) + 10.0, -1.1);
        cdf[std::size_t(j)] = total;
    }
    std::vector<double> idf(static_cast<std::size_t>(d));
    for (Eigen::Index j = 0; j < d; ++j) {
        const double p = std::pow(double(j) + 10.0, -1.1) / total;
        idf[std::size_t(j)] = std::max(0.1, -std::log(std::min(1.0, p * s.wordsPerRow)));
    }
    // Planted topics: word j votes for one class with weight w (or for none).
    Rng topics(s.seed, Rng::Generate);
    std::vector<int> topic(std::size_t(d), -1);
    std::vector<double> weight(std::size_t(d), 0.0);
    for (Eigen::Index j = 0; j < d; ++j)
        if (topics.uniform() < 0.3) {
            topic[std::size_t(j)] = int(topics.below(std::uint64_t(k)));
            weight[std::size_t(j)] = 5.0 * topics.normal(); // scores of a few units: Gumbel noise 0.3 flips a few labels
        }

    Rng rows(s.seed, Rng::Noise);
    std::vector<int> cols;
    std::vector<double> vals;
    std::vector<int> rowStart{0};
    cols.reserve(std::size_t(double(s.rows) * s.wordsPerRow * 1.1));
    vals.reserve(cols.capacity());
    rowStart.reserve(std::size_t(s.rows) + 1);
    Dataset out;
    out.task = tb::Task::Classification;
    out.labels.resize(std::size_t(s.rows));
    std::vector<int> words;
    std::vector<double> score(static_cast<std::size_t>(k));
    const double sigma = 0.5; // log-normal spread of row lengths; its mean is wordsPerRow
    for (Eigen::Index i = 0; i < s.rows; ++i) {
        const double length = s.wordsPerRow * std::exp(sigma * rows.normal() - 0.5 * sigma * sigma);
        const auto drawn = std::max<Eigen::Index>(1, Eigen::Index(std::llround(length)));
        words.clear();
        for (Eigen::Index t = 0; t < drawn; ++t) {
            const double u = rows.uniform() * total;
            const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
            words.push_back(int(std::min<std::ptrdiff_t>(it - cdf.begin(), std::ptrdiff_t(d) - 1)));
        }
        std::sort(words.begin(), words.end());
        const std::size_t begin = cols.size();
        double norm2 = 0;
        std::fill(score.begin(), score.end(), 0.0);
        for (std::size_t a = 0; a < words.size();) {
            std::size_t b = a;
            while (b < words.size() && words[b] == words[a])
                ++b;
            const int j = words[a];
            const double v = (1.0 + std::log(double(b - a))) * idf[std::size_t(j)];
            cols.push_back(j);
            vals.push_back(v);
            norm2 += v * v;
            a = b;
        }
        const double inv = 1.0 / std::sqrt(norm2);
        for (std::size_t e = begin; e < cols.size(); ++e) {
            vals[e] *= inv;
            if (const int c = topic[std::size_t(cols[e])]; c >= 0)
                score[std::size_t(c)] += weight[std::size_t(cols[e])] * vals[e];
        }
        int best = 0;
        double bestScore = -HUGE_VAL;
        for (int c = 0; c < k; ++c) {
            // Gumbel noise: arg-max of score + noise is a softmax draw with temperature labelNoise.
            const double g = s.labelNoise > 0 ? -s.labelNoise * std::log(-std::log(std::max(rows.uniform(), 1e-300))) : 0.0;
            if (score[std::size_t(c)] + g > bestScore) {
                bestScore = score[std::size_t(c)] + g;
                best = c;
            }
        }
        out.labels[std::size_t(i)] = best;
        if (cols.size() > std::size_t(SparseMaxIndex))
            throw std::invalid_argument("SparseTextGenerator: more than 2^31 − 1 non-zeros");
        rowStart.push_back(int(cols.size()));
    }
    out.x.resize(s.rows, 0);
    out.xSparse.resize(s.rows, d);
    out.xSparse.resizeNonZeros(Eigen::Index(cols.size()));
    std::copy(rowStart.begin(), rowStart.end(), out.xSparse.outerIndexPtr());
    std::copy(cols.begin(), cols.end(), out.xSparse.innerIndexPtr());
    std::copy(vals.begin(), vals.end(), out.xSparse.valuePtr());
    for (int c = 0; c < k; ++c)
        out.classNames << QStringLiteral("topic %1").arg(c + 1);
    out.setOneHotFromLabels();
    out.description = QStringLiteral("sparse_text %1×%2 (%3 non-zeros, %4 classes)")
                          .arg(s.rows)
                          .arg(d)
                          .arg(out.xSparse.nonZeros())
                          .arg(k);
    return out;
}

} // namespace tb::data
