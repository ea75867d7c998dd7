#pragma once
/// @file FeatureCache.h
/// A bounded cache of regenerated random-feature projections (ω and offsets), chunk by chunk.

#include <Eigen/Core>
#include <memory>
#include <vector>

namespace tb::dsgd {

/// Projections of whole chunks of features, kept so that they need not be regenerated from
/// their seeds at every prediction. Exact by construction: an entry holds exactly what
/// RandomFeatures::projection() returned for the chunk's feature range, and is used only for
/// that same range, so results are the same bits with and without the cache.
///
/// Chunks are cached in index order from 0 while the budget lasts (every prediction visits
/// every feature, so a least-recently-used policy would only thrash). Not thread-safe in
/// general; concurrent find()/store() calls for DIFFERENT chunks are safe (each chunk has its
/// own slot, allocated by reset()).
class FeatureCache {
public:
    /// One chunk's projections for features [first, first + count).
    struct Entry {
        Eigen::Index first = 0;
        Eigen::Index count = 0;
        Eigen::MatrixXd omega;   ///< d × columns (columns = count, or count/2 for cos/sin pairs)
        Eigen::VectorXd offset;  ///< columns
        Eigen::MatrixXf omegaF;  ///< omega cast to float (KernelExpansion in Mixed precision), else empty
    };

    /// Empties the cache and sets its budget: chunks 0 … floor(@p capacityBytes /
    /// @p bytesPerChunk) − 1 may be kept. @p capacityBytes ≥ 0 (0 = no cache).
    void reset(double capacityBytes, double bytesPerChunk);

    /// The entry of chunk @p chunk if it holds exactly [first, first + count), else nullptr.
    const Entry* find(Eigen::Index chunk, Eigen::Index first, Eigen::Index count) const;

    /// Moves @p entry into chunk @p chunk's slot if the chunk is within the budget and the slot
    /// is empty or holds fewer features (a chunk that has grown); returns the kept entry, or
    /// nullptr with @p entry untouched.
    const Entry* store(Eigen::Index chunk, Entry&& entry);

    /// Chunks the budget allows.
    Eigen::Index capacityChunks() const { return Eigen::Index(m_slots.size()); }
    /// Bytes held now (the projections of the stored entries).
    double bytes() const;
    /// Drops every entry (the budget stays).
    void clear();

private:
    std::vector<std::unique_ptr<Entry>> m_slots;
};

} // namespace tb::dsgd
