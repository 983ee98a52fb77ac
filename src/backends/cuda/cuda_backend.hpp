// The cuda backend: tack::device("cuda"), generated CUDA C compiled by NVRTC
// and launched through the driver API, both loaded at run time.
#pragma once

#include "runtime/devices/backend.hpp"

#include <memory>

namespace tack::backends::cuda {
using namespace tack::runtime;
// Throws BackendUnavailable when the driver, NVRTC-independent setup or a device
// is missing (NVRTC is needed from the first compile), and InvalidArgument for
// a "device" option (or TACK_CUDA_DEVICE) that names no device.
std::shared_ptr<Backend> make_cuda_backend(const DeviceOptions& options);
}  // namespace tack::backends::cuda
