// The metal backend's description (runtime/backend_description.hpp), for the registry and tack::inspect.
#pragma once

#include "runtime/backend_description.hpp"

namespace tack::backends::metal {
using namespace tack::runtime;
const BackendDescription& metal_description();
}  // namespace tack::backends::metal
