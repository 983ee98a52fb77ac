// One call of a kernel: tack::Kernel::launch (src/api/kernel.cpp) hands its
// arguments here.
#pragma once

#include "runtime/kernels/kernel_impl.hpp"

#include <tack/kernel.hpp>

#include <span>

namespace tack::runtime {

// Checks and binds the arguments, finds or compiles the variant and queues the
// launch on the arguments' device (the default device when none has one).
void launch(KernelImpl& impl, std::span<const KernelArg> args);

}  // namespace tack::runtime
