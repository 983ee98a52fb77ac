// The level_zero backend: tack::device("level_zero"), generated OpenCL C
// compiled by libocloc to SPIR-V and launched through the Level Zero loader,
// both loaded at run time.
#pragma once

#include "runtime/devices/backend.hpp"

#include <memory>

namespace tack::backends::level_zero {
using namespace tack::runtime;
// Throws BackendUnavailable without a loader, driver or device (libocloc is
// needed from the first compile that misses the disk cache), and
// InvalidArgument for a partial set of external handles.
std::shared_ptr<Backend> make_level_zero_backend(const DeviceOptions& options);
}  // namespace tack::backends::level_zero
