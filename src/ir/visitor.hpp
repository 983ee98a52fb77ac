// Walks Tack IR. The default for each node visits its children, so a pass
// overrides only the nodes it cares about.
#pragma once

#include "ir/ir.hpp"

#include <functional>

namespace tack::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);

 protected:
#define TACK_EXPR(Name) virtual void visit(const Name* node);
#define TACK_STMT(Name) virtual void visit(const Name* node);
#include "ir/nodes.def"
};

// Calls f on s and every statement nested in it, parents before children.
void for_each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f);

}  // namespace tack::ir
