#include "StoppingRules.h"

#include <algorithm>

namespace tb::train {

const char* gradientTestName(GradientTest t)
{
    return t == GradientTest::Absolute ? "absolute" : "scaled";
}

bool StoppingRules::gradientConverged(double gradientNorm, double weightNorm) const
{
    if (!(gradientTolerance > 0))
        return false;
    const double scale = gradientTest == GradientTest::Scaled ? std::max(1.0, weightNorm) : 1.0;
    return gradientNorm <= gradientTolerance * scale;
}

bool StoppingRules::smallDecrease(double fOld, double fNew) const
{
    return relativeDecrease > 0 && (fOld - fNew) / std::max(fOld, 1.0) <= relativeDecrease;
}

} // namespace tb::train
