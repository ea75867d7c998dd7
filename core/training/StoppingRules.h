#pragma once
/// @file StoppingRules.h
/// When a run ends before its budget of epochs or iterations: the gradient-norm test, the
/// relative-decrease test over a window, early stopping on held-out rows. One struct for every
/// family (read from the shared stopping block, trainbench/toolkit/StoppingParams.h); each
/// algorithm applies the rules it offers. No Qt.

namespace tb::train {

/// How a gradient-norm tolerance is tested.
enum class GradientTest {
    Scaled,  ///< ‖∇f‖₂ ≤ tolerance·max(1, ‖w‖₂): LBFGS++'s test, independent of the weights' scale
    Absolute ///< ‖∇f‖₂ ≤ tolerance: the plain test (Palagi & Seccia's criterion i)
};

/// "scaled" or "absolute".
const char* gradientTestName(GradientTest t);

/// The rules. Plain data: copy freely; the const methods are thread-safe. Ranges are the
/// schema's (StoppingParams.h); every rule at 0 is off.
struct StoppingRules {
    /// Epochs (passes over the training rows) at most; fractional where an algorithm allows
    /// it. 0 = the algorithm does not count epochs.
    double epochs = 0;
    /// Iterations at most (L-BFGS iterations, GLS iterations …). 0 = not counted.
    long long iterations = 0;
    /// Ends when the gradient-norm test holds (gradientTest). 0 = off.
    double gradientTolerance = 0;
    GradientTest gradientTest = GradientTest::Scaled;
    /// Ends when f decreased by at most this over the last decreaseWindow iterations, relative
    /// to the older value: (f_old − f_new) / max(f_old, 1) ≤ relativeDecrease. 0 = off.
    double relativeDecrease = 0;
    /// Iterations over which relativeDecrease is measured, ≥ 1 (1 = every iteration).
    int decreaseWindow = 1;
    /// Early stopping: share of the training rows held out (seeded) and watched; 0 = off.
    double validationFraction = 0;
    /// Early stopping: epochs without a better held-out loss before the run ends, ≥ 1.
    int patience = 5;

    /// True when the gradient of norm @p gradientNorm at weights of norm @p weightNorm passes
    /// the gradient test (false when the test is off).
    bool gradientConverged(double gradientNorm, double weightNorm) const;
    /// True when the decrease from @p fOld to @p fNew is too small (false when the test is off).
    bool smallDecrease(double fOld, double fNew) const;
    /// The tolerance LBFGS++'s own (scaled) test should use: gradientTolerance with the scaled
    /// test, else 0 (the caller tests absolute norms itself).
    double scaledTolerance() const { return gradientTest == GradientTest::Scaled ? gradientTolerance : 0.0; }
};

} // namespace tb::train
