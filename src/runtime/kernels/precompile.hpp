// Compiling ahead of the first call: Kernel::precompile_args and
// tack::precompile (src/api/) hand their kernels and arguments here.
#pragma once

#include "runtime/devices/backend.hpp"
#include "runtime/kernels/kernel_impl.hpp"

#include <tack/compile.hpp>

#include <memory>
#include <span>

namespace tack::runtime {

// The device's backend; InvalidArgument for an empty tack::Device.
const std::shared_ptr<Backend>& precompile_backend(const Device& device);

// Makes the variant a call with arguments of these kinds, dtypes and ranks would use.
void precompile_call(KernelImpl& impl, const std::shared_ptr<Backend>& backend, std::span<const KernelArg> args);

// Every request, traced on this thread, then compiled on `threads` threads (0: one
// per core); rethrows the first request's error after all have run.
void precompile_all(const std::shared_ptr<Backend>& backend, std::span<const PrecompileRequest> requests,
                    int threads);

}  // namespace tack::runtime
