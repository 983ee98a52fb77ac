// Executes a statement in lock step for the active lanes of a batch.
#pragma once

#include "interp/context.hpp"

namespace tack::interp {

// Runs s for the lanes in mask (which must not be empty). Break and Continue remove lanes from mask, so on
// return mask holds the lanes that go on to the next statement.
void exec_stmt(Context& ctx, const ir::Stmt& s, Mask& mask);

}  // namespace tack::interp
