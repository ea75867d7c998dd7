#include "KernelExpansion.h"

#include <trainbench/Seeds.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tb::dsgd {
namespace {

using Entry = FeatureCache::Entry;

bool pairsOf(const train::RandomFeatures& m)
{
    return m.kind == train::FeatureKind::GaussianCosSin;
}

// A 64-bit fingerprint of a matrix's shape and contents: columns hashed in parallel, combined
// in column order (the same value for any thread count).
std::uint64_t contentHash(const Eigen::Ref<const Eigen::MatrixXd>& x)
{
    const Eigen::Index cols = x.cols(), rows = x.rows();
    std::vector<std::uint64_t> h(std::size_t(cols), 0);
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, cols, 8), [&](const tbb::blocked_range<Eigen::Index>& r) {
        for (Eigen::Index j = r.begin(); j < r.end(); ++j) {
            const double* p = x.col(j).data();
            std::uint64_t a = 0x9e3779b97f4a7c15ULL ^ std::uint64_t(j);
            for (Eigen::Index i = 0; i < rows; ++i) {
                std::uint64_t v;
                std::memcpy(&v, p + i, sizeof v);
                a = (a ^ v) * 0x100000001b3ULL;
                a ^= a >> 29;
            }
            h[std::size_t(j)] = mix64(a);
        }
    });
    std::uint64_t out = mix64(std::uint64_t(rows) * 0x9e3779b97f4a7c15ULL + std::uint64_t(cols));
    for (std::uint64_t v : h)
        out = mix64(out ^ v);
    return out;
}

// A 64-bit fingerprint of a compressed sparse matrix: its shape, row offsets, columns and values
// (tagged apart from contentHash's values of the same shape).
std::uint64_t sparseContentHash(const SparseMatrix& x)
{
    std::uint64_t h = mix64(std::uint64_t(x.rows()) * 0x9e3779b97f4a7c15ULL + std::uint64_t(x.cols()) + 0x5ba75eULL);
    auto add = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ULL; h ^= h >> 29; };
    for (Eigen::Index i = 0; i <= x.rows(); ++i)
        add(std::uint64_t(x.outerIndexPtr()[i]));
    for (Eigen::Index i = 0; i < x.nonZeros(); ++i) {
        std::uint64_t v;
        std::memcpy(&v, x.valuePtr() + i, sizeof v);
        add(std::uint64_t(x.innerIndexPtr()[i]));
        add(v);
    }
    return mix64(h);
}

} // namespace

void KernelExpansion::reset(const train::RandomFeatures& map, Eigen::Index outputs, double cacheBytes,
                            FeatureDraw draw, train::Precision precision)
{
    map.check();
    if (outputs < 1)
        throw std::invalid_argument("kernel expansion: need at least one output");
    if (draw == FeatureDraw::Counter && map.kind != train::FeatureKind::GaussianCos &&
        map.kind != train::FeatureKind::GaussianCosSin && map.kind != train::FeatureKind::LaplaceCos)
        throw std::invalid_argument(std::string("kernel expansion: the counter draw takes the gaussian and laplace "
                                                "features, not ") + train::featureKindName(map.kind));
    if (precision == train::Precision::Mixed && map.kind == train::FeatureKind::RawSubset)
        throw std::invalid_argument("kernel expansion: raw_subset features have no products to compute in mixed precision");
    m_map = map;
    m_draw = draw;
    m_precision = precision;
    if (draw == FeatureDraw::Counter)
        cacheBytes = 0;  // nothing to cache: entries are drawn for the occurring columns only
    m_outputs = outputs;
    m_features = 0;
    m_alpha.clear();
    m_scale = 1.0;
    ++m_version;
    m_memos.clear();
    m_cache.reset(cacheBytes, chunkProjectionBytes(map.inputs, map.kind, precision));
}

double KernelExpansion::chunkProjectionBytes(Eigen::Index inputs, train::FeatureKind kind, train::Precision precision)
{
    const double columns = kind == train::FeatureKind::GaussianCosSin ? kChunk / 2 : kChunk;
    const double floats = precision == train::Precision::Mixed ? 4.0 * double(inputs) * columns : 0.0;
    return 8.0 * double(inputs + 1) * columns + floats;
}

