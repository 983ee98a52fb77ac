// The interpreter as a device: tack::device("interp").
#pragma once

#include "runtime/backend.hpp"

#include <memory>

namespace tack::runtime {
std::shared_ptr<Backend> make_interp_backend(const DeviceOptions& options);
}
