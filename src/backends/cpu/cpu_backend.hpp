// The CPU as a device: tack::device("cpu"), LLVM-compiled kernels run by a
// persistent thread pool.
#pragma once

#include "runtime/backend.hpp"

#include <memory>

namespace tack::runtime {
std::shared_ptr<Backend> make_cpu_backend(const DeviceOptions& options);
// Starts making the CPU's compiler in the background (see cpu::warm_up_shared_jit).
void warm_up_cpu_backend();
}  // namespace tack::runtime
