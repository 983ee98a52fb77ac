// Dead-code elimination on typed Tack IR.
#pragma once

#include "ir/ir.hpp"

namespace tack::passes {

// Removes Lets never referenced (loads included: an unused read has no effect),
// Vars never read with their DeclareVar and Assigns, Ifs and Fors left with nothing
// to do, statements after a Break or Continue, and nested Blocks (spliced into their
// parent). Atomics, barriers and group reductions always stay; a Loop always stays,
// since even an empty one never ends. Let and Var ids keep their numbers.
ir::Kernel dce(const ir::Kernel& k);

}  // namespace tack::passes