void KernelExpansion::append(const Eigen::Ref<const Eigen::MatrixXd>& alpha)
{
    const Eigen::Index r = alpha.rows();
    if (alpha.cols() != m_outputs)
        throw std::invalid_argument("kernel expansion: " + std::to_string(alpha.cols()) + " coefficient columns for " +
                                    std::to_string(m_outputs) + " outputs");
    if (m_features + r > m_map.count)
        throw std::out_of_range("kernel expansion: " + std::to_string(m_features + r) + " features, planned " +
                                std::to_string(m_map.count));
    if (pairsOf(m_map) && r % 2 != 0)
        throw std::invalid_argument("kernel expansion: cos/sin features come in pairs, got " + std::to_string(r));
    const std::size_t at = m_alpha.size();
    m_alpha.resize(at + std::size_t(r * m_outputs));
    Eigen::Map<Eigen::MatrixXd> dst(m_alpha.data() + at, m_outputs, r);
    dst = alpha.transpose() / m_scale;
    m_features += r;
}

void KernelExpansion::scale(double factor)
{
    if (!(factor > 0) || !std::isfinite(factor))
        throw std::invalid_argument("kernel expansion: scale factor " + std::to_string(factor) + " is not positive");
    m_scale *= factor;
    if (m_scale < 1e-100) {
        // Fold s into α̃ before it underflows; the remembered sums no longer match α̃.
        for (double& a : m_alpha)
            a *= m_scale;
        m_scale = 1.0;
        ++m_version;
    }
}

void KernelExpansion::setCoefficients(const Eigen::Ref<const Eigen::MatrixXd>& alpha)
{
    if (alpha.cols() != m_outputs || alpha.rows() > m_map.count)
        throw std::invalid_argument("kernel expansion: coefficients of shape " + std::to_string(alpha.rows()) + "x" +
                                    std::to_string(alpha.cols()));
    if (pairsOf(m_map) && alpha.rows() % 2 != 0)
        throw std::invalid_argument("kernel expansion: cos/sin features come in pairs");
    m_features = alpha.rows();
    m_alpha.resize(std::size_t(alpha.size()));
    Eigen::Map<Eigen::MatrixXd>(m_alpha.data(), m_outputs, m_features) = alpha.transpose();
    m_scale = 1.0;
    ++m_version;
}

Eigen::MatrixXd KernelExpansion::coefficients() const
{
    return m_scale * Eigen::Map<const Eigen::MatrixXd>(m_alpha.data(), m_outputs, m_features).transpose();
}

double KernelExpansion::modelBytes() const
{
    return 8.0 * double(m_alpha.capacity()) + double(sizeof(*this));
}

double KernelExpansion::memoBytes() const
{
    double b = 0;
    for (const Memo& m : m_memos)
        b += 8.0 * double(m.sums.size());
    return b;
}

double KernelExpansion::evaluationBytes(Eigen::Index rows, Eigen::Index inputs, Eigen::Index outputs, int threads,
                                        train::Precision precision)
{
    if (precision == train::Precision::Mixed)  // plus the float copy of the rows
        return 4.0 * double(rows) * double(inputs) + evaluationBytes(rows, inputs, outputs, threads);
    const double t = std::max(threads, 1);
    const double c = double(kChunk), d = double(inputs), k = double(outputs);
    if (rows >= kRowPathRows)
        // One regenerated chunk, per worker a block's products, features and partial sums, the
        // running sum and the result.
        return 8.0 * ((d + 1) * c + t * kRowBlock * (2 * c + k) + 2.0 * double(rows) * k);
    // Per group a partial sum; per worker a regenerated chunk and the rows' products and features.
    return 8.0 * (kMaxGroups * double(rows) * k + t * ((d + 1) * c + double(rows) * (2 * c + k)) + double(rows) * k);
}

void KernelExpansion::checkInput(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (x.cols() != m_map.inputs)
        throw std::invalid_argument("dsgd: the data have " + std::to_string(x.cols()) +
                                    " columns, the model was trained on " + std::to_string(m_map.inputs));
}

