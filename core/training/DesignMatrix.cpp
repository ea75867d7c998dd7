#include "DesignMatrix.h"

#include <numerics/FirstTouch.h>
#include <numerics/LeastSquares.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <stdexcept>

namespace tb::train {
namespace {

// Rows per task of the products: large enough for efficient GEMM, small enough to balance, and
// at most ~5·10⁸ multiply-adds so that the stop token is polled every few tens of ms on wide
// layers.
Eigen::Index productBlock(Eigen::Index d, Eigen::Index k)
{
    const double rows = 5e8 / (double(d) * double(std::max<Eigen::Index>(k, 1)) + 1.0);
    return std::clamp<Eigen::Index>(Eigen::Index(std::min(rows, 1e9)), 64, 2048);
}

// Rows per float rank update of a d-column Gram in mixed precision: about 10⁹ multiply-adds
// (d²/2 per row) between two polls of the stop token, 30–60 ms on one idle core. 4096 rows of
// 4000 random features were 3·10¹⁰ (2 s measured: Stop far beyond 200 ms). At least 128 rows:
// shallower float products lose GEMM efficiency (measured at d = 4000: 256 rows +5 % time, 64
// rows +45 %); d ≤ 700 keeps kMixedBlock. Depends on d only: the same bits for any thread count.
Eigen::Index mixedGramRows(Eigen::Index d)
{
    const double rows = 2e9 / (double(d) * double(d) + 1.0);
    return std::clamp<Eigen::Index>(Eigen::Index(std::min(rows, 1e9)), 128, DesignMatrix::kMixedBlock);
}

// Same partition rule as core LeastSquares: one part per thread, at least 256 rows each.
Eigen::Index partCount(Eigen::Index rows)
{
    const Eigen::Index threads = std::max(1, tbb::this_task_arena::max_concurrency());
    return std::max<Eigen::Index>(1, std::min(threads, rows / 256));
}

template <typename F>
void forParts(Eigen::Index parts, F&& f)
{
    if (parts == 1) {
        f(Eigen::Index(0));
        return;
    }
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, parts, 1),
                      [&](const tbb::blocked_range<Eigen::Index>& r) {
                          for (Eigen::Index i = r.begin(); i < r.end(); ++i)
                              f(i);
                      },
                      tbb::simple_partitioner());
}

// Appends the bias row/column: G = [[AᵀA, Aᵀ1], [1ᵀA, n]], C = [[AᵀB], [1ᵀB]].
void appendBias(Eigen::MatrixXd& g, Eigen::MatrixXd& c, const Eigen::RowVectorXd& colSums,
                const Eigen::RowVectorXd& bSums, Eigen::Index n)
{
    const Eigen::Index d = g.rows();
    g.conservativeResize(d + 1, d + 1);
    g.row(d).head(d) = colSums;
    g.col(d).head(d) = colSums.transpose();
    g(d, d) = double(n);
    c.conservativeResize(d + 1, Eigen::NoChange);
    c.row(d) = bSums;
}

} // namespace

DesignMatrix::DesignMatrix(const Eigen::Ref<const Eigen::MatrixXd>& x, Precision precision, bool standardise,
                       bool center)
    : m_precision(precision), m_rows(x.rows()), m_cols(x.cols())
{
    const bool mixed = precision == Precision::Mixed;
    if (!mixed && !standardise) {
        m_data = x.data();
        m_stride = x.outerStride();
        m_finite = x.allFinite();
        return;
    }
    if (standardise) {
        m_mean.setZero(m_cols);
        m_scale.setOnes(m_cols);
    }
    if (mixed)
        m_float.resize(m_rows, m_cols);
    else
        m_ownDouble.resize(m_rows, m_cols);
    // One pass per column while it is in cache: finiteness, statistics, the (transformed) copy.
    std::atomic<bool> finite{true};
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, m_cols, 8), [&](const tbb::blocked_range<Eigen::Index>& r) {
        for (Eigen::Index j = r.begin(); j < r.end(); ++j) {
            const auto col = x.col(j);
            if (!col.allFinite())
                finite = false;
            double mu = 0.0, s = 1.0;
            if (standardise) {
                mu = center && m_rows > 0 ? col.mean() : 0.0;
                const double var = m_rows > 0 ? (col.array() - mu).square().sum() / double(m_rows) : 0.0;
                s = var > 0 ? std::sqrt(var) : 1.0; // a constant column stays as it is (zero once centred)
                m_mean(j) = mu;
                m_scale(j) = s;
            }
            if (mixed)
                m_float.col(j) = ((col.array() - mu) * (1.0 / s)).cast<float>().matrix();
            else
                m_ownDouble.col(j) = ((col.array() - mu) * (1.0 / s)).matrix();
        }
    });
    if (!mixed) {
        m_data = m_ownDouble.data();
        m_stride = m_rows;
    }
    m_finite = finite;
}

Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> DesignMatrix::doubleView() const
{
    return {m_data, m_rows, m_cols, Eigen::OuterStride<>(std::max<Eigen::Index>(m_stride, 1))};
}

