#include "WinTieLoss.h"

#include <algorithm>
#include <cmath>

namespace tb::stats {

WinTieLossResult WinTieLoss::count(const std::vector<double>& a, const std::vector<double>& b, Better better,
                                   double band)
{
    WinTieLossResult r;
    const double bandUsed = std::isfinite(band) && band > 0 ? band : 0.0;
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i])) {
            r.dropped++;
            continue;
        }
        const double scale = std::max(std::fabs(a[i]), std::fabs(b[i]));
        if (a[i] == b[i] || std::fabs(a[i] - b[i]) <= bandUsed * scale)
            r.ties++;
        else if (isBetter(a[i], b[i], better))
            r.wins++;
        else
            r.losses++;
    }
    return r;
}

} // namespace tb::stats
