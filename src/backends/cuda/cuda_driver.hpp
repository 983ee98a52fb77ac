// The CUDA driver table as this backend uses it: drivers/cuda_api.hpp's types
// and constants, and api() and check() that end its failures in Tack errors at
// this edge (BackendUnavailable "cuda: <why>" when the driver is unusable,
// BackendError "cuda: <call> failed: <error_text>" for a failed call). Files
// of the backend write `namespace cu = cuda::driver;` and call cu::api().
#pragma once

#include "drivers/cuda_api.hpp"
#include "runtime/diagnostics/driver_errors.hpp"

namespace tack::backends::cuda::driver {
using namespace tack::runtime;
using namespace drivers::cu;

inline const Api& api() {
  // Loaded and cuInit-ed once per process; after that a pointer test, no allocation (launches read it).
  return usable(&drivers::cu::load, "cuda: ");
}

// Every call's result goes through here, named, so an error always says which API call failed.
inline void check(CUresult code, const char* call) { raise_if_failed(failure(code, call), "cuda: "); }

}  // namespace tack::backends::cuda::driver
