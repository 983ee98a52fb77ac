// The expressions a statement holds itself.
#include "ir/walk.hpp"

namespace tack::ir {

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

}  // namespace tack::ir