DesignMatrix::DesignMatrix(DesignMatrix&& o) noexcept
{
    *this = std::move(o);
}

DesignMatrix& DesignMatrix::operator=(DesignMatrix&& o) noexcept
{
    const bool ownsDouble = o.m_data != nullptr && o.m_data == o.m_ownDouble.data();
    m_precision = o.m_precision;
    m_rows = o.m_rows;
    m_cols = o.m_cols;
    m_stride = o.m_stride;
    m_ownDouble = std::move(o.m_ownDouble);
    m_float = std::move(o.m_float);
    m_data = ownsDouble ? m_ownDouble.data() : o.m_data;
    m_mean = std::move(o.m_mean);
    m_scale = std::move(o.m_scale);
    m_finite = o.m_finite;
    m_stop = std::move(o.m_stop);
    m_stopped = o.m_stopped.load();
    return *this;
}

DesignMatrix DesignMatrix::generate(Eigen::Index rows, Eigen::Index cols, Precision precision, const BlockFill& fill,
                                   StopToken stop)
{
    if (rows < 0 || cols < 0)
        throw std::invalid_argument("design matrix: negative shape " + std::to_string(rows) + "x" + std::to_string(cols));
    DesignMatrix dm;
    dm.m_precision = precision;
    dm.m_rows = rows;
    dm.m_cols = cols;
    dm.m_stop = stop;
    const bool mixed = precision == Precision::Mixed;
    if (mixed) {
        dm.m_float.resize(rows, cols);
    } else {
        dm.m_ownDouble.resize(rows, cols);
        dm.m_data = dm.m_ownDouble.data();
        dm.m_stride = rows;
    }
    std::atomic<bool> finite{true};
    const Eigen::Index blocks = (rows + kGenerateBlock - 1) / kGenerateBlock;
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
        Eigen::MatrixXd buffer;
        for (Eigen::Index b = r.begin(); b < r.end(); ++b) {
            if (dm.pollStop())
                return;
            const Eigen::Index r0 = b * kGenerateBlock, m = std::min(kGenerateBlock, rows - r0);
            if (mixed) {
                buffer.resize(m, cols);
                fill(r0, buffer);
                if (!buffer.allFinite())
                    finite = false;
                dm.m_float.middleRows(r0, m) = buffer.cast<float>();
            } else {
                auto block = dm.m_ownDouble.middleRows(r0, m);
                fill(r0, block);
                if (!block.allFinite())
                    finite = false;
            }
        }
    });
    dm.m_finite = finite;
    return dm;
}

DesignMatrix DesignMatrix::subset(const std::vector<Eigen::Index>& rows) const
{
    DesignMatrix s;
    s.assignSubset(*this, rows);
    return s;
}

