// Rewrites Tack IR. Each visit returns the node it was given when none of its
// children changed, so unchanged IR stays shared and passes can tell "no change"
// by identity.
#pragma once

#include "ir/ir.hpp"

namespace tack::ir {

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr mutate(const Expr& e);
  virtual Stmt mutate(const Stmt& s);

 protected:
#define TACK_EXPR(Name) virtual Expr visit(const Name* node, const Expr& self);
#define TACK_STMT(Name) virtual Stmt visit(const Name* node, const Stmt& self);
#include "ir/nodes.def"
};

// Applies a mutator to every expression and statement of a kernel's dims and body.
Kernel mutate_kernel(const Kernel& k, IRMutator& m);

}  // namespace tack::ir