const Entry& KernelExpansion::projection(Eigen::Index chunk, Eigen::Index first, Eigen::Index n, Entry& local) const
{
    const bool startsChunk = first == chunk * kChunk;
    if (startsChunk)
        if (const Entry* e = m_cache.find(chunk, first, n))
            return *e;
    local.first = first;
    local.count = n;
    m_map.projection(first, n, local.omega, local.offset);
    if (m_precision == train::Precision::Mixed)
        local.omegaF = local.omega.cast<float>();
    if (startsChunk)
        if (const Entry* kept = m_cache.store(chunk, std::move(local)))
            return *kept;
    return local;
}

template <class Rows>
void KernelExpansion::addChunk(const Rows& x, const Entry& e, Eigen::Ref<Eigen::MatrixXd> acc) const
{
    Eigen::MatrixXd phi;
    applyEntry(x, e, phi, {});
    const Eigen::Map<const Eigen::MatrixXd> a(m_alpha.data() + e.first * m_outputs, m_outputs, e.count);
    Eigen::MatrixXd p(x.rows(), m_outputs);
    p.noalias() = phi * a.transpose();
    acc += p;
}

bool KernelExpansion::features(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Index first, Eigen::Index n,
                               Eigen::MatrixXd& out, StopToken stop) const
{
    checkInput(x);
    if (m_draw == FeatureDraw::Counter) {  // a model of sparse rows: the dense rows' non-zeros
        const SparseMatrix xs = x.sparseView();
        return featuresSparse(xs, first, n, out, stop);
    }
    if (first < 0 || n < 0 || first + n > m_map.count)
        throw std::out_of_range("kernel expansion: features [" + std::to_string(first) + ", " +
                                std::to_string(first + n) + ") outside the " + std::to_string(m_map.count) + " planned");
    out.resize(x.rows(), n);
    Eigen::MatrixXd piece;
    const auto fill = [&](const auto& rows) {
        for (Eigen::Index a = first; a < first + n;) {
            if (stop.stopRequested())
                return false;
            const Eigen::Index chunk = a / kChunk;
            const Eigen::Index b = std::min(first + n, (chunk + 1) * kChunk);
            Entry local;
            const Entry& e = projection(chunk, a, b - a, local);
            if (!applyEntry(rows, e, piece, stop))
                return false;
            out.middleCols(a - first, b - a) = piece;
            a = b;
        }
        return true;
    };
    if (m_precision == train::Precision::Mixed)
        return fill(Eigen::MatrixXf(x.cast<float>()));  // the rows cast once, not once per chunk
    return fill(x);
}

bool KernelExpansion::applyEntry(const Eigen::Ref<const Eigen::MatrixXd>& x, const Entry& e, Eigen::MatrixXd& out,
                                 StopToken stop) const
{
    return m_map.apply(x, e.omega, e.offset, out, stop);
}

bool KernelExpansion::applyEntry(const Eigen::Ref<const Eigen::MatrixXf>& x, const Entry& e, Eigen::MatrixXd& out,
                                 StopToken stop) const
{
    return m_map.applyMixed(x, e.omegaF, e.offset, out, stop);
}

KernelExpansion::Memo* KernelExpansion::memoFor(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    return memoFor(contentHash(x), x.rows(), x.cols());
}

KernelExpansion::Memo* KernelExpansion::memoFor(std::uint64_t h, Eigen::Index rows, Eigen::Index cols) const
{
    Memo* found = nullptr;
    for (Memo& m : m_memos)
        if (m.hash == h && m.rows == rows && m.cols == cols)
            found = &m;
    if (!found) {
        if (int(m_memos.size()) < kMaxMemos) {
            m_memos.emplace_back();
            found = &m_memos.back();
        } else {
            found = &*std::min_element(m_memos.begin(), m_memos.end(),
                                       [](const Memo& a, const Memo& b) { return a.lastUse < b.lastUse; });
        }
        *found = Memo{};
        found->hash = h;
        found->rows = rows;
        found->cols = cols;
    }
    const Eigen::Index fullChunks = m_features / kChunk;
    if (found->version != m_version || found->chunks > fullChunks || found->sums.rows() != rows) {
        found->version = m_version;
        found->chunks = 0;
        found->sums.setZero(rows, m_outputs);
    }
    found->lastUse = ++m_uses;
    return found;
}