void DesignMatrix::assignSubset(const DesignMatrix& source, const std::vector<Eigen::Index>& rows)
{
    for (Eigen::Index r : rows)
        if (r < 0 || r >= source.m_rows)
            throw std::out_of_range("design matrix: subset row " + std::to_string(r) + " outside [0, " +
                                    std::to_string(source.m_rows) + ")");
    m_precision = source.m_precision;
    m_rows = Eigen::Index(rows.size());
    m_cols = source.m_cols;
    m_mean = source.m_mean;
    m_scale = source.m_scale;
    m_finite = source.m_finite;
    m_stop = source.m_stop;
    m_stopped = source.m_stopped.load();
    // Keep the storage when it is large enough: rows beyond m_rows are never read.
    auto gather = [&](const auto* src, Eigen::Index srcStride, auto& dst) {
        if (dst.rows() < m_rows || dst.cols() != m_cols)
            dst.resize(std::max(m_rows, dst.cols() == m_cols ? dst.rows() : Eigen::Index(0)), m_cols);
        const Eigen::Index dstStride = dst.rows();
        auto* out = dst.data();
        const Eigen::Index* idx = rows.data();
        tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, m_cols, 16), [&](const tbb::blocked_range<Eigen::Index>& r) {
            for (Eigen::Index j = r.begin(); j < r.end(); ++j) {
                const auto* in = src + j * srcStride;
                auto* o = out + j * dstStride;
                for (Eigen::Index i = 0; i < m_rows; ++i)
                    o[i] = in[idx[i]];
            }
        });
    };
    if (m_precision == Precision::Mixed) {
        gather(source.m_float.data(), source.m_float.rows(), m_float);
        m_data = nullptr;
        m_stride = 0;
    } else {
        gather(source.m_data, source.m_stride, m_ownDouble);
        m_data = m_ownDouble.data();
        m_stride = m_ownDouble.rows();
    }
}

void DesignMatrix::augmentedNormalEquations(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                          const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias, Eigen::MatrixXd& g,
                                          Eigen::MatrixXd& c, StopToken stop)
{
    num::gramAndCross(a, b, g, c, 0, stop);
    if (bias)
        appendBias(g, c, a.colwise().sum(), b.colwise().sum(), a.rows());
}

void DesignMatrix::normalEquations(const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias, Eigen::MatrixXd& g,
                                 Eigen::MatrixXd& c) const
{
    if (b.rows() != m_rows)
        throw std::invalid_argument("design matrix: targets have " + std::to_string(b.rows()) + " rows, inputs " +
                                    std::to_string(m_rows));
    if (m_precision == Precision::Double) {
        doubleNormalEquations(b, true, bias, g, c);
        return;
    }
    const Eigen::MatrixXd bCopy = b;
    accumulate(&bCopy, true, bias, &g, &c);
}

bool DesignMatrix::pollStop() const
{
    if (m_stopped.load())
        return true;
    if (m_stop.stopRequested()) {
        m_stopped = true;
        return true;
    }
    return false;
}

// Double precision: the core gramAndCross() (parallel over row chunks in the arena) on slices
// of kDoubleChunk rows, summed in slice order, polling the stop token between slices.
void DesignMatrix::doubleNormalEquations(const Eigen::Ref<const Eigen::MatrixXd>& b, bool wantCross, bool bias,
                                       Eigen::MatrixXd& g, Eigen::MatrixXd& c) const
{
    const auto x = doubleView();
    const Eigen::Index n = m_rows, d = m_cols;
    g.setZero(d, d);
    c.setZero(d, wantCross ? b.cols() : 0);
    Eigen::MatrixXd gs, cs;
    const Eigen::MatrixXd noB(0, 0);
    for (Eigen::Index r0 = 0; r0 < n; r0 += kDoubleChunk) {
        if (pollStop())
            return;
        const Eigen::Index m = std::min(kDoubleChunk, n - r0);
        // The stop token reaches inside the chunk (polled every stopPollRows(d) rows): a chunk of
        // 16384 rows × 1000² is several seconds on a loaded core.
        if (wantCross) {
            num::gramAndCross(x.middleRows(r0, m), b.middleRows(r0, m), gs, cs, 0, m_stop);
            c += cs;
        } else {
            gs = num::gram(x.middleRows(r0, m), 0, m_stop);
        }
        if (pollStop())
            return;
        g += gs;
    }
    if (bias)
        appendBias(g, c, x.colwise().sum(), wantCross ? Eigen::RowVectorXd(b.colwise().sum()) : Eigen::RowVectorXd(0),
                   n);
}

Eigen::MatrixXd DesignMatrix::gram(bool bias) const
{
    Eigen::MatrixXd g, unused;
    if (m_precision == Precision::Double)
        doubleNormalEquations(Eigen::MatrixXd(m_rows, 0), false, bias, g, unused);
    else
        accumulate(nullptr, true, bias, &g, nullptr);
    return g;
}

Eigen::MatrixXd DesignMatrix::cross(const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias) const
{
    if (b.rows() != m_rows)
        throw std::invalid_argument("design matrix: targets have " + std::to_string(b.rows()) + " rows, inputs " +
                                    std::to_string(m_rows));
    const Eigen::MatrixXd bCopy = b;
    Eigen::MatrixXd c;
    accumulate(&bCopy, false, bias, nullptr, &c);
    return c;
}

