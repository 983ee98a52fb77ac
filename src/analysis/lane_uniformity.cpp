// The lane uniformity analysis of parallel kernels and of lowered workgroup
// kernels' work-item loops (see lane_uniformity.hpp): the policy that makes the
// shared engine (uniformity.hpp) answer for a gang's lanes, and which assigns to
// varying Vars need a mask, read from its answer.
#include "analysis/lane_uniformity.hpp"

#include "ir/check.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <optional>

namespace tack::analysis {

using namespace tack::ir;

LaneUniformity::LaneUniformity(const Kernel& k)
    : inner_(k.launch == LaunchKind::Parallel ? static_cast<int>(k.dims.size()) - 1 : -1),
      items_(k.work_item_loops.begin(), k.work_item_loops.end()),
      u_(k) {
  TACK_CHECK(k.typed && !k.dims.empty());
  u_.solve(*this);
  reads_.assign(k.vars.size(), 0);
  var_loops_.assign(k.vars.size(), 0);
  std::vector<const StmtNode*> loops;
  count_reads(k.body, loops);
  classify_assigns(k.body, Context{});
  for_each_stmt(k.body, [&](const Stmt& s) {
    if (auto n = s.as<Let>()) let_values_.emplace(n->id, n->value);
  });
}

std::optional<std::int64_t> LaneUniformity::lane_stride(const Expr& index) const {
  auto it = strides_.find(index.get());
  if (it != strides_.end()) return it->second;
  std::optional<std::int64_t> s;
  auto both = [&](const Expr& a, const Expr& b, auto combine) {
    std::optional<std::int64_t> x = lane_stride(a), y = lane_stride(b);
    if (x && y) s = combine(*x, *y);
  };
  if (!varying(index)) {
    s = 0;
  } else {
    switch (index->kind) {
      case ExprKind::LoopIndex:
        if (index.as<LoopIndex>()->dim == inner_) s = 1;
        break;
      case ExprKind::LetRef: {
        if (work_item_index(index.as<LetRef>()->id)) {
          s = 1;
          break;
        }
        auto v = let_values_.find(index.as<LetRef>()->id);
        if (v != let_values_.end()) s = lane_stride(v->second);
        break;
      }
      case ExprKind::Cast: {
        const Expr& from = index.as<Cast>()->value;
        DType f = from->type.dtype, t = index->type.dtype;
        if ((f == DType::I64 || f == DType::U64) && (t == DType::I64 || t == DType::U64)) s = lane_stride(from);
        break;
      }
      case ExprKind::Op: {
        const auto* n = index.as<Op>();
        DType t = index->type.dtype;
        if (t != DType::I64 && t != DType::U64) break;
        if (gang_offset(index)) {
          s = 1;
          break;
        }
        if (n->op == OpCode::Add) both(n->args[0], n->args[1], [](auto x, auto y) { return x + y; });
        if (n->op == OpCode::Sub) both(n->args[0], n->args[1], [](auto x, auto y) { return x - y; });
        if (n->op == OpCode::Mul) {
          for (int k = 0; k < 2; ++k) {
            const auto* c = n->args[static_cast<std::size_t>(k)].as<Const>();
            std::optional<std::int64_t> other = lane_stride(n->args[static_cast<std::size_t>(1 - k)]);
            if (c && other && c->i >= -1024 && c->i <= 1024) s = c->i * *other;
          }
        }
        break;
      }
      default: break;
    }
  }
  strides_.emplace(index.get(), s);
  return s;
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
      if (!var_varying(id) || c.depth == u_.var_depth(id)) break;
      const StmtNode* l = c.direct_loop;
      const bool loop_local = l && c.depth == u_.var_depth(id) + 1 && c.loops_outside_direct == var_loops_[v] &&
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

bool LaneUniformity::seed(const Expr& leaf) const {
  if (leaf->kind == ExprKind::GroupValue) TACK_UNREACHABLE("lane_uniformity: group values must be lowered first");
  return leaf->kind == ExprKind::LoopIndex && leaf.as<LoopIndex>()->dim == inner_;
}

Uniformity::Region LaneUniformity::region(const Stmt& s, const Uniformity& u) const {
  bool masked = false;
  switch (s->kind) {
    case StmtKind::If: masked = u.varies(s.as<If>()->cond); break;
    case StmtKind::For: {
      auto n = s.as<For>();
      masked = u.varies(n->lo) || u.varies(n->hi) || breaks_under_varying_if(n->body, false, u);
      break;
    }
    case StmtKind::Loop: masked = breaks_under_varying_if(s.as<Loop>()->body, false, u); break;
    default: break;
  }
  return masked ? Uniformity::Region::Masked : Uniformity::Region::Same;
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

// Whether a break_ or continue_ of the loop whose body is s sits under an if_ with a varying condition.
bool LaneUniformity::breaks_under_varying_if(const Stmt& s, bool under, const Uniformity& u) {
  if (!s) return false;
  switch (s->kind) {
    case StmtKind::Break:
    case StmtKind::Continue: return under;
    case StmtKind::Block:
      for (const Stmt& c : s.as<Block>()->stmts)
        if (breaks_under_varying_if(c, under, u)) return true;
      return false;
    case StmtKind::If: {
      auto n = s.as<If>();
      const bool v = under || u.varies(n->cond);
      return breaks_under_varying_if(n->then_case, v, u) || breaks_under_varying_if(n->else_case, v, u);
    }
    default: return false;
  }
}

}  // namespace tack::analysis
