// Use counts and fusible products of one statement.
#include "codegen/statement_uses.hpp"

#include <vector>

namespace tack::codegen {

StatementUses statement_uses(std::initializer_list<const ir::Expr*> roots, bool fp_contract) {
  StatementUses out;
  std::unordered_map<const ir::ExprNode*, const ir::ExprNode*> parent;
  std::vector<const ir::ExprNode*> stack;
  auto visit = [&](const ir::Expr& e, const ir::ExprNode* from) {
    if (!e) return;
    if (out.uses[e.get()]++ == 0) {
      parent[e.get()] = from;
      stack.push_back(e.get());
    }
  };
  for (const ir::Expr* r : roots) visit(*r, nullptr);
  while (!stack.empty()) {
    const ir::ExprNode* n = stack.back();
    stack.pop_back();
    switch (n->kind) {
      case ir::ExprKind::Op: {
        const auto* o = static_cast<const ir::Op*>(n);
        for (int i = 0; i < o->arity(); ++i) visit(o->args[static_cast<std::size_t>(i)], n);
        break;
      }
      case ir::ExprKind::Select: {
        const auto* s = static_cast<const ir::Select*>(n);
        visit(s->cond, n);
        visit(s->if_true, n);
        visit(s->if_false, n);
        break;
      }
      case ir::ExprKind::Cast: visit(static_cast<const ir::Cast*>(n)->value, n); break;
      case ir::ExprKind::Load: visit(static_cast<const ir::Load*>(n)->index, n); break;
      case ir::ExprKind::TexSample: {
        const auto* t = static_cast<const ir::TexSample*>(n);
        visit(t->u, n);
        visit(t->v, n);
        visit(t->w, n);
        break;
      }
      default: break;
    }
  }
  if (!fp_contract) return out;
  for (const auto& [n, count] : out.uses) {
    if (count != 1 || n->kind != ir::ExprKind::Op || !is_float(n->type.dtype)) continue;
    if (static_cast<const ir::Op*>(n)->op != ir::OpCode::Mul) continue;
    const ir::ExprNode* p = parent[n];
    if (!p || p->kind != ir::ExprKind::Op || p->type.dtype != n->type.dtype) continue;
    ir::OpCode pop = static_cast<const ir::Op*>(p)->op;
    if (pop == ir::OpCode::Add || pop == ir::OpCode::Sub) out.fusible.insert(n);
  }
  return out;
}

}  // namespace tack::codegen