// One pass over the rows: per-thread parts, each over blocks of kMixedBlock rows (float
// products added in double for mixed precision; double products for double precision).
void DesignMatrix::accumulate(const Eigen::MatrixXd* b, bool wantGram, bool bias, Eigen::MatrixXd* g,
                            Eigen::MatrixXd* c) const
{
    const Eigen::Index n = m_rows, d = m_cols, k = b ? b->cols() : 0;
    const bool mixed = m_precision == Precision::Mixed;
    const auto xd = doubleView();
    const Eigen::Index parts = partCount(n);
    const Eigen::Index per = (n + parts - 1) / parts;
    const Eigen::Index block = wantGram ? mixedGramRows(d) : kMixedBlock;
    std::vector<Eigen::MatrixXd> gs(static_cast<std::size_t>(parts)), cs(static_cast<std::size_t>(parts));
    std::vector<Eigen::RowVectorXd> sums(static_cast<std::size_t>(parts));
    forParts(parts, [&](Eigen::Index p) {
        Eigen::MatrixXd& gd = gs[std::size_t(p)];
        Eigen::MatrixXd& cd = cs[std::size_t(p)];
        Eigen::RowVectorXd& sd = sums[std::size_t(p)];
        if (wantGram)
            gd.setZero(d, d);
        if (b)
            cd.setZero(d, k);
        sd.setZero(d);
        Eigen::MatrixXf gf(wantGram && mixed ? d : 0, wantGram && mixed ? d : 0), cf, bf;
        const Eigen::Index r0 = p * per, r1 = std::min(n, r0 + per);
        for (Eigen::Index s = r0; s < r1; s += block) {
            if (pollStop())
                return;
            const Eigen::Index m = std::min(block, r1 - s);
            if (mixed) {
                const auto xb = m_float.middleRows(s, m);
                if (wantGram) {
                    gf.setZero();
                    gf.selfadjointView<Eigen::Lower>().rankUpdate(xb.transpose());
                    gd.triangularView<Eigen::Lower>() += gf.cast<double>();
                    sd += xb.colwise().sum().cast<double>();
                }
                if (b) {
                    bf = b->middleRows(s, m).cast<float>();
                    cf.noalias() = xb.transpose() * bf;
                    cd += cf.cast<double>();
                }
            } else {
                const auto xb = xd.middleRows(s, m);
                if (wantGram) {
                    gd.selfadjointView<Eigen::Lower>().rankUpdate(xb.transpose());
                    sd += xb.colwise().sum();
                }
                if (b)
                    cd.noalias() += xb.transpose() * b->middleRows(s, m);
            }
        }
    });
    for (std::size_t p = 1; p < std::size_t(parts); ++p) {
        if (wantGram) {
            gs[0].triangularView<Eigen::Lower>() += gs[p];
            sums[0] += sums[p];
        }
        if (b)
            cs[0] += cs[p];
    }
    if (wantGram) {
        *g = std::move(gs[0]);
        g->triangularView<Eigen::StrictlyUpper>() = g->transpose();
    }
    Eigen::MatrixXd noCross(d, 0);
    Eigen::MatrixXd& cOut = b ? *c : noCross;
    if (b)
        cOut = std::move(cs[0]);
    if (bias) {
        if (wantGram) {
            appendBias(*g, cOut, sums[0], b ? Eigen::RowVectorXd(b->colwise().sum()) : Eigen::RowVectorXd(0), n);
        } else {
            cOut.conservativeResize(d + 1, Eigen::NoChange);
            cOut.row(d) = b->colwise().sum();
        }
    }
}

