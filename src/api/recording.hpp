// The Tape's hook in Kernel::launch (src/api/kernel.cpp): whether this thread records, and a recorded launch.
#pragma once

#include "runtime/kernels/kernel_impl.hpp"

#include <tack/kernel.hpp>

#include <memory>
#include <span>

namespace tack::detail {

// Whether a Tape records this thread's launches now.
bool recording();

// Launches `impl` with `args` as runtime::launch does, and keeps it on the recording Tape when an array argument
// requires a gradient.
void launch_recorded(const std::shared_ptr<runtime::KernelImpl>& impl, std::span<const KernelArg> args);

}  // namespace tack::detail
