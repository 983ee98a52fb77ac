// Default traversal for IRVisitor.
#include "ir/visitor.hpp"

namespace tack::ir {

void IRVisitor::visit(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
#define TACK_EXPR(Name)  \
  case ExprKind::Name:   \
    visit(e.as<Name>()); \
    return;
#include "ir/nodes.def"
  }
}

void IRVisitor::visit(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
#define TACK_STMT(Name)  \
  case StmtKind::Name:   \
    visit(s.as<Name>()); \
    return;
#include "ir/nodes.def"
  }
}

void IRVisitor::visit(const Const*) {}
void IRVisitor::visit(const ScalarParam*) {}
void IRVisitor::visit(const ArrayDim*) {}
void IRVisitor::visit(const LoopIndex*) {}
void IRVisitor::visit(const GroupValue*) {}
void IRVisitor::visit(const LetRef*) {}
void IRVisitor::visit(const VarRef*) {}
void IRVisitor::visit(const Load* n) { visit(n->index); }
void IRVisitor::visit(const Op* n) {
  for (const Expr& a : n->args) visit(a);
}
void IRVisitor::visit(const Select* n) {
  visit(n->cond);
  visit(n->if_true);
  visit(n->if_false);
}
void IRVisitor::visit(const Cast* n) { visit(n->value); }
void IRVisitor::visit(const TexSample* n) {
  visit(n->u);
  visit(n->v);
  visit(n->w);
}

void IRVisitor::visit(const Block* n) {
  for (const Stmt& s : n->stmts) visit(s);
}
void IRVisitor::visit(const Let* n) { visit(n->value); }
void IRVisitor::visit(const DeclareVar* n) { visit(n->init); }
void IRVisitor::visit(const Assign* n) { visit(n->value); }
void IRVisitor::visit(const Store* n) {
  visit(n->index);
  visit(n->value);
}
void IRVisitor::visit(const Atomic* n) {
  visit(n->index);
  visit(n->value);
  visit(n->compare);
}
void IRVisitor::visit(const If* n) {
  visit(n->cond);
  visit(n->then_case);
  visit(n->else_case);
}
void IRVisitor::visit(const For* n) {
  visit(n->lo);
  visit(n->hi);
  visit(n->body);
}
void IRVisitor::visit(const Loop* n) { visit(n->body); }
void IRVisitor::visit(const Break*) {}
void IRVisitor::visit(const Continue*) {}
void IRVisitor::visit(const Barrier*) {}
void IRVisitor::visit(const GroupReduce* n) { visit(n->value); }
void IRVisitor::visit(const Print* n) {
  for (const Expr& a : n->args) visit(a);
}

void for_each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f) {
  if (!s) return;
  f(s);
  if (auto b = s.as<Block>()) {
    for (const Stmt& c : b->stmts) for_each_stmt(c, f);
  } else if (auto i = s.as<If>()) {
    for_each_stmt(i->then_case, f);
    for_each_stmt(i->else_case, f);
  } else if (auto l = s.as<For>()) {
    for_each_stmt(l->body, f);
  } else if (auto l = s.as<Loop>()) {
    for_each_stmt(l->body, f);
  }
}

}  // namespace tack::ir
