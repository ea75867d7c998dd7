#pragma once
/// @file Better.h
/// Which way a metric improves.

namespace tb::stats {

/// Direction of improvement of a metric: accuracy is Higher, RMSE, loss and time are Lower.
enum class Better { Higher, Lower };

/// True if @p a is strictly better than @p b in direction @p better (NaN is never better).
inline bool isBetter(double a, double b, Better better)
{
    return better == Better::Higher ? a > b : a < b;
}

} // namespace tb::stats
