#include "ParetoFront.h"

#include <algorithm>
#include <cmath>

namespace tb::stats {

std::vector<int> ParetoFront::indices(const std::vector<FrontPoint>& points, Better better)
{
    // Work with a value to maximise.
    auto value = [&](int i) { return better == Better::Higher ? points[size_t(i)].value : -points[size_t(i)].value; };
    std::vector<int> order;
    for (int i = 0; i < int(points.size()); ++i)
        if (!std::isnan(points[size_t(i)].cost) && !std::isnan(points[size_t(i)].value))
            order.push_back(i);
    // Cost ascending, value best first, input order last.
    std::stable_sort(order.begin(), order.end(), [&](int i, int j) {
        if (points[size_t(i)].cost != points[size_t(j)].cost)
            return points[size_t(i)].cost < points[size_t(j)].cost;
        return value(i) > value(j);
    });
    std::vector<int> front;
    bool any = false;
    double bestBefore = 0; // best value among points of strictly smaller cost
    for (size_t g = 0; g < order.size();) {
        size_t h = g;
        while (h + 1 < order.size() && points[size_t(order[h + 1])].cost == points[size_t(order[g])].cost)
            ++h;
        const double groupBest = value(order[g]);
        if (!any || groupBest > bestBefore)
            for (size_t k = g; k <= h && value(order[k]) == groupBest; ++k)
                front.push_back(order[k]);
        if (!any || groupBest > bestBefore)
            bestBefore = groupBest;
        any = true;
        g = h + 1;
    }
    return front;
}

} // namespace tb::stats
