// The expressions a statement holds itself, and the statements of a block.
#include "ir/walk.hpp"

#include "ir/visitor.hpp"

namespace tack::ir {
namespace {
void splice(const Stmt& s, std::vector<Stmt>& out) {
  if (!s) return;
  if (auto b = s.as<Block>()) {
    for (const Stmt& c : b->stmts) splice(c, out);
    return;
  }
  out.push_back(s);
}
}  // namespace

std::vector<Stmt> block_items(const Stmt& block) {
  std::vector<Stmt> out;
  splice(block, out);
  return out;
}

std::vector<Expr> own_exprs(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::Let: return {s.as<Let>()->value};
    case StmtKind::DeclareVar: return {s.as<DeclareVar>()->init};
    case StmtKind::Assign: return {s.as<Assign>()->value};
    case StmtKind::Store: return {s.as<Store>()->index, s.as<Store>()->value};
    case StmtKind::Atomic: return {s.as<Atomic>()->index, s.as<Atomic>()->value, s.as<Atomic>()->compare};
    case StmtKind::If: return {s.as<If>()->cond};
    case StmtKind::For: return {s.as<For>()->lo, s.as<For>()->hi};
    case StmtKind::GroupReduce: return {s.as<GroupReduce>()->value};
    case StmtKind::Print: return s.as<Print>()->args;
    default: return {};
  }
}

std::unordered_set<int> lets_read(const Stmt& s) {
  std::unordered_set<int> out;
  std::unordered_set<const ExprNode*> seen;
  for_each_stmt(s, [&](const Stmt& x) {
    for (const Expr& root : own_exprs(x))
      walk(root, seen, [&](const Expr& e) {
        if (auto r = e.as<LetRef>()) out.insert(r->id);
      });
  });
  return out;
}

}  // namespace tack::ir