template <class WithChunk>
bool KernelExpansion::sumChunks(Eigen::Index rows, Memo* memo, StopToken stop, const WithChunk& withChunk,
                                Eigen::MatrixXd& out) const
{
    const Eigen::Index k = m_outputs;
    const Eigen::Index chunks = (m_features + kChunk - 1) / kChunk;
    const Eigen::Index fullChunks = m_features / kChunk;
    Eigen::MatrixXd s;
    std::atomic<bool> stopped{false};

    if (rows >= kRowPathRows) {
        Eigen::Index c0 = 0;
        if (memo) {
            s = memo->sums;
            c0 = memo->chunks;
        } else {
            s.setZero(rows, k);
        }
        const Eigen::Index blocks = (rows + kRowBlock - 1) / kRowBlock;
        for (Eigen::Index c = c0; c < chunks; ++c) {
            if (stop.stopRequested())
                return false;
            if (memo && c == fullChunks) {  // the complete chunks are summed: remember them
                memo->sums = s;
                memo->chunks = fullChunks;
            }
            withChunk(c, [&](const auto& addRows) {
                tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
                    for (Eigen::Index b = r.begin(); b < r.end(); ++b) {
                        if (stop.stopRequested()) {
                            stopped = true;
                            return;
                        }
                        const Eigen::Index r0 = b * kRowBlock, m = std::min(kRowBlock, rows - r0);
                        addRows(r0, m, s.middleRows(r0, m));
                    }
                });
            });
            if (stopped)
                return false;
        }
        if (memo && fullChunks == chunks && memo->chunks != chunks) {
            memo->sums = s;
            memo->chunks = chunks;
        }
    } else {
        const Eigen::Index per = std::max<Eigen::Index>(1, (chunks + kMaxGroups - 1) / kMaxGroups);
        const Eigen::Index groups = (chunks + per - 1) / per;
        std::vector<Eigen::MatrixXd> partial(static_cast<std::size_t>(groups));
        tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, groups, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
            for (Eigen::Index g = r.begin(); g < r.end(); ++g) {
                Eigen::MatrixXd& acc = partial[std::size_t(g)];
                acc.setZero(rows, k);
                for (Eigen::Index c = g * per; c < std::min(chunks, (g + 1) * per); ++c) {
                    if (stop.stopRequested()) {
                        stopped = true;
                        return;
                    }
                    withChunk(c, [&](const auto& addRows) { addRows(0, rows, acc.middleRows(0, rows)); });
                }
            }
        });
        if (stopped)
            return false;
        s.setZero(rows, k);
        for (const Eigen::MatrixXd& p : partial)
            s += p;
    }
    out = m_scale * s;
    return true;
}

bool KernelExpansion::evaluate(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::MatrixXd& out, StopToken stop,
                               bool memoise) const
{
    checkInput(x);
    if (m_draw == FeatureDraw::Counter) {  // a model of sparse rows: the dense rows' non-zeros
        const SparseMatrix xs = x.sparseView();
        return evaluateSparse(xs, out, stop, memoise);
    }
    const Eigen::Index rows = x.rows();
    Memo* memo = rows >= kRowPathRows && memoise && rows >= kMemoRows ? memoFor(x) : nullptr;
    // Each chunk's projection is regenerated (or taken from the cache) once, for all its rows.
    const auto sum = [&](const auto& xs) {
        return sumChunks(
            rows, memo, stop,
            [&](Eigen::Index c, const auto& body) {
                const Eigen::Index first = c * kChunk, n = std::min(kChunk, m_features - first);
                Entry local;
                const Entry& e = projection(c, first, n, local);
                body([&](Eigen::Index r0, Eigen::Index m, Eigen::Ref<Eigen::MatrixXd> to) {
                    addChunk(xs.middleRows(r0, m), e, to);
                });
            },
            out);
    };
    if (m_precision == train::Precision::Mixed)
        return sum(Eigen::MatrixXf(x.cast<float>()));  // the rows cast once, not once per chunk
    return sum(x);
}

