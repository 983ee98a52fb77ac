// The Level Zero loader table as this backend uses it (alias ze): the driver
// layer's types and constants (drivers/level_zero_api.hpp) and the edge where
// its reports become Tack errors: BackendUnavailable "level_zero: <why>",
// BackendError "level_zero: <call> failed: <error_text>".
#pragma once

#include "drivers/level_zero_api.hpp"
#include "runtime/diagnostics/driver_errors.hpp"

namespace tack::backends::level_zero::driver {
using namespace tack::runtime;
using namespace drivers::ze;

inline void check(ze_result_t code, const char* call) {
  // Destructors skip their calls once the process exits (exiting()), so this
  // never reports a driver that has already torn itself down.
  raise_if_failed(failure(code, call), "level_zero: ");
}

inline const Api& api() { return usable(&drivers::ze::load, "level_zero: "); }

}  // namespace tack::backends::level_zero::driver
