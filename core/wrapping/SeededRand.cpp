#include "SeededRand.h"

#include <cstdlib>

namespace tb::wrap {

std::mutex& SeededRand::mutex()
{
    // Leaked on purpose: a detached library call that was abandoned may still hold it at exit.
    static auto* m = new std::mutex;
    return *m;
}

SeededRand::SeededRand(unsigned seed) : m_lock(mutex())
{
    srand(seed);
}

SeededRand::~SeededRand() = default;

} // namespace tb::wrap
