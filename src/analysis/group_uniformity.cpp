// The uniformity analysis of workgroup kernels (see group_uniformity.hpp): the
// policy that makes the shared engine (uniformity.hpp) answer for a whole group,
// and the barrier rule's check and message on top of its answer.
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

GroupUniformity::GroupUniformity(const Kernel& k) : k_(k), u_(k) {
  TACK_CHECK(k.typed && k.launch == LaunchKind::Workgroup);
  u_.solve(*this);
}

bool GroupUniformity::seed(const Expr& leaf) const {
  return leaf->kind == ExprKind::GroupValue && leaf.as<GroupValue>()->field == GroupField::LocalId;
}

Uniformity::Region GroupUniformity::region(const Stmt& s, const Uniformity& u) const {
  if (collective(s) || escape(s) != nullptr) return Uniformity::Region::Same;
  // lower_workgroups runs any other statement inside a work-item loop, except an if_ on a
  // uniform condition that keeps a uniform Var uniform: it must run once for the group.
  if (s->kind == StmtKind::If && !u.varies(s.as<If>()->cond) && assigns_uniform_var(s)) return Uniformity::Region::Same;
  return Uniformity::Region::Opaque;
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
  // region() left Same only such an if_ that assigns a uniform Var under a uniform condition.
  return s->kind == StmtKind::If && u_.region(s.get()) == Uniformity::Region::Same;
}

bool GroupUniformity::uniform(const Expr& e) const { return !u_.varies(e); }

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
