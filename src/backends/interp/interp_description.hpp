// The interp backend's description (runtime/backend_description.hpp), for the registry and tack::inspect.
#pragma once

#include "runtime/backend_description.hpp"

namespace tack::backends::interp {
using namespace tack::runtime;
const BackendDescription& interp_description();
}  // namespace tack::backends::interp
