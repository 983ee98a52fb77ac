// Before differentiating: a value two statements compute (a D2Q9 step's density and velocity, which every one
// of its nine stores reads) becomes one Let, so both modes differentiate it once, its adjoint the sum over its
// uses, instead of once per statement.
#pragma once

#include "ir/ir.hpp"

namespace tack::autodiff {

// Binds each float expression (an operation, select or cast reading no Var, load or texture) that two or more
// statements of one block share, as one node of the traced DAG, to a Let placed before the first of them.
ir::Kernel share_subexpressions(const ir::Kernel& typed);

}  // namespace tack::autodiff
