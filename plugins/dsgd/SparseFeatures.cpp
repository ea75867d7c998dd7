#include "SparseFeatures.h"

#include <trainbench/Seeds.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tb::dsgd {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Keeps the offsets' words apart from every ω word (those mix a column counter).
constexpr std::uint64_t kOffsetTag = 0xd1b54a32d192ed03ULL;

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

double uniform53(std::uint64_t w)
{
    return double(w >> 11) * 0x1.0p-53;
}

// ω from the frequency key and the column's two words (mix64(2c), mix64(2c + 1)).
double entryFromWords(train::FeatureKind kind, double bandwidth, std::uint64_t key, std::uint64_t c0, std::uint64_t c1)
{
    const double u0 = uniform53(mix64(key ^ c0));
    if (kind == train::FeatureKind::LaplaceCos)
        return std::tan(kPi * (u0 - 0.5)) / bandwidth;  // Cauchy(0, 1/σ) quantile
    const double u1 = uniform53(mix64(key ^ c1));
    return std::sqrt(-2.0 * std::log(1.0 - u0)) * std::cos(2.0 * kPi * u1) / bandwidth;  // Box–Muller
}

void checkKind(const train::RandomFeatures& map)
{
    switch (map.kind) {
    case train::FeatureKind::GaussianCos:
    case train::FeatureKind::GaussianCosSin:
    case train::FeatureKind::LaplaceCos:
        return;
    case train::FeatureKind::RandomLogit:
    case train::FeatureKind::RawSubset:
        break;
    }
    throw std::invalid_argument(std::string("dsgd: sparse inputs take the gaussian and laplace features, not ") +
                                train::featureKindName(map.kind));
}

} // namespace

std::uint64_t SparseFeatures::frequencyKey(const train::RandomFeatures& map, Eigen::Index f)
{
    return deriveSeed(map.seed, std::uint64_t(f));
}

double SparseFeatures::omegaEntry(const train::RandomFeatures& map, std::uint64_t key, Eigen::Index column)
{
    const std::uint64_t c = 2 * std::uint64_t(column);
    return entryFromWords(map.kind, map.bandwidth, key, mix64(c), mix64(c + 1));
}

double SparseFeatures::offset(const train::RandomFeatures& map, Eigen::Index j)
{
    if (map.kind == train::FeatureKind::GaussianCosSin)
        return 0.0;
    return 2.0 * kPi * uniform53(mix64(frequencyKey(map, j) ^ kOffsetTag));
}

void SparseFeatures::block(const train::RandomFeatures& map, const SparseMatrix& x, Eigen::Index r0, Eigen::Index m,
                           Eigen::Index first, Eigen::Index n, const Eigen::MatrixXd* omega,
                           const Eigen::VectorXd* offsets, Eigen::MatrixXd& out)
{
    checkKind(map);
    if (x.cols() != map.inputs)
        throw std::invalid_argument("dsgd: the data have " + std::to_string(x.cols()) +
                                    " columns, the model was trained on " + std::to_string(map.inputs));
    const bool pairs = map.kind == train::FeatureKind::GaussianCosSin;
    if (pairs && (first % 2 != 0 || n % 2 != 0))
        throw std::invalid_argument("dsgd: cos/sin pairs start and end at even features");
    const Eigen::Index cols = pairs ? n / 2 : n, base = pairs ? first / 2 : first;
    if (omega && (omega->rows() != map.inputs || omega->cols() != cols || !offsets || offsets->size() != cols))
        throw std::invalid_argument("dsgd: projections of the wrong shape");
    const int* outer = x.outerIndexPtr();
    const int* inner = x.innerIndexPtr();
    const double* val = x.valuePtr();

    // The block's distinct columns, in order: only their rows of Ω are drawn.
    std::vector<int> distinct(inner + outer[r0], inner + outer[r0 + m]);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const Eigen::Index u = Eigen::Index(distinct.size());

    std::vector<std::uint64_t> keys;
    if (!omega) {
        keys.resize(std::size_t(cols));
        for (Eigen::Index k = 0; k < cols; ++k)
            keys[std::size_t(k)] = frequencyKey(map, base + k);
    }
    RowMajorMatrix z = RowMajorMatrix::Zero(m, cols), w;
    std::vector<int> cursor(static_cast<std::size_t>(m));
    for (Eigen::Index i = 0; i < m; ++i)
        cursor[std::size_t(i)] = outer[r0 + i];
    for (Eigen::Index p0 = 0; p0 < u; p0 += kColumnPiece) {
        const Eigen::Index p1 = std::min(u, p0 + kColumnPiece);
        w.resize(p1 - p0, cols);
        for (Eigen::Index l = p0; l < p1; ++l) {
            const int c = distinct[std::size_t(l)];
            if (omega) {
                w.row(l - p0) = omega->row(c);
                continue;
            }
            const std::uint64_t c0 = mix64(2 * std::uint64_t(c)), c1 = mix64(2 * std::uint64_t(c) + 1);
            double* dst = w.row(l - p0).data();
            for (Eigen::Index k = 0; k < cols; ++k)
                dst[k] = entryFromWords(map.kind, map.bandwidth, keys[std::size_t(k)], c0, c1);
        }
        // Each row's non-zeros in this piece's column range, in column order.
        const int last = distinct[std::size_t(p1 - 1)];
        const auto pieceBegin = distinct.begin() + p0, pieceEnd = distinct.begin() + p1;
        for (Eigen::Index i = 0; i < m; ++i) {
            int& at = cursor[std::size_t(i)];
            const int end = outer[r0 + i + 1];
            for (; at < end && inner[at] <= last; ++at) {
                const Eigen::Index l = std::lower_bound(pieceBegin, pieceEnd, inner[at]) - pieceBegin;
                z.row(i) += val[at] * w.row(l);
            }
        }
    }

    const double s = map.normalise ? std::sqrt(2.0 / double(map.count)) : std::sqrt(2.0);
    out.resize(m, n);
    if (pairs) {
        for (Eigen::Index k = 0; k < cols; ++k)
            for (Eigen::Index i = 0; i < m; ++i) {
                out(i, 2 * k) = s * std::cos(z(i, k));
                out(i, 2 * k + 1) = s * std::sin(z(i, k));
            }
        return;
    }
    for (Eigen::Index j = 0; j < n; ++j) {
        const double b = offsets ? (*offsets)(j) : offset(map, first + j);
        for (Eigen::Index i = 0; i < m; ++i)
            out(i, j) = s * std::cos(z(i, j) + b);
    }
}

