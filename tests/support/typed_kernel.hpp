// A traced kernel typed for given parameter types and optimized, as the
// pipeline hands it to a code generator: for tests of the generators and of
// the analyses they read.
#pragma once

#include "passes/infer_types.hpp"
#include "passes/pipeline.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/kernel_impl.hpp"

#include <tack/tack.hpp>

#include <vector>

namespace tack_test {

inline tack::ir::Kernel typed_kernel(const tack::Kernel& k, const std::vector<tack::passes::ParamType>& types) {
  return tack::passes::optimize(tack::passes::infer_types(tack::detail::Access::impl(k)->traced(), types));
}

}  // namespace tack_test
