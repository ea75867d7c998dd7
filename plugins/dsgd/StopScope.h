#pragma once
/// @file StopScope.h
/// A trainer's copy of the run's stop token, valid exactly while fit() runs.

#include <trainbench/StopToken.h>

namespace tb::dsgd {

/// Sets @p token to the run's token for the scope of fit() and clears it on the way out:
/// predict() polls it during the host's checkpoint evaluations, and must not poll a token
/// whose source (the host's run context) is gone after the run.
class StopScope {
public:
    StopScope(StopToken& token, StopToken run) : m_token(token) { m_token = run; }
    ~StopScope() { m_token = StopToken(); }
    StopScope(const StopScope&) = delete;
    StopScope& operator=(const StopScope&) = delete;

private:
    StopToken& m_token;
};

} // namespace tb::dsgd
