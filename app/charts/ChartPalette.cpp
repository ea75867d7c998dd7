#include "ChartPalette.h"

#include <algorithm>
#include <array>

namespace tb::charts {

namespace {
// Okabe & Ito (2008), "Color Universal Design". Their yellow (#F0E442) is nearly invisible as a thin
// line on white, so grey takes its place.
constexpr std::array<QRgb, 8> kColours = {
    0x0072B2, // blue
    0xD55E00, // vermillion
    0x009E73, // bluish green
    0xCC79A7, // reddish purple
    0xE69F00, // orange
    0x56B4E9, // sky blue
    0x000000, // black
    0x999999, // grey
};
} // namespace

int ChartPalette::size()
{
    return int(kColours.size());
}

QColor ChartPalette::color(int index)
{
    const int n = size();
    return QColor::fromRgb(kColours[std::size_t(((index % n) + n) % n)]);
}

QColor ChartPalette::translucent(const QColor& c, double alpha)
{
    QColor t = c;
    t.setAlphaF(float(std::clamp(alpha, 0.0, 1.0)));
    return t;
}

} // namespace tb::charts
