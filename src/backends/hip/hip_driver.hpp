// The HIP runtime table as this backend uses it: drivers/hip_api.hpp's types
// and constants, with api() and check() raising Tack errors where the driver
// layer reports failures (BackendUnavailable "hip: <why>"; BackendError
// "hip: <call> failed: <error_text>"). Backend files alias it as hp.
#pragma once

#include "drivers/hip_api.hpp"
#include "runtime/diagnostics/driver_errors.hpp"

namespace tack::backends::hip::driver {
using namespace tack::runtime;
using namespace drivers::hip;

// Loaded once per process; a loaded table costs no allocation, as the launch path needs.
inline const Api& api() { return usable(&drivers::hip::load, "hip: "); }
inline void check(hipError_t code, const char* call) { raise_if_failed(failure(code, call), "hip: "); }

}  // namespace tack::backends::hip::driver
