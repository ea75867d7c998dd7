#pragma once
/// @file SparseTextGenerator.h
/// A seeded sparse data set of a text corpus's shape (RCV1's by default), for benchmarks and tests.

#include "Dataset.h"

#include <cstdint>

namespace tb::data {

/// Generates bag-of-words rows the way a corpus looks to a linear learner, without the corpus:
///  - words follow Zipf's law: word j (0-based) is drawn with probability ∝ 1/(j + 10)^1.1, so
///    a few words are in most rows and most words in few;
///  - a row's length (words drawn, with repeats) is log-normal around wordsPerRow; its values are
///    log term frequencies times an idf weight −log(p_j·wordsPerRow) (at least 0.1), the row then
///    scaled to unit Euclidean norm — RCV1's LIBSVM files are unit-norm tf-idf rows;
///  - labels come from planted topics: each word belongs to one class with probability 0.3
///    (weight ~ N(0, 1)); a row's class is the arg-max of its topic scores plus Gumbel noise of
///    scale labelNoise (0: a linear separator exists), so linear models learn it, not perfectly.
/// Defaults are RCV1's binary LIBSVM set (20,242 rows × 47,236 words, 0.16 % non-zero ≈ 74
/// words a row); 4 classes is the paper's four-topic RCV1. Deterministic for a seed, on any
/// thread count (one sequential stream). Reentrant.
class SparseTextGenerator {
public:
    struct Spec {
        Eigen::Index rows = 20242;
        Eigen::Index features = 47236;
        double wordsPerRow = 74;   ///< mean distinct-ish words drawn per row (> 0)
        int classes = 2;           ///< ≥ 2
        double labelNoise = 0.3;   ///< Gumbel scale on the topic scores, ≥ 0
        std::uint64_t seed = 1;
    };

    /// The rows, sparse (Dataset::xSparse), classes named "topic 1" … Throws std::invalid_argument
    /// for a spec outside the ranges above or wider than 32-bit indices.
    static Dataset generate(const Spec& spec);

    /// Bytes generate() allocates at its peak for @p spec (its result and the working vectors).
    static std::uint64_t memoryNeed(const Spec& spec);
};

} // namespace tb::data
