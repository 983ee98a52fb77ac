// Dead-code elimination: drops what no later statement can observe.
#include "passes/dce.hpp"

#include "ir/node_set.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <algorithm>
#include <vector>

namespace tack::passes {
namespace {

using namespace tack::ir;

bool is_empty(const Stmt& s) {
  if (!s) return true;
  auto b = s.as<Block>();
  return b && b->stmts.empty();
}

// Appends b's statements to out with nested Blocks spliced (a Block is no scope), up to
// and including the first Break or Continue: what follows it never runs. True if cut.
bool flatten(const Block* b, std::vector<Stmt>& out) {
  for (const Stmt& s : b->stmts) {
    if (auto nested = s.as<Block>()) {
      if (flatten(nested, out)) return true;
      continue;
    }
    out.push_back(s);
    if (s->kind == StmtKind::Break || s->kind == StmtKind::Continue) return true;
  }
  return false;
}

class DeadCode {
 public:
  DeadCode(std::size_t lets, std::size_t vars) : lets_(lets), vars_(vars) {}

  // Lets die in one backward sweep: every use of a Let comes after it, so by the time
  // the sweep reaches a Let all its surviving uses are known. A Var can be read before
  // an Assign to it (in a loop), so Vars take a sweep per link of a chain of dead Vars.
  Stmt run(Stmt body) {
    for (;;) {
      find_read_vars(body);
      live_lets_.assign(lets_, 0);
      seen_.clear();
      Stmt next = prune(body);
      if (!next) next = Block::make({}, body->loc);
      if (next.same_as(body)) return body;
      body = next;
    }
  }

 private:
  // A Var is read if a VarRef to it appears anywhere except in assignments to itself:
  // a Var only ever feeding itself (acc = acc + 1, never read) is as dead as any.
  void find_read_vars(const Stmt& body) {
    var_read_.assign(vars_, 0);
    for_each_stmt(body, [&](const Stmt& s) {
      int self = -1;
      if (auto a = s.as<Assign>()) self = a->id;
      read_seen_.clear();
      for (const Expr& e : own_exprs(s)) {
        walk(e, read_seen_, [&](const Expr& x) {
          auto v = x.as<VarRef>();
          if (v && v->id != self && v->id >= 0 && static_cast<std::size_t>(v->id) < vars_) var_read_[v->id] = 1;
        });
      }
    });
  }

  // Marks the Lets e reads as live. seen_ spans the sweep: the live set only grows, so a
  // node met again has nothing new to add.
  void use(const Expr& e) {
    walk(e, seen_, [&](const Expr& x) {
      auto r = x.as<LetRef>();
      if (r && r->id >= 0 && static_cast<std::size_t>(r->id) < lets_) live_lets_[r->id] = 1;
    });
  }

  bool let_live(int id) const { return id < 0 || static_cast<std::size_t>(id) >= lets_ || live_lets_[id]; }
  bool var_read(int id) const { return id < 0 || static_cast<std::size_t>(id) >= vars_ || var_read_[id]; }

  // Returns s without its dead parts, an empty Stmt when nothing is left, or s itself
  // when nothing changed. Statements are visited last to first.
  Stmt prune(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Block: return prune_block(s.as<Block>(), s);
      case StmtKind::Let: {
        auto n = s.as<Let>();
        if (!let_live(n->id)) return {};  // values are pure; a Load's read has no effect either
        use(n->value);
        return s;
      }
      case StmtKind::DeclareVar: {
        auto n = s.as<DeclareVar>();
        if (!var_read(n->id)) return {};
        use(n->init);
        return s;
      }
      case StmtKind::Assign: {
        auto n = s.as<Assign>();
        if (!var_read(n->id)) return {};
        use(n->value);
        return s;
      }
      // Effects on memory and on the group stay, used or not.
      case StmtKind::Store:
      case StmtKind::Atomic:
      case StmtKind::GroupReduce:
      case StmtKind::Print:
        for (const Expr& e : own_exprs(s)) use(e);
        return s;
      case StmtKind::Break:
      case StmtKind::Continue:
      case StmtKind::Barrier: return s;
      case StmtKind::If: return prune_if(s.as<If>(), s);
      case StmtKind::For: {
        auto n = s.as<For>();
        Stmt body = prune(n->body);
        if (is_empty(body)) return {};  // bounds are pure, so an empty loop does nothing
        use(n->lo);
        use(n->hi);
        return body.same_as(n->body) ? s : For::make(n->index, n->lo, n->hi, body, n->loc);
      }
      case StmtKind::Loop: {
        // Kept even when empty: a Loop without a reachable Break never ends, and
        // removing it would turn a hang into a kernel that returns.
        auto n = s.as<Loop>();
        Stmt body = prune(n->body);
        if (!body) body = Block::make({}, n->body->loc);
        return body.same_as(n->body) ? s : Loop::make(body, n->loc);
      }
    }
    return s;
  }

  Stmt prune_block(const Block* b, const Stmt& self) {
    std::vector<Stmt> flat;
    flatten(b, flat);
    std::vector<Stmt> kept;
    kept.reserve(flat.size());
    for (std::size_t i = flat.size(); i-- > 0;) {
      if (Stmt r = prune(flat[i])) kept.push_back(std::move(r));
    }
    std::reverse(kept.begin(), kept.end());
    bool same = kept.size() == b->stmts.size();
    for (std::size_t i = 0; same && i < kept.size(); ++i) same = kept[i].same_as(b->stmts[i]);
    if (same) return self;
    return kept.empty() ? Stmt() : Block::make(std::move(kept), b->loc);
  }

  Stmt prune_if(const If* n, const Stmt& self) {
    // The branches come after the condition, so they are swept first.
    Stmt then_case = prune(n->then_case);
    Stmt else_case = n->else_case ? prune(n->else_case) : Stmt();
    if (is_empty(then_case) && is_empty(else_case)) return {};  // the condition is pure
    use(n->cond);
    if (is_empty(then_case)) {
      // if (c) {} else { s }  ->  if (!c) { s }
      Expr cond = n->cond;
      auto inner = cond.as<Op>();
      cond = inner && inner->op == OpCode::Not ? inner->args[0] : Op::make(cond->type, OpCode::Not, cond);
      return If::make(cond, else_case, Stmt(), n->loc);
    }
    if (is_empty(else_case)) else_case = Stmt();
    if (then_case.same_as(n->then_case) && else_case.same_as(n->else_case)) return self;
    return If::make(n->cond, then_case, else_case, n->loc);
  }

  std::size_t lets_, vars_;
  std::vector<char> live_lets_, var_read_;
  NodeSet seen_;
  NodeSet read_seen_;  // find_read_vars': one statement's
};

}  // namespace

ir::Kernel dce(const ir::Kernel& k) {
  ir::Kernel out = k;
  if (!k.body) return out;
  out.body = DeadCode(k.lets.size(), k.vars.size()).run(k.body);
  return out;
}

}  // namespace tack::passes
