#include "ChartPalette.h"

#include <algorithm>
#include <array>

namespace tb::charts {

namespace {
// Okabe & Ito (2008), "Color Universal Design". Their yellow (#F0E442) is nearly invisible as a thin
// line on white, so grey takes its place. Then eight of Paul Tol's "muted" scheme (Tol 2021,
// "Colour schemes", SRON/EPS/TN/09-002), darker or redder than the first eight so that no two of
// the sixteen are the same hue and lightness; his pale cyan and grey are left out (too close to sky
// blue and grey), his sand comes last (the lightest on white).
constexpr std::array<QRgb, 16> kColours = {
    0x0072B2, // blue
    0xD55E00, // vermillion
    0x009E73, // bluish green
    0xCC79A7, // reddish purple
    0xE69F00, // orange
    0x56B4E9, // sky blue
    0x000000, // black
    0x999999, // grey
    0x332288, // indigo
    0x882255, // wine
    0x999933, // olive
    0x44AA99, // teal
    0xCC6677, // rose
    0x117733, // green
    0xAA4499, // purple
    0xDDCC77, // sand
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
