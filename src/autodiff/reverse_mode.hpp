// Reverse mode: a typed kernel's adjoint, made by autodiff::adjoint (docs/autodiff.md).
#pragma once

#include "ir/ir.hpp"

namespace tack::autodiff {

// The adjoint of a typed kernel whose parameters end with one gradient array per primal array parameter
// (Param::gradient_of). Each work-item replays its forward work without the stores (reading the arrays as the
// kernel left them), then walks its statements backwards, adding into the gradients of the arrays it read the
// gradients of the arrays it wrote, which it clears where its stores overwrote the value. A loop whose carried
// Vars its backward sweep needs is recomputed from its entry for each iteration (O(n^2) replays for n
// iterations, no memory); other loops run backwards once. Throws NotDifferentiable (analysis.hpp).
ir::Kernel adjoint(const ir::Kernel& typed);

}  // namespace tack::autodiff
