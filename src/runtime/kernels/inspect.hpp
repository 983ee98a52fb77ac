// tack::inspect (src/api/kernel.cpp) hands its kernel and arguments here.
#pragma once

#include "runtime/kernels/kernel_impl.hpp"

#include <tack/kernel.hpp>

#include <span>
#include <string_view>

namespace tack::runtime {

// The kernel's traced IR, typed IR and generated source for these arguments on
// the named backend (its code generator alone where no device can be made).
Inspection inspect(KernelImpl& impl, std::string_view backend_name, std::span<const KernelArg> args);

}  // namespace tack::runtime
