// The opencl backend: tack::device("opencl"), generated OpenCL C built with
// clBuildProgram and run on any OpenCL platform (PoCL on a CPU in the tests).
#pragma once

#include "runtime/devices/backend.hpp"

#include <memory>

namespace tack::backends::opencl {
using namespace tack::runtime;
// Throws BackendUnavailable when OpenCL, a platform or a device is missing, and
// InvalidArgument for a "device" option (or TACK_OPENCL_DEVICE) that names no device.
std::shared_ptr<Backend> make_opencl_backend(const DeviceOptions& options);
}  // namespace tack::backends::opencl
