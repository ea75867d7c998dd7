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
    const double bytes = 2 * nnz * (sizeof(double) + sizeof(int)) + double(spec.features) * 2 * sizeof(double) +
                         double(spec.features) * double(spec.classes) * sizeof(int) +
                         double(spec.rows) * (double(spec.classes) + 1) * sizeof(double);
    return bytes >= 1.8e19 ? UINT64_MAX : std::uint64_t(bytes);
}

Dataset SparseTextGenerator::generate(const Spec& s)
{
    if (s.rows < 1 || s.features < 1 || s.features > SparseMaxIndex || !(s.wordsPerRow > 0) ||
        !std::isfinite(s.wordsPerRow) || s.classes < 2 || !(s.labelNoise >= 0 && s.labelNoise <= 1) ||
        !(s.topicShare >= 0 && s.topicShare <= 1))
        throw std::invalid_argument("SparseTextGenerator: rows ≥ 1, 1 ≤ features ≤ 2^31 − 1, words per row > 0, "
                                    "classes ≥ 2, label noise and topic share in [0, 1] (got " + std::to_string(s.rows) +
                                    ", " + std::to_string(s.features) + ", " + std::to_string(s.wordsPerRow) + ", " +
                                    std::to_string(s.classes) + ", " + std::to_string(s.labelNoise) + ", " +
                                    std::to_string(s.topicShare) + ")");
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
    // Topics: class c prefers its own words — the same Zipf law over a permutation of the
    // vocabulary of its own, so its favourite words are mostly rare ones overall.
    Rng topics(s.seed, Rng::Generate);
    std::vector<std::vector<int>> favourite(static_cast<std::size_t>(k), std::vector<int>(static_cast<std::size_t>(d)));
    for (auto& perm : favourite) {
        for (Eigen::Index j = 0; j < d; ++j)
            perm[std::size_t(j)] = int(j);
        for (Eigen::Index j = d - 1; j > 0; --j)
            std::swap(perm[std::size_t(j)], perm[std::size_t(topics.below(std::uint64_t(j) + 1))]);
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
    const double sigma = 0.5; // log-normal spread of row lengths; its mean is wordsPerRow
    auto zipfRank = [&] {
        const auto it = std::upper_bound(cdf.begin(), cdf.end(), rows.uniform() * total);
        return std::min<std::ptrdiff_t>(it - cdf.begin(), std::ptrdiff_t(d) - 1);
    };
    for (Eigen::Index i = 0; i < s.rows; ++i) {
        const int topic = int(rows.below(std::uint64_t(k)));
        const double length = s.wordsPerRow * std::exp(sigma * rows.normal() - 0.5 * sigma * sigma);
        const auto drawn = std::max<Eigen::Index>(1, Eigen::Index(std::llround(length)));
        words.clear();
        for (Eigen::Index t = 0; t < drawn; ++t) {
            const bool own = rows.uniform() < s.topicShare;
            const std::ptrdiff_t rank = zipfRank();
            words.push_back(own ? favourite[std::size_t(topic)][std::size_t(rank)] : int(rank));
        }
        std::sort(words.begin(), words.end());
        const std::size_t begin = cols.size();
        double norm2 = 0;
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
        for (std::size_t e = begin; e < cols.size(); ++e)
            vals[e] *= inv;
        // Label noise: the document's label is redrawn uniformly with this probability.
        out.labels[std::size_t(i)] = rows.uniform() < s.labelNoise ? int(rows.below(std::uint64_t(k))) : topic;
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
