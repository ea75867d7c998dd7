#pragma once
/// @file Spread.h
/// Mean, standard deviation and range of repeated measurements, as the benchmarks print them.

#include <QString>

#include <vector>

namespace tb::bench {

/// Summary of some values: mean, sample standard deviation (0 for one value), minimum,
/// maximum, median and count. NaN values are left out (a seed that never reached a target).
/// A value type.
struct Spread {
    double mean = 0;
    double std = 0;
    double min = 0;
    double max = 0;
    double median = 0;
    int count = 0;

    /// The summary of @p values (all fields 0 when none is a number).
    static Spread of(const std::vector<double>& values);

    /// "mean ± std (min … max)", each times @p scale with @p decimals decimals.
    QString text(int decimals, double scale = 1.0) const;
};

} // namespace tb::bench
