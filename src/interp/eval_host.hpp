// Evaluating a launch range on the host from whatever holds the arguments: the
// interpreter reads its own Args, the runtime reads bound launch arguments, and
// neither needs the other's view of them.
#pragma once

#include "ir/ir.hpp"
#include "ir/scalar_ops.hpp"

#include <cstdint>
#include <functional>

namespace tack::interp {

// Where a launch range's inputs come from.
struct HostInputs {
  // Scalar parameter `param`, as Bits in its dtype's canonical form.
  std::function<ir::Bits(int param)> scalar;
  // Array parameter `param`'s extent in dimension `dim`, or its size for ir::ArrayDim::kSize.
  std::function<std::int64_t(int param, int dim)> extent;
};

// Evaluates a pure expression that uses only ScalarParam, ArrayDim, Const, Op, Select, Cast (a launch range);
// any other node throws tack::InvalidArgument.
ir::Bits eval_host(const ir::Expr& e, const HostInputs& inputs);

}  // namespace tack::interp
