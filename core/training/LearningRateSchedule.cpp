#include "LearningRateSchedule.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tb::train {

double LearningRateSchedule::rate(double t) const
{
    switch (kind) {
    case Kind::Constant:
        return base;
    case Kind::Step:
        return base * std::pow(factor, std::floor(t / every));
    case Kind::Inverse:
        return base / (1.0 + decay * t);
    case Kind::InverseSqrt:
        return base / std::sqrt(1.0 + decay * t);
    case Kind::Diminishing: {
        double alpha = base;
        for (double k = 0; k < std::floor(t); ++k)
            alpha *= 1.0 - decay * alpha;  // the same arithmetic as DiminishingStep::next()
        return alpha;
    }
    }
    return base;
}

DiminishingStep::DiminishingStep(double alpha0, double epsilon) : m_alpha(alpha0), m_epsilon(epsilon)
{
    if (!(alpha0 > 0) || !(epsilon > 0) || !(alpha0 * epsilon < 1))
        throw std::invalid_argument("diminishing step: need α₀ > 0, ε > 0 and ε·α₀ < 1, got α₀ = " +
                                    std::to_string(alpha0) + ", ε = " + std::to_string(epsilon));
}

double DiminishingStep::next()
{
    m_alpha *= 1.0 - m_epsilon * m_alpha;
    ++m_k;
    return m_alpha;
}

} // namespace tb::train
