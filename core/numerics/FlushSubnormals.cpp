#include "FlushSubnormals.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace tb::num {

namespace {
#if defined(__SSE2__)
constexpr unsigned kFlushToZero = 0x8000;     // MXCSR.FTZ: subnormal results become ±0
constexpr unsigned kDenormalsAreZero = 0x40;  // MXCSR.DAZ: subnormal operands read as ±0
#endif
} // namespace

FlushSubnormals::FlushSubnormals() noexcept
{
#if defined(__SSE2__)
    m_saved = _mm_getcsr();
    _mm_setcsr(m_saved | kFlushToZero | kDenormalsAreZero);
#endif
}

FlushSubnormals::~FlushSubnormals()
{
#if defined(__SSE2__)
    _mm_setcsr(m_saved);
#endif
}

} // namespace tb::num
