#pragma once
/// @file SparseTextGenerator.h
/// A seeded sparse data set of a text corpus's shape (RCV1's by default), for benchmarks and tests.

#include "Dataset.h"

#include <cstdint>

namespace tb::data {

/// Generates bag-of-words rows the way a corpus looks to a linear learner, without the corpus:
///  - each row's topic (its class) is drawn uniformly; its words follow Zipf's law — word of
///    rank r drawn with probability ∝ 1/(r + 10)^1.1 — over the common vocabulary (word r is
///    column r) or, with probability topicShare, over its topic's own ordering of the vocabulary
///    (a seeded permutation per topic, so a topic's favourite words are mostly rare overall);
///  - a row's length (words drawn, with repeats) is log-normal around wordsPerRow; its values are
///    log term frequencies (1 + log tf) times an idf weight −log(p_r·wordsPerRow) (at least 0.1),
///    the row then scaled to unit Euclidean norm — RCV1's LIBSVM files are unit-norm tf-idf rows;
///  - with probability labelNoise a row's label is redrawn uniformly (so the best accuracy is
///    about 1 − labelNoise·(k − 1)/k).
/// Linear models learn the topics from their favourite words, well but not perfectly, as on RCV1
/// (≈ 97 % for a linear SVM). Defaults are RCV1's binary LIBSVM set (20,242 rows × 47,236 words,
/// 0.16 % non-zero ≈ 74 words a row); 4 classes is the paper's four-topic RCV1. Deterministic for
/// a seed (one sequential stream), reentrant.
class SparseTextGenerator {
public:
    struct Spec {
        Eigen::Index rows = 20242;
        Eigen::Index features = 47236;
        double wordsPerRow = 74;   ///< mean distinct-ish words drawn per row (> 0)
        int classes = 2;           ///< ≥ 2
        double topicShare = 0.2;   ///< share of a row's words drawn from its topic's own ordering, [0, 1]
        double labelNoise = 0.03;  ///< probability that a row's label is redrawn uniformly, [0, 1]
        std::uint64_t seed = 1;
    };

    /// The rows, sparse (Dataset::xSparse), classes named "topic 1" … Throws std::invalid_argument
    /// for a spec outside the ranges above or wider than 32-bit indices.
    static Dataset generate(const Spec& spec);

    /// Bytes generate() allocates at its peak for @p spec (its result and the working vectors).
    static std::uint64_t memoryNeed(const Spec& spec);
};

} // namespace tb::data
