#include "Spread.h"

#include <numerics/Metrics.h>

#include <algorithm>
#include <cmath>

namespace tb::bench {

Spread Spread::of(const std::vector<double>& values)
{
    std::vector<double> v;
    for (double x : values)
        if (!std::isnan(x))
            v.push_back(x);
    Spread s;
    if (v.empty())
        return s;
    const num::MeanStd m = num::meanStd(v);
    s.mean = m.mean;
    s.std = m.std;
    s.count = m.count;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    s.median = v[v.size() / 2];
    return s;
}

QString Spread::text(int decimals, double scale) const
{
    return QStringLiteral("%1 ± %2 (%3 … %4)")
        .arg(scale * mean, 0, 'f', decimals)
        .arg(scale * std, 0, 'f', decimals)
        .arg(scale * min, 0, 'f', decimals)
        .arg(scale * max, 0, 'f', decimals);
}

} // namespace tb::bench
