#pragma once
/// @file MvGenerator.h
/// The synthetic "mv" regression set of Delve / KEEL (also river's synth.Mv): ten attributes
/// with documented dependencies between them, used by Palagi & Seccia (2019) with 40768 rows.

#include "Dataset.h"

#include <Eigen/Core>
#include <cstdint>

namespace tb::data {

/// Generates Mv from its published definition (no download):
///  - x1 ~ U[−5, 5];  x2 ~ U[−15, −10];
///  - x3 = green if x1 > 0, else red with probability 0.4 and brown with probability 0.6;
///  - x4 = x1 + 2·x2 if x3 = green, else x1/2 with probability 0.3 and x2/2 with probability 0.7;
///  - x5 ~ U[−1, 1];  x6 = x4·e with e ~ U[0, 5];
///  - x7 = yes with probability 0.3, else no;  x8 = normal if x5 < 0.5, else large;
///  - x9 ~ U[100, 500];  x10 uniform on the integers 1000 … 1200;
///  - y = 35 − x4/2 if x2 > 2 (never true: x2 < −10; kept because the definition says so),
///    else 10 − 2·x1 if −2 ≤ x4 ≤ 2, else 3 − x1/x4 if x7 = yes, else x6 + x1 if x8 = normal,
///    else x1/2.
/// No noise is added (the definition has none).
///
/// Encoding: the nominal x3 is one-hot (3 columns), x7 and x8 are 0/1, the rest are numbers —
/// 12 input columns in the order x1, x2, x3_red, x3_green, x3_brown, x4, x5, x6, x7_yes,
/// x8_large, x9, x10, and one target y. With a constant-1 input this is the paper's 13
/// "features" (Table 1: 13·50 + 50 = 700 weights for [1×50]).
///
/// Every row draws the same nine numbers from Rng(seed, Rng::Generate) in a fixed order
/// (x1, x2, x3's choice, x4's choice, x5, e, x7, x9, x10), whether a branch uses them or not,
/// so the set is bit-identical on every platform for a seed. Reentrant.
class MvGenerator {
public:
    /// The paper's size (Table 1: 32614 train + 8154 test).
    static constexpr Eigen::Index kPaperRows = 40768;
    /// At most this many rows (≈ 1 GB of doubles): a bound checked before allocating.
    static constexpr Eigen::Index kMaxRows = 10'000'000;
    /// Input columns of the encoding.
    static constexpr Eigen::Index kInputs = 12;

    /// @p rows in [1, kMaxRows] rows of Mv drawn with @p seed. Regression, 12 inputs, 1 target,
    /// feature names as above. Throws std::invalid_argument naming "samples" otherwise.
    static Dataset generate(Eigen::Index rows, std::uint64_t seed);

    /// The target of one row from its raw attributes (x3: 0 red, 1 green, 2 brown; x7, x8 as
    /// 0/1 for yes/large), exactly the rule list above. Exposed for tests.
    static double target(double x1, double x2, double x4, double x6, bool x7Yes, bool x8Large);
};

} // namespace tb::data
