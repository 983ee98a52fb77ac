// The lane uniformity analysis of parallel kernels and of lowered workgroup
// kernels' work-item loops (see lane_uniformity.hpp).
//
// A least fixpoint: everything starts uniform and the scan marks what is
// computed from something varying, redone until nothing changes, since a Var
// assigned late in a loop body makes its earlier reads varying and a varying
// condition makes the loop around it divergent.
#include "analysis/lane_uniformity.hpp"

#include "analysis/group_uniformity.hpp"
#include "ir/check.hpp"
#include "ir/walk.hpp"

#include <optional>

namespace tack::analysis {

using namespace tack::ir;

LaneUniformity::LaneUniformity(const Kernel& k)
    : inner_(k.launch == LaunchKind::Parallel ? static_cast<int>(k.dims.size()) - 1 : -1),
      items_(k.work_item_loops.begin(), k.work_item_loops.end()) {
  TACK_CHECK(k.typed && !k.dims.empty());
  let_varying_.assign(k.lets.size(), 0);
  var_varying_.assign(k.vars.size(), 0);
  var_depth_.assign(k.vars.size(), 0);
  while (scan(k.body, 0)) {
  }
  reads_.assign(k.vars.size(), 0);
  var_loops_.assign(k.vars.size(), 0);
  std::vector<const StmtNode*> loops;
  count_reads(k.body, loops);
  classify_assigns(k.body, Context{});
}

void LaneUniformity::count_reads(const Stmt& s, std::vector<const StmtNode*>& loops) {
  if (!s) return;
  std::unordered_set<const ExprNode*> seen;
  for (const Expr& e : own_exprs(s))  // a For's bounds are read before its loop
    walk(e, seen, [&](const Expr& x) {
      if (auto r = x.as<VarRef>()) {
        ++reads_[static_cast<std::size_t>(r->id)];
        for (const StmtNode* l : loops) {
          std::vector<int>& in = reads_in_loop_[l];
          in.resize(reads_.size());
          ++in[static_cast<std::size_t>(r->id)];
        }
      }
    });
  switch (s->kind) {
    case StmtKind::Block:
      for (const Stmt& c : s.as<Block>()->stmts) count_reads(c, loops);
      break;
    case StmtKind::If:
      count_reads(s.as<If>()->then_case, loops);
      count_reads(s.as<If>()->else_case, loops);
      break;
    case StmtKind::For:
    case StmtKind::Loop: {
      const bool divergent = divergent_loop(s.get());
      if (divergent) loops.push_back(s.get());
      count_reads(s->kind == StmtKind::For ? s.as<For>()->body : s.as<Loop>()->body, loops);
      if (divergent) loops.pop_back();
      break;
    }
    default: break;
  }
}

bool LaneUniformity::has_continue(const Stmt& s) {
  if (!s) return false;
  switch (s->kind) {
    case StmtKind::Continue: return true;
    case StmtKind::Block:
      for (const Stmt& c : s.as<Block>()->stmts)
        if (has_continue(c)) return true;
      return false;
    case StmtKind::If: return has_continue(s.as<If>()->then_case) || has_continue(s.as<If>()->else_case);
    default: return false;
  }
}

void LaneUniformity::classify_assigns(const Stmt& s, Context c) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Block:
      for (const Stmt& child : s.as<Block>()->stmts) classify_assigns(child, c);
      break;
    case StmtKind::DeclareVar: var_loops_[static_cast<std::size_t>(s.as<DeclareVar>()->id)] = c.loops; break;
    case StmtKind::Assign: {
      const int id = s.as<Assign>()->id;
      const auto v = static_cast<std::size_t>(id);
      if (!var_varying(id) || c.depth == var_depth_[v]) break;
      const StmtNode* l = c.direct_loop;
      const bool loop_local = l && c.depth == var_depth_[v] + 1 && c.loops_outside_direct == var_loops_[v] &&
                              !has_continue(l->kind == StmtKind::For ? static_cast<const For*>(l)->body
                                                                     : static_cast<const Loop*>(l)->body) &&
                              reads_in_loop_.count(l) && reads_in_loop_.at(l)[v] == reads_[v];
      if (!loop_local) masked_assigns_.insert(s.get());
      break;
    }
    case StmtKind::If: {
      Context inner = c;
      if (varying_if(s.get())) {
        ++inner.depth;
        inner.direct_loop = nullptr;
      }
      classify_assigns(s.as<If>()->then_case, inner);
      classify_assigns(s.as<If>()->else_case, inner);
      break;
    }
    case StmtKind::For:
    case StmtKind::Loop: {
      Context inner = c;
      ++inner.loops;
      if (divergent_loop(s.get())) {
        ++inner.depth;
        inner.direct_loop = s.get();
        inner.loops_outside_direct = c.loops;
      }
      classify_assigns(s->kind == StmtKind::For ? s.as<For>()->body : s.as<Loop>()->body, inner);
      break;
    }
    default: break;
  }
}

