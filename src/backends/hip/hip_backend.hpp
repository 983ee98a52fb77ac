// The hip backend: tack::device("hip"), generated HIP C compiled by hipRTC and
// launched through the HIP runtime, both loaded at run time.
#pragma once

#include "runtime/devices/backend.hpp"

#include <memory>

namespace tack::backends::hip {
using namespace tack::runtime;
// Throws BackendUnavailable when the runtime or a device is missing, or when
// ROCm's code object manager would abort the process (drivers/hip_api.cpp), and
// InvalidArgument for a "device" option that names no device or a bad
// TACK_HIP_ALLOCATOR.
std::shared_ptr<Backend> make_hip_backend(const DeviceOptions& options);
}  // namespace tack::backends::hip
