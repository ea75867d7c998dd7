#pragma once
/// @file ExpectDataError.h
/// For the data tests: the DataError a call throws, so a test can assert on the file, line, key
/// and message it names.

#include <data/DataError.h>

namespace tb::testsupport {

/// Runs @p fn and returns the DataError it throws; if it throws none, a DataError whose message
/// is "NO ERROR THROWN" (so the test's assertion on the message fails and says why).
template <typename Fn>
tb::data::DataError expectError(Fn fn)
{
    try {
        fn();
    } catch (const tb::data::DataError& e) {
        return e;
    }
    return tb::data::DataError({}, -1, -1, {}, {}, "NO ERROR THROWN");
}

} // namespace tb::testsupport
