#include "FeatureMap.h"

#include "DesignMatrix.h"

#include <numerics/LeastSquares.h>

#include <trainbench/Seeds.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <cmath>
#include <stdexcept>

namespace tb::train {

bool FeatureMap::fit(const Eigen::Ref<const Eigen::MatrixXd>& x, const FeatureMapConfig& config, std::uint64_t seed,
                     const FeatureMapKeys& keys, StopToken stop, FeatureMapFit* info, Eigen::MatrixXd& projected)
{
    FeatureMapFit found;
    projected.resize(0, 0);
    m_config = config;
    m_seed = seed;
    m_inputs = x.cols();
    m_basis.resize(0, 0);
    m_mean.resize(0);
    m_shift.resize(0);
    m_bandwidth = 1.0;
    const Eigen::Index n = x.rows(), d = x.cols();
    if (config.pca > d)
        throw FeatureMapError(keys.pca, keys.name(keys.pca) + " asks for " + std::to_string(config.pca) +
                                            " principal components but the data have " + std::to_string(d) + " inputs");
    if (config.pca > 0) {
        // The second moment XᵀX/n (minus μμᵀ when centred): one parallel, stoppable Gram.
        DesignMatrix design(x, Precision::Double, false, false);
        design.setStopToken(stop);
        Eigen::MatrixXd c = design.gram(false);
        if (design.stopped())
            return false;
        c /= double(n);
        if (config.pcaCenter) {
            m_mean = x.colwise().mean().transpose();
            c.noalias() -= m_mean * m_mean.transpose();
        }
        const auto eig = num::symmetricEigen(c, true, stop);
        if (!eig)
            return false;
        const Eigen::Index q = config.pca;
        m_basis.resize(d, q);
        for (Eigen::Index j = 0; j < q; ++j) {
            // Descending order; each direction's largest entry positive (a fixed sign).
            Eigen::VectorXd v = eig->vectors.col(d - 1 - j);
            Eigen::Index at = 0;
            v.cwiseAbs().maxCoeff(&at);
            m_basis.col(j) = v(at) < 0 ? Eigen::VectorXd(-v) : v;
        }
        if (config.pcaCenter)
            m_shift = m_mean.transpose() * m_basis;
        const double total = eig->values.cwiseMax(0.0).sum();
        const double kept = eig->values.tail(q).cwiseMax(0.0).sum();
        found.pcaDimensions = q;
        found.pcaCentred = config.pcaCenter;
        found.varianceKept = total > 0 ? kept / total : 1.0;
        if (!project(x, projected, stop))
            return false;
    }
    if (info)
        *info = found;
    if (config.raw)
        return true;
    const Eigen::Index q = projectedInputs();
    if (config.kind == FeatureKind::RawSubset) {
        if (config.count > q)
            throw FeatureMapError(keys.count, keys.name(keys.count) + " (" + std::to_string(config.count) +
                                                  ") exceeds the " + std::to_string(q) +
                                                  (projects() ? " principal components" : " inputs") +
                                                  " that " + keys.kind + " = raw_subset draws from");
        return true;
    }
    if (config.bandwidthRule == BandwidthRule::Fixed) {
        m_bandwidth = config.bandwidth;
    } else {
        // Distances between projected rows: the distances the features see.
        const double median = projects() ? medianDistance(projected, config.medianSample, deriveSeed(seed, kMedianStream))
                                         : medianDistance(x, config.medianSample, deriveSeed(seed, kMedianStream));
        if (!(median > 0))
            throw FeatureMapError(keys.bandwidthRule,
                                  keys.name(keys.bandwidthRule) +
                                      " = median: the median pairwise distance of the sampled training rows is 0 "
                                      "(they are all equal); use " + keys.bandwidthRule + " = fixed");
        m_bandwidth = config.bandwidth * median;
        found.hasMedian = true;
        found.medianDistance = median;
    }
    found.hasBandwidth = true;
    found.bandwidth = m_bandwidth;
    if (info)
        *info = found;
    return true;
}

bool FeatureMap::project(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::MatrixXd& z, StopToken stop) const
{
    if (x.cols() != m_inputs)
        throw std::invalid_argument("feature map: the data have " + std::to_string(x.cols()) +
                                    " inputs, the map was fitted on " + std::to_string(m_inputs));
    if (!projects()) {
        z = x;
        return true;
    }
    const Eigen::Index n = x.rows();
    z.resize(n, m_basis.cols());
    std::atomic<bool> stopped{false};
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, (n + kRowBlock - 1) / kRowBlock, 1),
                      [&](const tbb::blocked_range<Eigen::Index>& r) {
                          for (Eigen::Index b = r.begin(); b < r.end(); ++b) {
                              if (stop.stopRequested()) {
                                  stopped = true;
                                  return;
                              }
                              const Eigen::Index r0 = b * kRowBlock, m = std::min(kRowBlock, n - r0);
                              auto out = z.middleRows(r0, m);
                              out.noalias() = x.middleRows(r0, m) * m_basis;
                              if (m_shift.size() > 0)
                                  out.rowwise() -= m_shift;
                          }
                      });
    return !stopped;
}

RandomFeatures FeatureMap::block(Eigen::Index b, Eigen::Index count) const
{
    RandomFeatures f;
    f.kind = m_config.kind;
    f.inputs = projectedInputs();
    f.count = count;
    f.bandwidth = m_bandwidth;
    f.seed = deriveSeed(m_seed, kBlockStream + std::uint64_t(b));
    f.normalise = true;
    return f;
}

bool FeatureMap::features(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::MatrixXd& out, StopToken stop) const
{
    if (m_config.raw)
        return project(x, out, stop);
    if (!projects()) {
        if (x.cols() != m_inputs)
            return project(x, out, stop); // throws the shape message
        return block(0, m_config.count).transform(x, out, stop);
    }
    Eigen::MatrixXd z;
    if (!project(x, z, stop))
        return false;
    return block(0, m_config.count).transform(z, out, stop);
}

} // namespace tb::train
