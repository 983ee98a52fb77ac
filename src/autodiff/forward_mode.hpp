// Forward mode: a typed kernel's tangent (Jacobian-vector product) kernel, made by autodiff::jvp (docs/autodiff.md).
#pragma once

#include "ir/ir.hpp"

namespace tack::autodiff {

// The kernel itself with, beside each float value, its derivative along the tangent arrays: its parameters end
// with one tangent array per primal array parameter (Param::gradient_of). It does the primal's work too (stores
// included) and writes, where the primal stores y, the tangent of y into y's tangent array: one launch gives
// J v. Throws NotDifferentiable (analysis.hpp).
ir::Kernel jvp(const ir::Kernel& typed);

}  // namespace tack::autodiff
