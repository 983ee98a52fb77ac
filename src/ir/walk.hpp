// Walking expression DAGs: each distinct node once, and the expressions a
// statement holds itself (not those of the statements nested in it).
#pragma once

#include "ir/ir.hpp"
#include "ir/node_set.hpp"

#include <unordered_set>
#include <vector>

namespace tack::ir {

// Calls f on e and each distinct node below it; `seen` (a std::unordered_set of node addresses, or an
// ir::NodeSet) keeps shared DAGs linear.
template <class Set, class F>
void walk(const Expr& e, Set& seen, F&& f) {
  if (!e || !seen.insert(e.get()).second) return;
  f(e);
  switch (e->kind) {
    case ExprKind::Load: walk(e.as<Load>()->index, seen, f); break;
    case ExprKind::Op:
      for (const Expr& a : e.as<Op>()->args) walk(a, seen, f);
      break;
    case ExprKind::Select: {
      auto n = e.as<Select>();
      walk(n->cond, seen, f);
      walk(n->if_true, seen, f);
      walk(n->if_false, seen, f);
      break;
    }
    case ExprKind::Cast: walk(e.as<Cast>()->value, seen, f); break;
    case ExprKind::TexSample: {
      auto n = e.as<TexSample>();
      walk(n->u, seen, f);
      walk(n->v, seen, f);
      walk(n->w, seen, f);
      break;
    }
    default: break;
  }
}

// The statements of a block with nested Blocks spliced in (a Block is no scope), so
// every Let visible after one of them is bound at the block's top level.
std::vector<Stmt> block_items(const Stmt& block);

// A statement's own expressions (absent ones, such as a missing compare value, included as empty handles).
std::vector<Expr> own_exprs(const Stmt& s);

// The Lets a statement reads, in the statements nested in it too.
std::unordered_set<int> lets_read(const Stmt& s);

// Calls f(array, index) for the array accesses a statement makes itself: its Store, and the Loads in its own
// expressions (not those of the statements it holds). An Atomic's own access is left to the caller.
template <class F>
void for_each_own_access(const Stmt& s, F&& f) {
  if (auto st = s.as<Store>()) f(st->array, st->index);
  std::unordered_set<const ExprNode*> seen;
  for (const Expr& e : own_exprs(s))
    walk(e, seen, [&](const Expr& x) {
      if (auto l = x.as<Load>()) f(l->array, l->index);
    });
}

}  // namespace tack::ir
