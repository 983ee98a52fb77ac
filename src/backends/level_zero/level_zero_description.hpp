// The level_zero backend's description (runtime/backend_description.hpp), for the registry and tack::inspect.
#pragma once

#include "runtime/backend_description.hpp"

namespace tack::backends::level_zero {
using namespace tack::runtime;
const BackendDescription& level_zero_description();
}  // namespace tack::backends::level_zero
