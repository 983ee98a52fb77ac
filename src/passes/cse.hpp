// Common-subexpression elimination inside each statement of typed Tack IR.
#pragma once

#include "ir/ir.hpp"

namespace tack::passes {

// Makes structurally equal pure subexpressions of one statement a single shared node,
// so code generators can count a value's uses (docs/semantics.md never contracts a product
// that has another use). Never merges across statements and never merges Loads.
ir::Kernel cse(const ir::Kernel& k);

}  // namespace tack::passes
