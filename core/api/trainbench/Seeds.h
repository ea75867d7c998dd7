#pragma once
/// @file Seeds.h
/// Deterministic derivation of independent random streams from one run seed.

#include <cstdint>

namespace tb {

/// SplitMix64 finaliser: a bijective mix of 64 bits.
constexpr std::uint64_t mix64(std::uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// Seed of stream @p index derived from @p seed (e.g. weights = 0, shuffling = 1, stage t = 2+t).
constexpr std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t index)
{
    return mix64(mix64(seed) ^ mix64(index + 0x632be59bd9b4e019ULL));
}

} // namespace tb