double SparseFeatures::blockBytes(Eigen::Index rows, Eigen::Index blockNonZeros, Eigen::Index n)
{
    const double distinct = double(std::min<Eigen::Index>(blockNonZeros, SparseMaxIndex));
    // Ω piece, products, features (each at most n columns), distinct columns, keys, cursors.
    return 8.0 * double(std::min<double>(double(kColumnPiece), distinct)) * double(n) + 16.0 * double(rows) * double(n) +
           4.0 * distinct + 8.0 * double(n) + 4.0 * double(rows);
}

SparseMatrix SparseFeatures::selectRows(const SparseMatrix& x, const std::vector<Eigen::Index>& rows)
{
    const int* outer = x.outerIndexPtr();
    std::size_t total = 0;
    for (Eigen::Index r : rows) {
        if (r < 0 || r >= x.rows())
            throw std::out_of_range("dsgd: row " + std::to_string(r) + " outside the " + std::to_string(x.rows()) +
                                    " rows");
        total += std::size_t(outer[r + 1] - outer[r]);
    }
    if (total > std::size_t(SparseMaxIndex))
        throw std::invalid_argument("dsgd: the selected rows hold more than 2^31 - 1 non-zeros");
    SparseMatrix out(Eigen::Index(rows.size()), x.cols());
    out.resizeNonZeros(Eigen::Index(total));
    int* o = out.outerIndexPtr();
    int at = 0;
    o[0] = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const int b = outer[rows[i]], e = outer[rows[i] + 1];
        std::copy(x.innerIndexPtr() + b, x.innerIndexPtr() + e, out.innerIndexPtr() + at);
        std::copy(x.valuePtr() + b, x.valuePtr() + e, out.valuePtr() + at);
        at += e - b;
        o[i + 1] = at;
    }
    return out;
}

std::string SparseFeatures::firstNonFinite(const SparseMatrix& x)
{
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        for (int at = x.outerIndexPtr()[i]; at < x.outerIndexPtr()[i + 1]; ++at)
            if (!std::isfinite(x.valuePtr()[at]))
                return "row " + std::to_string(i + 1) + ", column " + std::to_string(x.innerIndexPtr()[at] + 1) +
                       " is " + std::to_string(x.valuePtr()[at]);
    return {};
}

double SparseFeatures::medianDistance(const SparseMatrix& x, Eigen::Index sampleRows, std::uint64_t seed)
{
    if (!firstNonFinite(x).empty())
        throw std::invalid_argument("median trick: the data contain NaN or Inf");
    const std::vector<Eigen::Index> rows = train::medianSampleRows(x.rows(), sampleRows, seed);
    const Eigen::Index m = Eigen::Index(rows.size());
    if (m < 2)
        return 0.0;
    const SparseMatrix s = selectRows(x, rows);
    const int* outer = s.outerIndexPtr();
    const int* inner = s.innerIndexPtr();
    const double* val = s.valuePtr();
    Eigen::VectorXd norms(m);
    for (Eigen::Index i = 0; i < m; ++i)
        norms(i) = s.row(i).squaredNorm();
    // aᵀb by merging the two rows' sorted columns.
    auto dot = [&](Eigen::Index a, Eigen::Index b) {
        double sum = 0;
        int p = outer[a], q = outer[b];
        const int pe = outer[a + 1], qe = outer[b + 1];
        while (p < pe && q < qe) {
            if (inner[p] < inner[q])
                ++p;
            else if (inner[q] < inner[p])
                ++q;
            else
                sum += val[p++] * val[q++];
        }
        return sum;
    };
    return train::medianPairDistance(norms, dot);
}

double SparseFeatures::medianBytes(Eigen::Index rows, Eigen::Index nonZeros, Eigen::Index sampleRows)
{
    const double n = double(std::max<Eigen::Index>(rows, 1));
    const double m = std::min(n, double(std::max<Eigen::Index>(sampleRows, 2)));
    // Row order, the sample (at most every non-zero), norms, distances.
    return 8.0 * n + 12.0 * double(nonZeros) + 4.0 * (m + 1) + 8.0 * m + 8.0 * m * (m - 1) / 2.0;
}

} // namespace tb::dsgd
