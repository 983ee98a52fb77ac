// The CPU as a device: tack::device("cpu"), LLVM-compiled kernels run by a
// persistent thread pool.
#pragma once

#include "runtime/backend.hpp"

#include <memory>

namespace tack::backends::cpu {
using namespace tack::runtime;
std::shared_ptr<Backend> make_cpu_backend(const DeviceOptions& options);
}  // namespace tack::backends::cpu
