// The hip backend's description (runtime/backend_description.hpp), for the registry and tack::inspect.
#pragma once

#include "runtime/backend_description.hpp"

namespace tack::backends::hip {
using namespace tack::runtime;
const BackendDescription& hip_description();
}  // namespace tack::backends::hip