void DesignMatrix::product(const Eigen::MatrixXd& w, bool bias, Eigen::MatrixXd& z) const
{
    const Eigen::Index d = m_cols;
    if (w.rows() != d + (bias ? 1 : 0))
        throw std::invalid_argument("design matrix: first-layer weights have " + std::to_string(w.rows()) + " rows, expected " +
                                    std::to_string(d + (bias ? 1 : 0)));
    z.resize(m_rows, w.cols());
    // Each row block writes every column of z: fault z in first, in pieces Stop can end between.
    if (!num::touchPolled(z.data(), std::size_t(z.size()) * sizeof(double), [this] { return pollStop(); }))
        return;
    const Eigen::Index kProductBlock = productBlock(d, w.cols());
    const Eigen::Index blocks = (m_rows + kProductBlock - 1) / kProductBlock;
    const Eigen::MatrixXf wf = m_precision == Precision::Mixed ? Eigen::MatrixXf(w.topRows(d).cast<float>())
                                                                   : Eigen::MatrixXf();
    const auto xd = doubleView();
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
        Eigen::MatrixXf zf;
        for (Eigen::Index bI = r.begin(); bI < r.end(); ++bI) {
            if (pollStop())
                return;
            const Eigen::Index r0 = bI * kProductBlock, m = std::min(kProductBlock, m_rows - r0);
            auto out = z.middleRows(r0, m);
            if (m_precision == Precision::Mixed) {
                zf.noalias() = m_float.middleRows(r0, m) * wf;
                out = zf.cast<double>();
            } else {
                out.noalias() = xd.middleRows(r0, m) * w.topRows(d);
            }
            if (bias)
                out.rowwise() += w.row(d);
        }
    });
}

Eigen::Index DesignMatrix::fusedBlockRows() const
{
    const double bytesPerRow = double(std::max<Eigen::Index>(m_cols, 1)) * (m_precision == Precision::Mixed ? 4.0 : 8.0);
    return std::clamp<Eigen::Index>(Eigen::Index(524288.0 / bytesPerRow), 32, 4096);
}

Eigen::MatrixXd DesignMatrix::productCross(const Eigen::MatrixXd& w, bool bias, const BlockLink& link,
                                           double* linkSum) const
{
    const Eigen::Index n = m_rows, d = m_cols, k = w.cols();
    if (w.rows() != d + (bias ? 1 : 0))
        throw std::invalid_argument("design matrix: weights have " + std::to_string(w.rows()) + " rows, expected " +
                                    std::to_string(d + (bias ? 1 : 0)));
    const bool mixed = m_precision == Precision::Mixed;
    const Eigen::Index parts = partCount(n);
    const Eigen::Index per = (n + parts - 1) / parts;
    const Eigen::Index block = fusedBlockRows();
    const Eigen::MatrixXf wf = mixed ? Eigen::MatrixXf(w.topRows(d).cast<float>()) : Eigen::MatrixXf();
    const auto xd = doubleView();
    std::vector<Eigen::MatrixXd> cs(static_cast<std::size_t>(parts));
    std::vector<Eigen::RowVectorXd> rsums(static_cast<std::size_t>(parts));
    std::vector<double> sums(static_cast<std::size_t>(parts), 0.0);
    forParts(parts, [&](Eigen::Index p) {
        Eigen::MatrixXd& cd = cs[std::size_t(p)];
        Eigen::RowVectorXd& rs = rsums[std::size_t(p)];
        cd.setZero(d, k);
        rs.setZero(k);
        double sum = 0.0;
        Eigen::MatrixXd z;
        Eigen::MatrixXf zf, rf, cf;
        const Eigen::Index r0 = p * per, r1 = std::min(n, r0 + per);
        for (Eigen::Index s = r0; s < r1; s += block) {
            if (pollStop())
                return;
            const Eigen::Index m = std::min(block, r1 - s);
            if (mixed) {
                const auto xb = m_float.middleRows(s, m);
                zf.noalias() = xb * wf;
                z = zf.cast<double>();
            } else {
                z.noalias() = xd.middleRows(s, m) * w.topRows(d);
            }
            if (bias)
                z.rowwise() += w.row(d);
            sum += link(s, z);
            if (mixed) {
                rf = z.cast<float>();
                cf.noalias() = m_float.middleRows(s, m).transpose() * rf;
                cd += cf.cast<double>();
            } else {
                cd.noalias() += xd.middleRows(s, m).transpose() * z;
            }
            if (bias)
                rs += z.colwise().sum();
        }
        sums[std::size_t(p)] = sum;
    });
    for (std::size_t p = 1; p < std::size_t(parts); ++p) {
        cs[0] += cs[p];
        rsums[0] += rsums[p];
        sums[0] += sums[p];
    }
    if (linkSum)
        *linkSum = sums[0];
    Eigen::MatrixXd c = std::move(cs[0]);
    if (bias) {
        c.conservativeResize(d + 1, Eigen::NoChange);
        c.row(d) = rsums[0];
    }
    return c;
}

} // namespace tb::train
