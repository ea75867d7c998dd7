#include "FeatureCache.h"

#include <algorithm>
#include <cmath>

namespace tb::dsgd {

void FeatureCache::reset(double capacityBytes, double bytesPerChunk)
{
    m_slots.clear();
    if (!(capacityBytes > 0) || !(bytesPerChunk > 0))
        return;
    const double chunks = std::floor(capacityBytes / bytesPerChunk);
    // The slots themselves are a pointer each: cap them so that a huge budget costs nothing.
    m_slots.resize(std::size_t(std::min(chunks, 1.0e7)));
}

const FeatureCache::Entry* FeatureCache::find(Eigen::Index chunk, Eigen::Index first, Eigen::Index count) const
{
    if (chunk < 0 || chunk >= capacityChunks())
        return nullptr;
    const Entry* e = m_slots[std::size_t(chunk)].get();
    return e && e->first == first && e->count == count ? e : nullptr;
}

const FeatureCache::Entry* FeatureCache::store(Eigen::Index chunk, Entry&& entry)
{
    if (chunk < 0 || chunk >= capacityChunks())
        return nullptr;
    auto& slot = m_slots[std::size_t(chunk)];
    if (slot && slot->count >= entry.count)
        return nullptr;
    slot = std::make_unique<Entry>(std::move(entry));
    return slot.get();
}

double FeatureCache::bytes() const
{
    double b = 0;
    for (const auto& s : m_slots)
        if (s)
            b += 8.0 * double(s->omega.size() + s->offset.size()) + 4.0 * double(s->omegaF.size());
    return b;
}

void FeatureCache::clear()
{
    for (auto& s : m_slots)
        s.reset();
}

} // namespace tb::dsgd
