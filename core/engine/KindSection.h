#pragma once
/// @file KindSection.h
/// What an experiment kind reads from an experiment file beyond the keys every kind has: opaque to
/// the engine, which carries it in ExperimentSpec::section and hands it back to the kind.

namespace tb {

/// The parsed section of one kind (a noise sweep's σ grid and Monte-Carlo count, a param sweep's
/// grid, a tuned comparison's budget). Each kind derives its own type in its folder
/// (core/engine/kinds/<kind>/) and alone knows it: ExperimentKind::parseSection() makes it,
/// ExperimentSpec::sectionAs() gives it back to the kind. Immutable once parsed; shared by copies
/// of the spec.
struct KindSection {
    virtual ~KindSection() = default;
};

} // namespace tb
