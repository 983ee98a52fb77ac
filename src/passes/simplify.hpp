// Constant folding and exact algebraic identities on typed Tack IR.
#pragma once

#include "ir/ir.hpp"

namespace tack::passes {

// Folds operators, selects and casts of constants with ir::eval_op / eval_cast (so a
// folded kernel computes exactly what the interpreter would), applies identities that
// hold bit for bit under docs/semantics.md, takes the branch of an If with a constant
// condition, drops For loops with a constant empty range, and substitutes a Let whose
// value is a constant into its uses. Nothing else moves across statements. Subtrees
// shared in the input stay shared in the output.
ir::Kernel simplify(const ir::Kernel& k);

}  // namespace tack::passes
