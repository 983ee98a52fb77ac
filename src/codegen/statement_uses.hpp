// Which nodes of one statement's expression trees are shared, and which float
// products may fuse into a sum (docs/semantics.md: a product may contract only when its
// one use is an add or subtract of the same statement and dtype). Every code
// generator asks this per statement: llvm_gen marks those operations
// `contract`, the C-family emitter writes the others unfused. A kernel made with
// fp_contract off (ir::Kernel::fp_contract) has none: nothing may fuse.
#pragma once

#include "ir/ir.hpp"

#include <initializer_list>
#include <unordered_map>
#include <unordered_set>

namespace tack::codegen {

struct StatementUses {
  std::unordered_map<const ir::ExprNode*, int> uses;  // how many parents each node has in the statement
  std::unordered_set<const ir::ExprNode*> fusible;    // float products that may fuse into their sum
};

// Null roots (an absent compare value, ...) are skipped. `fp_contract` is the
// kernel's: false leaves `fusible` empty.
StatementUses statement_uses(std::initializer_list<const ir::Expr*> roots, bool fp_contract);

}  // namespace tack::codegen
