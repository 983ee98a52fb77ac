// The interpreter as a device: tack::device("interp").
#pragma once

#include "interp/interpreter.hpp"
#include "runtime/devices/backend.hpp"

#include <memory>
#include <vector>

namespace tack::backends::interp {
using namespace tack::runtime;
std::shared_ptr<Backend> make_interp_backend(const DeviceOptions& options);

// The interpreter's view of bound launch arguments (host memory, shapes, scalars).
std::vector<tack::interp::Arg> interp_args(const BoundArg* args, std::size_t count);
}  // namespace tack::backends::interp
