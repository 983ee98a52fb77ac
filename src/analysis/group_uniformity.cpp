// The uniformity analysis of workgroup kernels (see group_uniformity.hpp).
//
// A greatest fixpoint: everything starts uniform and whatever is computed from
// something per-item is dropped until nothing changes. The scan is redone on each
// round because where it looks depends on the answer: an if_ with a uniform
// condition is a uniform position (a Var assigned in both of its branches by uniform
// values stays uniform), an if_ on a per-item condition is not.
#include "analysis/group_uniformity.hpp"

#include "ir/check.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <tack/error.hpp>

#include <string>

namespace tack::analysis {
namespace {

using namespace tack::ir;

std::string at(const SourceLoc& loc) {
  std::string s = loc.str();
  return s.empty() ? "" : " at " + s;
}

}  // namespace

GroupUniformity::GroupUniformity(const Kernel& k) : k_(k) {
  TACK_CHECK(k.typed && k.launch == LaunchKind::Workgroup);
  analyse();
}

bool GroupUniformity::collective(const Stmt& s) const {
  if (!s) return false;
  auto it = collective_.find(s.get());
  if (it != collective_.end()) return it->second;
  bool r = false;
  switch (s->kind) {
    case StmtKind::Barrier:
    case StmtKind::GroupReduce: r = true; break;
    case StmtKind::Block:
      for (const Stmt& c : s.as<Block>()->stmts) r = r || collective(c);
      break;
    case StmtKind::If: r = collective(s.as<If>()->then_case) || collective(s.as<If>()->else_case); break;
    case StmtKind::For: r = collective(s.as<For>()->body); break;
    case StmtKind::Loop: r = collective(s.as<Loop>()->body); break;
    default: break;
  }
  collective_.emplace(s.get(), r);
  return r;
}

const StmtNode* GroupUniformity::escape(const Stmt& s) {
  if (!s) return nullptr;
  switch (s->kind) {
    case StmtKind::Break:
    case StmtKind::Continue: return s.get();
    case StmtKind::Block:
      for (const Stmt& c : s.as<Block>()->stmts)
        if (const StmtNode* e = escape(c)) return e;
      return nullptr;
    case StmtKind::If: {
      const StmtNode* e = escape(s.as<If>()->then_case);
      return e ? e : escape(s.as<If>()->else_case);
    }
    default: return nullptr;  // a For or Loop catches its own breaks
  }
}

bool GroupUniformity::assigns_uniform_var(const Stmt& s) const {
  bool found = false;
  for_each_stmt(s, [&](const Stmt& c) {
    if (auto a = c.as<Assign>()) found = found || var_uniform(a->id);
    if (auto d = c.as<DeclareVar>()) found = found || var_uniform(d->id);
  });
  return found;
}

bool GroupUniformity::lock_step(const Stmt& s) const {
  if (collective(s) || escape(s) != nullptr) return true;
  return s->kind == StmtKind::If && transparent_ifs_.count(s.get()) && assigns_uniform_var(s);
}

bool GroupUniformity::uniform(const Expr& e) const {
  bool ok = true;
  std::unordered_set<const ExprNode*> seen;
  walk(e, seen, [&](const Expr& x) {
    switch (x->kind) {
      // A load is as uniform as its index (walk visits the index).
      case ExprKind::GroupValue: ok = ok && x.as<GroupValue>()->field != GroupField::LocalId; break;
      case ExprKind::LetRef: ok = ok && let_uniform(x.as<LetRef>()->id); break;
      case ExprKind::VarRef: ok = ok && var_uniform(x.as<VarRef>()->id); break;
      default: break;
    }
  });
  return ok;
}

void GroupUniformity::analyse() {
  const std::size_t lets = k_.lets.size(), vars = k_.vars.size();
  let_uniform_.assign(lets, 1);
  var_uniform_.assign(vars, 1);
  let_forced_off_.assign(lets, 0);
  auto all_uniform = [&](const std::vector<Expr>& values) {
    for (const Expr& e : values)
      if (!uniform(e)) return false;
    return true;
  };
  for (;;) {
    for (bool changed = true; changed;) {
      let_values_.assign(lets, {});
      var_values_.assign(vars, {});
      let_at_uniform_.assign(lets, 0);
      var_declared_uniform_.assign(vars, 0);
      var_bad_.assign(vars, 0);
      transparent_ifs_.clear();
      if_lets_.clear();
      scan(k_.body);
      changed = false;
      for (std::size_t i = 0; i < lets; ++i) {
        char u = let_uniform_[i] && let_at_uniform_[i] && !let_forced_off_[i] && all_uniform(let_values_[i]);
        changed = changed || u != let_uniform_[i];
        let_uniform_[i] = u;
      }
      for (std::size_t v = 0; v < vars; ++v) {
        char u = var_uniform_[v] && var_declared_uniform_[v] && !var_bad_[v] && all_uniform(var_values_[v]);
        changed = changed || u != var_uniform_[v];
        var_uniform_[v] = u;
      }
    }
    // An if_ with a uniform condition that assigns no uniform Var runs per item (inside
    // the CPU's work-item loops), so the Lets bound in it are per-item after all.
    bool demoted = false;
    for (const auto& [key, entry] : if_lets_) {
      if (assigns_uniform_var(entry.node)) continue;
      for (int id : entry.lets) {
        if (let_forced_off_[static_cast<std::size_t>(id)]) continue;
        let_forced_off_[static_cast<std::size_t>(id)] = 1;
        demoted = true;
      }
    }
    if (!demoted) return;
  }
}

void GroupUniformity::scan(const Stmt& block) {
  auto mark_bad = [&](const Stmt& s) {
    // Anything assigned inside per-item control flow is per-item.
    for_each_stmt(s, [&](const Stmt& c) {
      if (auto a = c.as<Assign>()) var_bad_[static_cast<std::size_t>(a->id)] = 1;
      if (auto d = c.as<DeclareVar>()) var_bad_[static_cast<std::size_t>(d->id)] = 1;
    });
  };
  auto bind_let = [&](int id, std::vector<Expr> values) {
    let_at_uniform_[static_cast<std::size_t>(id)] = 1;
    for (Expr& e : values) let_values_[static_cast<std::size_t>(id)].push_back(std::move(e));
    for (const StmtNode* n : enclosing_) if_lets_[n].lets.push_back(id);
  };
  for (const Stmt& s : block_items(block)) {
    if (collective(s) || escape(s) != nullptr) {
      switch (s->kind) {
        case StmtKind::For:
          bind_let(s.as<For>()->index, {s.as<For>()->lo, s.as<For>()->hi});
          scan(s.as<For>()->body);
          break;
        case StmtKind::If:
          scan(s.as<If>()->then_case);
          scan(s.as<If>()->else_case);
          break;
        case StmtKind::Loop: scan(s.as<Loop>()->body); break;
        case StmtKind::GroupReduce: bind_let(s.as<GroupReduce>()->result, {}); break;
        default: break;  // Barrier, Break, Continue
      }
      continue;
    }
    switch (s->kind) {
      case StmtKind::Let: bind_let(s.as<Let>()->id, {s.as<Let>()->value}); break;
      case StmtKind::DeclareVar: {
        auto d = s.as<DeclareVar>();
        var_declared_uniform_[static_cast<std::size_t>(d->id)] = 1;
        var_values_[static_cast<std::size_t>(d->id)].push_back(d->init);
        break;
      }
      case StmtKind::Assign:
        var_values_[static_cast<std::size_t>(s.as<Assign>()->id)].push_back(s.as<Assign>()->value);
        break;
      case StmtKind::If:
        if (uniform(s.as<If>()->cond)) {
          transparent_ifs_.insert(s.get());
          if_lets_[s.get()].node = s;
          enclosing_.push_back(s.get());
          scan(s.as<If>()->then_case);
          scan(s.as<If>()->else_case);
          enclosing_.pop_back();
        } else {
          mark_bad(s);
        }
        break;
      default: mark_bad(s); break;
    }
  }
}

Stmt GroupUniformity::divergent_in(const Stmt& block) const {
  for (const Stmt& s : block_items(block)) {
    if (!lock_step(s)) continue;
    Stmt found;
    switch (s->kind) {
      case StmtKind::For: {
        auto n = s.as<For>();
        found = uniform(n->lo) && uniform(n->hi) ? divergent_in(n->body) : s;
        break;
      }
      case StmtKind::If: {
        auto n = s.as<If>();
        if (!uniform(n->cond)) return s;
        found = divergent_in(n->then_case);
        if (!found) found = divergent_in(n->else_case);
        break;
      }
      case StmtKind::Loop: found = divergent_in(s.as<Loop>()->body); break;
      default: break;
    }
    if (found) return found;
  }
  return {};
}

Stmt GroupUniformity::first_divergent() const { return divergent_in(k_.body); }

void GroupUniformity::refuse(const Stmt& s) const {
  TACK_CHECK(s);
  std::string what;
  SourceLoc loc;
  for_each_stmt(s, [&](const Stmt& c) {
    if (!what.empty()) return;
    if (c->kind == StmtKind::Barrier) what = "a barrier";
    if (auto r = c.as<GroupReduce>()) what = std::string("a group reduce_") + reduce_name(r->op);
    if (!what.empty()) loc = c->loc;
  });
  std::string extra;
  if (what.empty()) {
    const StmtNode* e = escape(s);
    TACK_CHECK(e);
    what = e->kind == StmtKind::Break ? "a break_" : "a continue_";
    loc = e->loc;
    extra = ", in a loop that contains a barrier or group reduction";
  }
  const char* kind = s->kind == StmtKind::For ? "for_range" : s->kind == StmtKind::If ? "if_" : "loop";
  throw InvalidArgument("kernel '" + k_.name + "': " + what + " inside control flow that depends on the work-item" +
                        extra + " (" + what.substr(2) + at(loc) + ", " + kind + at(s->loc) +
                        "). Every work-item of a group must reach each barrier and group reduction together (on a "
                        "GPU a barrier that only some work-items reach hangs or corrupts the launch), so the "
                        "condition or loop bounds around it must be uniform: computed from parameters, shapes, "
                        "group_id(), num_groups(), loop indices, group reductions and array or shared elements at "
                        "uniform indices, not from local_id() or anything computed from it");
}

}  // namespace tack::analysis
