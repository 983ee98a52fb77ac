// A kernel's derivative kernels (tack::adjoint, tack::jvp): KernelImpls whose IR is their primal's, marked
// for the pipeline's autodiff step (passes/pipeline.cpp), with a gradient or tangent parameter per array.
#pragma once

#include "runtime/kernels/kernel_impl.hpp"

#include <memory>

namespace tack::runtime {

// The derivative `d` of `primal`, made once and shared while it lives: the variants it compiles are reused.
std::shared_ptr<KernelImpl> derived_kernel(const std::shared_ptr<KernelImpl>& primal, ir::Derivative d);

// The name a derivative kernel has: saxpy_adjoint, saxpy_jvp.
std::string derived_name(const std::string& primal, ir::Derivative d);

}  // namespace tack::runtime
