// The OpenCL table as this backend uses it (alias cl): drivers/opencl_api.hpp's
// types, constants and error names, and the edge that raises Tack errors for
// the driver layer's reports. OpenCL's messages carry no backend prefix:
// BackendUnavailable "<why>", BackendError "<call> failed: <name> (<code>)".
#pragma once

#include "drivers/opencl_api.hpp"
#include "runtime/diagnostics/driver_errors.hpp"

namespace tack::backends::opencl::driver {
using namespace tack::runtime;
using namespace drivers::cl;

inline void check(cl_int code, const char* call) { raise_if_failed(failure(code, call), ""); }
inline const Api& api() { return usable(&drivers::cl::load, ""); }

}  // namespace tack::backends::opencl::driver
