// The fixpoint engine of the uniformity analysis (see uniformity.hpp).
//
// A least fixpoint: everything starts uniform and each scan marks what is
// computed from something varying, redone until nothing changes, since a Var
// assigned late in a loop body makes its earlier reads varying and a varying
// condition changes how the policy treats the statements under it. The policy's
// regions only ever move towards Masked or Opaque as the answer grows, so the
// last scan, which changes nothing, saw every statement under the final answer.
#include "analysis/uniformity.hpp"

namespace tack::analysis {

using namespace tack::ir;

void Uniformity::solve(const Policy& policy) {
  policy_ = &policy;
  let_varies_.assign(k_.lets.size(), 0);
  var_varies_.assign(k_.vars.size(), 0);
  var_depth_.assign(k_.vars.size(), 0);
  do {
    regions_.clear();
  } while (scan(k_.body, 0, false));
}

bool Uniformity::varies(const Expr& e) const {
  std::unordered_map<const ExprNode*, bool> memo;  // keeps shared DAGs linear
  auto rec = [&](auto& self, const Expr& x) -> bool {
    if (!x) return false;
    auto it = memo.find(x.get());
    if (it != memo.end()) return it->second;
    bool v = false;
    switch (x->kind) {
      case ExprKind::LoopIndex:
      case ExprKind::GroupValue: v = policy_->seed(x); break;
      case ExprKind::LetRef: v = let_varies(x.as<LetRef>()->id); break;
      case ExprKind::VarRef: v = var_varies(x.as<VarRef>()->id); break;
      case ExprKind::Load:  // as varying as its index; a local array's elements are each work-item's own
        v = x.as<Load>()->array.space == ArrayRef::Space::Local || self(self, x.as<Load>()->index);
        break;
      case ExprKind::Op:
        if (policy_->cut(x)) break;
        for (const Expr& a : x.as<Op>()->args) v = v || self(self, a);
        break;
      case ExprKind::Select: {
        auto n = x.as<Select>();
        v = self(self, n->cond) || self(self, n->if_true) || self(self, n->if_false);
        break;
      }
      case ExprKind::Cast: v = self(self, x.as<Cast>()->value); break;
      case ExprKind::TexSample: {
        auto n = x.as<TexSample>();
        v = self(self, n->u) || self(self, n->v) || self(self, n->w);
        break;
      }
      default: break;
    }
    memo.emplace(x.get(), v);
    return v;
  };
  return rec(rec, e);
}

Uniformity::Region Uniformity::region(const StmtNode* s) const {
  auto it = regions_.find(s);
  return it == regions_.end() ? Region::Opaque : it->second;
}

const StmtNode* Uniformity::escape(const Stmt& s) {
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

bool Uniformity::mark(std::vector<char>& flags, int id) {
  char& v = flags[static_cast<std::size_t>(id)];
  if (v) return false;
  v = 1;
  return true;
}

// Marks what s makes varying; `depth` counts the Masked regions around s, `opaque`
// whether one is Opaque. True when anything changed.
bool Uniformity::scan(const Stmt& s, int depth, bool opaque) {
  if (!s) return false;
  auto region_of = [&]() {
    if (opaque) return Region::Opaque;
    Region r = policy_->region(s, *this);
    regions_[s.get()] = r;
    return r;
  };
  auto body = [&](const Stmt& b, Region r) {
    return scan(b, r == Region::Masked ? depth + 1 : depth, opaque || r == Region::Opaque);
  };
  bool changed = false;
  switch (s->kind) {
    case StmtKind::Block:
      for (const Stmt& c : s.as<Block>()->stmts) changed = scan(c, depth, opaque) || changed;
      break;
    case StmtKind::Let:
      if (opaque || varies(s.as<Let>()->value)) changed = mark(let_varies_, s.as<Let>()->id);
      break;
    case StmtKind::DeclareVar: {
      auto n = s.as<DeclareVar>();
      var_depth_[static_cast<std::size_t>(n->id)] = depth;
      if (opaque || varies(n->init)) changed = mark(var_varies_, n->id);
      break;
    }
    case StmtKind::Assign: {
      auto n = s.as<Assign>();
      // Assigned where only some of the work-items that declared it run: the others keep their value.
      if (opaque || varies(n->value) || depth > var_depth_[static_cast<std::size_t>(n->id)])
        changed = mark(var_varies_, n->id);
      break;
    }
    case StmtKind::Atomic: changed = mark(let_varies_, s.as<Atomic>()->result); break;  // each gets its own old value
    case StmtKind::GroupReduce:
      if (opaque) changed = mark(let_varies_, s.as<GroupReduce>()->result);
      break;
    case StmtKind::If: {
      auto n = s.as<If>();
      const Region r = region_of();
      changed = body(n->then_case, r);
      changed = body(n->else_case, r) || changed;
      break;
    }
    case StmtKind::For: {
      auto n = s.as<For>();
      const Region r = region_of();
      if (r == Region::Opaque || varies(n->lo) || varies(n->hi) || policy_->seed_index(n->index))
        changed = mark(let_varies_, n->index);
      changed = body(n->body, r) || changed;
      break;
    }
    case StmtKind::Loop: changed = body(s.as<Loop>()->body, region_of()); break;
    default: break;  // Store, Break, Continue, Barrier, Print
  }
  return changed;
}

}  // namespace tack::analysis