double KernelExpansion::evaluationBytesSparse(Eigen::Index rows, Eigen::Index nonZeros, Eigen::Index outputs,
                                              int threads)
{
    const double t = std::max(threads, 1);
    const double k = double(outputs);
    if (rows >= kRowPathRows)
        // Per worker a block's features and products; the running sum, a copy of remembered sums
        // and the result.
        return t * (SparseFeatures::blockBytes(kRowBlock, nonZeros, kChunk) + 8.0 * kRowBlock * k) +
               24.0 * double(rows) * k;
    // Per group a partial sum; per worker one chunk's block over every row.
    return 8.0 * kMaxGroups * double(rows) * k + t * (SparseFeatures::blockBytes(rows, nonZeros, kChunk) + 8.0 * double(rows) * k) +
           8.0 * double(rows) * k;
}

void KernelExpansion::checkSparse(const SparseMatrix& x) const
{
    if (x.cols() != m_map.inputs)
        throw std::invalid_argument("dsgd: the data have " + std::to_string(x.cols()) +
                                    " columns, the model was trained on " + std::to_string(m_map.inputs));
    if (!x.isCompressed())
        throw std::invalid_argument("dsgd: sparse rows must be compressed");
}

void KernelExpansion::addChunkSparse(const SparseMatrix& x, Eigen::Index r0, Eigen::Index m, Eigen::Index chunk,
                                     Eigen::Ref<Eigen::MatrixXd> acc) const
{
    const Eigen::Index first = chunk * kChunk, n = std::min(kChunk, m_features - first);
    Eigen::MatrixXd phi;
    if (m_draw == FeatureDraw::Sequential) {
        Entry local;
        const Entry& e = projection(chunk, first, n, local);
        SparseFeatures::block(m_map, x, r0, m, first, n, &e.omega, &e.offset, phi);
    } else {
        SparseFeatures::block(m_map, x, r0, m, first, n, nullptr, nullptr, phi);
    }
    const Eigen::Map<const Eigen::MatrixXd> a(m_alpha.data() + first * m_outputs, m_outputs, n);
    Eigen::MatrixXd p(m, m_outputs);
    p.noalias() = phi * a.transpose();
    acc += p;
}

bool KernelExpansion::featuresSparse(const SparseMatrix& x, Eigen::Index first, Eigen::Index n, Eigen::MatrixXd& out,
                                     StopToken stop) const
{
    checkSparse(x);
    if (first < 0 || n < 0 || first + n > m_map.count)
        throw std::out_of_range("kernel expansion: features [" + std::to_string(first) + ", " +
                                std::to_string(first + n) + ") outside the " + std::to_string(m_map.count) + " planned");
    out.resize(x.rows(), n);
    // The chunk pieces of [first, first + n), each filled on its own.
    std::vector<std::pair<Eigen::Index, Eigen::Index>> pieces;
    for (Eigen::Index a = first; a < first + n;) {
        const Eigen::Index b = std::min(first + n, (a / kChunk + 1) * kChunk);
        pieces.emplace_back(a, b);
        a = b;
    }
    std::atomic<bool> stopped{false};
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pieces.size(), 1), [&](const tbb::blocked_range<std::size_t>& r) {
        Eigen::MatrixXd piece;
        for (std::size_t i = r.begin(); i < r.end(); ++i) {
            if (stop.stopRequested()) {
                stopped = true;
                return;
            }
            const auto [a, b] = pieces[i];
            if (m_draw == FeatureDraw::Sequential) {
                Entry local;
                const Entry& e = projection(a / kChunk, a, b - a, local);
                SparseFeatures::block(m_map, x, 0, x.rows(), a, b - a, &e.omega, &e.offset, piece);
            } else {
                SparseFeatures::block(m_map, x, 0, x.rows(), a, b - a, nullptr, nullptr, piece);
            }
            out.middleCols(a - first, b - a) = piece;
        }
    });
    return !stopped;
}

bool KernelExpansion::evaluateSparse(const SparseMatrix& x, Eigen::MatrixXd& out, StopToken stop, bool memoise) const
{
    checkSparse(x);
    const Eigen::Index rows = x.rows();
    Memo* memo = rows >= kRowPathRows && memoise && rows >= kMemoRows ? memoFor(sparseContentHash(x), rows, x.cols())
                                                                      : nullptr;
    return sumChunks(
        rows, memo, stop,
        [&](Eigen::Index c, const auto& body) {
            body([&](Eigen::Index r0, Eigen::Index m, Eigen::Ref<Eigen::MatrixXd> to) { addChunkSparse(x, r0, m, c, to); });
        },
        out);
}

} // namespace tb::dsgd