bool LaneUniformity::varying(const Expr& e) const {
  if (items_.empty()) {
    bool v = false;
    std::unordered_set<const ExprNode*> seen;
    walk(e, seen, [&](const Expr& x) {
      switch (x->kind) {
        // A load is as varying as its index (walk visits it).
        case ExprKind::LoopIndex: v = v || x.as<LoopIndex>()->dim == inner_; break;
        case ExprKind::LetRef: v = v || let_varying(x.as<LetRef>()->id); break;
        case ExprKind::VarRef: v = v || var_varying(x.as<VarRef>()->id); break;
        case ExprKind::GroupValue: TACK_UNREACHABLE("lane_uniformity: group values must be lowered first");
        default: break;
      }
    });
    return v;
  }
  // Workgroup kernels: a walk that does not look below `lid / D`.
  std::unordered_map<const ExprNode*, bool> memo;
  auto rec = [&](auto& self, const Expr& x) -> bool {
    if (!x) return false;
    auto it = memo.find(x.get());
    if (it != memo.end()) return it->second;
    bool v = false;
    switch (x->kind) {
      case ExprKind::LoopIndex: v = x.as<LoopIndex>()->dim == inner_; break;
      case ExprKind::LetRef: v = let_varying(x.as<LetRef>()->id); break;
      case ExprKind::VarRef: v = var_varying(x.as<VarRef>()->id); break;
      case ExprKind::GroupValue: TACK_UNREACHABLE("lane_uniformity: group values must be lowered first");
      case ExprKind::Load: v = self(self, x.as<Load>()->index); break;
      case ExprKind::Op:
        if (gang_block(x)) break;
        for (const Expr& a : x.as<Op>()->args) v = self(self, a) || v;
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

namespace {

// A work-item index, or an integer cast of one wide enough for every local id.
bool is_item(const Expr& e, const std::unordered_set<int>& items) {
  if (auto c = e.as<Cast>())
    return is_integer(e->type.dtype) && dtype_bits(e->type.dtype) >= 16 && is_item(c->value, items);
  auto l = e.as<LetRef>();
  return l && items.count(l->id);
}

// The constant operand, when it is a positive integer.
std::optional<std::int64_t> positive(const Expr& e) {
  auto c = e.as<Const>();
  if (!c || !is_integer(e->type.dtype) || c->i <= 0) return std::nullopt;
  return c->i;
}

constexpr std::int64_t kGang = LaneUniformity::kMaxGang;

}  // namespace

bool LaneUniformity::gang_block(const Expr& e) const {
  auto n = e.as<Op>();
  if (!n || n->arity() != 2 || !is_item(n->args[0], items_)) return false;
  std::optional<std::int64_t> d = positive(n->args[1]);
  if (!d) return false;
  switch (n->op) {
    case OpCode::Div:
    case OpCode::FloorDiv: return *d % kGang == 0;
    case OpCode::Shr: return *d >= 4 && *d < 62;  // 2^d is a multiple of 16
    default: return false;
  }
}

bool LaneUniformity::gang_offset(const Expr& e) const {
  auto n = e.as<Op>();
  if (!n || n->arity() != 2) return false;
  for (int k = 0; k < 2; ++k) {
    const Expr& x = n->args[static_cast<std::size_t>(k)];
    std::optional<std::int64_t> d = positive(n->args[static_cast<std::size_t>(1 - k)]);
    if (!d || !is_item(x, items_)) continue;
    if ((n->op == OpCode::Mod || n->op == OpCode::FloorMod) && k == 0) return *d % kGang == 0;
    // lid & (2^m - 1), m >= 4
    if (n->op == OpCode::BitAnd) return *d >= kGang - 1 && ((*d + 1) & *d) == 0;
  }
  return false;
}

bool LaneUniformity::escapes(const Stmt& s) { return GroupUniformity::escape(s) != nullptr; }

bool LaneUniformity::mark_let(int id) {
  char& v = let_varying_[static_cast<std::size_t>(id)];
  if (v) return false;
  v = 1;
  return true;
}

bool LaneUniformity::mark_var(int id) {
  char& v = var_varying_[static_cast<std::size_t>(id)];
  if (v) return false;
  v = 1;
  return true;
}

// Whether a break_ or continue_ of the loop whose body is s sits under an if_ with a varying condition.
bool LaneUniformity::breaks_under_varying_if(const Stmt& s, bool under) const {
  if (!s) return false;
  switch (s->kind) {
    case StmtKind::Break:
    case StmtKind::Continue: return under;
    case StmtKind::Block:
      for (const Stmt& c : s.as<Block>()->stmts)
        if (breaks_under_varying_if(c, under)) return true;
      return false;
    case StmtKind::If: {
      auto n = s.as<If>();
      bool u = under || varying_if(s.get());
      return breaks_under_varying_if(n->then_case, u) || breaks_under_varying_if(n->else_case, u);
    }
    default: return false;
  }
}

// Marks what s makes varying; `depth` counts the divergent regions around s. True when anything changed.
bool LaneUniformity::scan(const Stmt& s, int depth) {
  if (!s) return false;
  bool changed = false;
  switch (s->kind) {
    case StmtKind::Block:
      for (const Stmt& c : s.as<Block>()->stmts) changed = scan(c, depth) || changed;
      break;
    case StmtKind::Let:
      if (varying(s.as<Let>()->value)) changed = mark_let(s.as<Let>()->id);
      break;
    case StmtKind::DeclareVar: {
      auto n = s.as<DeclareVar>();
      var_depth_[static_cast<std::size_t>(n->id)] = depth;
      if (varying(n->init)) changed = mark_var(n->id);
      break;
    }
    case StmtKind::Assign: {
      auto n = s.as<Assign>();
      // Assigned where only some of the lanes that declared it run: the others keep their value.
      if (varying(n->value) || depth > var_depth_[static_cast<std::size_t>(n->id)]) changed = mark_var(n->id);
      break;
    }
    case StmtKind::Atomic: changed = mark_let(s.as<Atomic>()->result); break;  // each lane gets its own old value
    case StmtKind::If: {
      auto n = s.as<If>();
      int inner = depth;
      if (varying(n->cond)) {
        changed = varying_ifs_.insert(s.get()).second;
        inner = depth + 1;
      }
      changed = scan(n->then_case, inner) || changed;
      changed = scan(n->else_case, inner) || changed;
      break;
    }
    case StmtKind::For: {
      auto n = s.as<For>();
      bool bounds = varying(n->lo) || varying(n->hi);
      if (bounds || work_item_index(n->index)) changed = mark_let(n->index) || changed;
      int inner = depth;
      if (bounds || breaks_under_varying_if(n->body, false)) {
        changed = divergent_loops_.insert(s.get()).second || changed;
        inner = depth + 1;
      }
      changed = scan(n->body, inner) || changed;
      break;
    }
    case StmtKind::Loop: {
      auto n = s.as<Loop>();
      int inner = depth;
      if (breaks_under_varying_if(n->body, false)) {
        changed = divergent_loops_.insert(s.get()).second;
        inner = depth + 1;
      }
      changed = scan(n->body, inner) || changed;
      break;
    }
    default: break;  // Store, Break, Continue (prints and collectives are lowered or refused before)
  }
  return changed;
}

}  // namespace tack::analysis
