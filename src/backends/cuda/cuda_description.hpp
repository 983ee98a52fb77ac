// The cuda backend's description (runtime/backend_description.hpp), for the registry and tack::inspect.
#pragma once

#include "runtime/backend_description.hpp"

namespace tack::backends::cuda {
using namespace tack::runtime;
const BackendDescription& cuda_description();
}  // namespace tack::backends::cuda
