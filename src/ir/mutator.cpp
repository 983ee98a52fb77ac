// Default rebuilding for IRMutator: a node is rebuilt only when a child changed.
#include "ir/mutator.hpp"

namespace tack::ir {

Expr IRMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
  // clang-format off
#define TACK_EXPR(Name) case ExprKind::Name: return visit(e.as<Name>(), e);
#include "ir/nodes.def"
    // clang-format on
  }
  return e;
}

Stmt IRMutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
  // clang-format off
#define TACK_STMT(Name) case StmtKind::Name: return visit(s.as<Name>(), s);
#include "ir/nodes.def"
    // clang-format on
  }
  return s;
}

Expr IRMutator::visit(const Const*, const Expr& self) { return self; }
Expr IRMutator::visit(const ScalarParam*, const Expr& self) { return self; }
Expr IRMutator::visit(const ArrayDim*, const Expr& self) { return self; }
Expr IRMutator::visit(const LoopIndex*, const Expr& self) { return self; }
Expr IRMutator::visit(const GroupValue*, const Expr& self) { return self; }
Expr IRMutator::visit(const LetRef*, const Expr& self) { return self; }
Expr IRMutator::visit(const VarRef*, const Expr& self) { return self; }
Expr IRMutator::visit(const Load* n, const Expr& self) {
  Expr i = mutate(n->index);
  return i.same_as(n->index) ? self : Load::make(n->type, n->array, i, n->subscripts);
}
Expr IRMutator::visit(const Op* n, const Expr& self) {
  Expr a = mutate(n->args[0]), b = mutate(n->args[1]), c = mutate(n->args[2]);
  if (a.same_as(n->args[0]) && b.same_as(n->args[1]) && c.same_as(n->args[2])) return self;
  return Op::make(n->type, n->op, a, b, c);
}
Expr IRMutator::visit(const Select* n, const Expr& self) {
  Expr c = mutate(n->cond), a = mutate(n->if_true), b = mutate(n->if_false);
  if (c.same_as(n->cond) && a.same_as(n->if_true) && b.same_as(n->if_false)) return self;
  return Select::make(n->type, c, a, b);
}
Expr IRMutator::visit(const Cast* n, const Expr& self) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? self : Cast::make(n->type, v);
}
Expr IRMutator::visit(const TexSample* n, const Expr& self) {
  Expr u = mutate(n->u), v = mutate(n->v), w = mutate(n->w);
  if (u.same_as(n->u) && v.same_as(n->v) && w.same_as(n->w)) return self;
  return TexSample::make(n->type, n->param, u, v, w);
}

Stmt IRMutator::visit(const Block* n, const Stmt& self) {
  std::vector<Stmt> out;
  out.reserve(n->stmts.size());
  bool changed = false;
  for (const Stmt& s : n->stmts) {
    Stmt m = mutate(s);
    changed |= !m.same_as(s);
    if (!m) continue;  // a mutator drops a statement by returning an empty Stmt
    out.push_back(std::move(m));
  }
  return changed ? Block::make(std::move(out), n->loc) : self;
}
Stmt IRMutator::visit(const Let* n, const Stmt& self) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? self : Let::make(n->id, v, n->loc);
}
Stmt IRMutator::visit(const DeclareVar* n, const Stmt& self) {
  Expr v = mutate(n->init);
  return v.same_as(n->init) ? self : DeclareVar::make(n->id, v, n->loc);
}
Stmt IRMutator::visit(const Assign* n, const Stmt& self) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? self : Assign::make(n->id, v, n->loc);
}
Stmt IRMutator::visit(const Store* n, const Stmt& self) {
  Expr i = mutate(n->index), v = mutate(n->value);
  if (i.same_as(n->index) && v.same_as(n->value)) return self;
  return Store::make(n->array, i, n->subscripts, v, n->loc);
}
Stmt IRMutator::visit(const Atomic* n, const Stmt& self) {
  Expr i = mutate(n->index), v = mutate(n->value), c = mutate(n->compare);
  if (i.same_as(n->index) && v.same_as(n->value) && c.same_as(n->compare)) return self;
  return Atomic::make(n->op, n->array, i, n->subscripts, v, c, n->result, n->loc);
}
Stmt IRMutator::visit(const If* n, const Stmt& self) {
  Expr c = mutate(n->cond);
  Stmt t = mutate(n->then_case), e = mutate(n->else_case);
  if (c.same_as(n->cond) && t.same_as(n->then_case) && e.same_as(n->else_case)) return self;
  if (!t) t = Block::make({}, n->loc);
  return If::make(c, t, e, n->loc);
}
Stmt IRMutator::visit(const For* n, const Stmt& self) {
  Expr lo = mutate(n->lo), hi = mutate(n->hi);
  Stmt b = mutate(n->body);
  if (lo.same_as(n->lo) && hi.same_as(n->hi) && b.same_as(n->body)) return self;
  if (!b) b = Block::make({}, n->loc);
  return For::make(n->index, lo, hi, b, n->loc);
}
Stmt IRMutator::visit(const Loop* n, const Stmt& self) {
  Stmt b = mutate(n->body);
  if (b.same_as(n->body)) return self;
  if (!b) b = Block::make({}, n->loc);
  return Loop::make(b, n->loc);
}
Stmt IRMutator::visit(const Break*, const Stmt& self) { return self; }
Stmt IRMutator::visit(const Continue*, const Stmt& self) { return self; }
Stmt IRMutator::visit(const Barrier*, const Stmt& self) { return self; }
Stmt IRMutator::visit(const GroupReduce* n, const Stmt& self) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? self : GroupReduce::make(n->op, v, n->result, n->loc);
}
Stmt IRMutator::visit(const Print* n, const Stmt& self) {
  std::vector<Expr> args;
  bool same = true;
  for (const Expr& a : n->args) {
    args.push_back(mutate(a));
    same = same && args.back().same_as(a);
  }
  return same ? self : Print::make(n->format, std::move(args), n->loc);
}

Kernel mutate_kernel(const Kernel& k, IRMutator& m) {
  Kernel out = k;
  for (Expr& d : out.dims) d = m.mutate(d);
  out.body = m.mutate(k.body);
  if (!out.body) out.body = Block::make({});
  return out;
}

}  // namespace tack::ir
