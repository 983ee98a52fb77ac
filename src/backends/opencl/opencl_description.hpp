// The opencl backend's description (runtime/backend_description.hpp), for the registry and tack::inspect.
#pragma once

#include "runtime/backend_description.hpp"

namespace tack::backends::opencl {
using namespace tack::runtime;
const BackendDescription& opencl_description();
}  // namespace tack::backends::opencl
