// The metal backend: tack::device("metal"), generated MSL compiled at run time
// by Metal and launched on the system default device's one command queue.
// Built on Apple platforms only (TACK_HAVE_METAL); the implementation is
// Objective-C++ (the .mm files beside this header).
#pragma once

#include "runtime/devices/backend.hpp"

#include <tack/device.hpp>

#include <memory>

namespace tack::backends::metal {
using namespace tack::runtime;
// Throws BackendUnavailable when the system has no Metal device. Metal takes no options.
std::shared_ptr<Backend> make_metal_backend(const DeviceOptions& options);
}  // namespace tack::backends::metal
