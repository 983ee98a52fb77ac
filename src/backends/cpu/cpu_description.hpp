// The cpu backend's description (runtime/backend_description.hpp), for the registry and tack::inspect.
#pragma once

#include "runtime/backend_description.hpp"

namespace tack::backends::cpu {
using namespace tack::runtime;
const BackendDescription& cpu_description();
}  // namespace tack::backends::cpu
