#pragma once
/// @file FuzzSupport.h
/// What every harness shares: a DataError is the loaders' answer to bad input and fine; any
/// other exception (or a crash, a sanitizer report, a hang) is a bug the fuzzer must report.

#include <data/DataError.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace tb::fuzz {

/// Runs @p fn; returns normally for success or DataError, aborts (a finding) for anything else.
template <typename Fn> void expectDataErrorOnly(Fn fn)
{
    try {
        fn();
    } catch (const tb::data::DataError& e) {
        // The message is the product here: it must be a complete C string (no cut at a NUL).
        const char* what = e.what();
        if (!what || !*what)
            std::abort();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "not a DataError: %s\n", e.what());
        std::abort();
    }
}

} // namespace tb::fuzz
