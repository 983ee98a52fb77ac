// Evaluates a pure expression for the active lanes of a batch.
#pragma once

#include "interp/context.hpp"

namespace tack::interp {

// Writes e's value (canonical Bits of e's dtype) to out[lane] for every active lane; other lanes are untouched.
// Loads read memory for active lanes only, in lane order; ctx.loc names the statement for errors.
void eval_expr(Context& ctx, const ir::Expr& e, const Mask& mask, ir::Bits* out);

}  // namespace tack::interp
