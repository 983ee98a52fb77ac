// The CPU's choice of path and gang width (see simd_plan.hpp).
//
// The width fills one vector register with the kernel's widest varying value:
// 16 lanes of f32 or i32 in 512 bits, 8 of f64. 64-bit integers do not count,
// since every index is one and most fold into scalar addresses; narrower
// values count as 32 bits, since they compute in 32-bit lanes anyway.
#include "analysis/simd_plan.hpp"

#include "analysis/lane_uniformity.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tack::analysis {
namespace {

bool samples_texture(const ir::Kernel& k) {
  bool found = false;
  ir::for_each_stmt(k.body, [&](const ir::Stmt& s) {
    std::unordered_set<const ir::ExprNode*> seen;
    for (const ir::Expr& e : ir::own_exprs(s))
      ir::walk(e, seen, [&](const ir::Expr& x) { found = found || x->kind == ir::ExprKind::TexSample; });
  });
  return found;
}

// Workgroup kernels: a Let or Var of a work-item loop used outside it, or a Var
// declared outside one and assigned in it, would be one value per lane where
// the code around the loop has one scalar. passes::lower_workgroups never makes
// either (per-item values cross regions through shared arrays); this keeps a
// kernel that did on the scalar path rather than wrong.
bool crosses_work_item_loop(const ir::Kernel& k) {
  const std::unordered_set<int> items(k.work_item_loops.begin(), k.work_item_loops.end());
  std::unordered_set<int> inner_lets, inner_vars, outer_lets, outer_vars, assigned_inside;
  auto note = [](const ir::Stmt& s, std::unordered_set<int>& lets, std::unordered_set<int>& vars,
                 std::unordered_set<int>* assigned) {
    if (auto n = s.as<ir::Let>()) lets.insert(n->id);
    if (auto n = s.as<ir::Atomic>()) lets.insert(n->result);
    if (auto n = s.as<ir::For>()) lets.insert(n->index);
    if (auto n = s.as<ir::DeclareVar>()) vars.insert(n->id);
    if (auto n = s.as<ir::Assign>(); n && assigned) assigned->insert(n->id);
  };
  std::unordered_set<int> outer_read_lets, outer_read_vars;
  std::function<void(const ir::Stmt&, bool)> visit = [&](const ir::Stmt& s, bool inside) {
    if (!s) return;
    if (auto f = s.as<ir::For>(); f && items.count(f->index)) inside = true;
    note(s, inside ? inner_lets : outer_lets, inside ? inner_vars : outer_vars, inside ? &assigned_inside : nullptr);
    if (!inside) {
      std::unordered_set<const ir::ExprNode*> seen;
      for (const ir::Expr& e : ir::own_exprs(s))
        ir::walk(e, seen, [&](const ir::Expr& x) {
          if (auto l = x.as<ir::LetRef>()) outer_read_lets.insert(l->id);
          if (auto v = x.as<ir::VarRef>()) outer_read_vars.insert(v->id);
        });
    }
    switch (s->kind) {
      case ir::StmtKind::Block:
        for (const ir::Stmt& c : s.as<ir::Block>()->stmts) visit(c, inside);
        break;
      case ir::StmtKind::If:
        visit(s.as<ir::If>()->then_case, inside);
        visit(s.as<ir::If>()->else_case, inside);
        break;
      case ir::StmtKind::For: visit(s.as<ir::For>()->body, inside); break;
      case ir::StmtKind::Loop: visit(s.as<ir::Loop>()->body, inside); break;
      default: break;
    }
  };
  visit(k.body, false);
  for (int id : outer_read_lets)
    if (inner_lets.count(id)) return true;
  for (int id : outer_read_vars)
    if (inner_vars.count(id)) return true;
  for (int id : assigned_inside)
    if (!inner_vars.count(id)) return true;
  return false;
}

// Memory a gang reaches lane by lane inside a loop whose lanes leave at different iterations: on every trip of the
// slowest lane, under the loop's mask, where the scalar path makes one plain access per work-item.
// - A local array at a lane-varying index (an insertion sort's inner while_): a gather or scatter over the lanes'
//   rows. Measured on bench local_sort16 (16 f32 per work-item, AVX2): 280 ms as gangs of 8, 120-129 ms on the
//   scalar path, 109-114 ms for hand-written C++.
// - An array parameter at a varying index that does not step by one from lane to lane (a graph's edges and the
//   nodes they reach, Rodinia's bfs): a gather or scatter too. Measured on bench bfs (a level of 2^20 nodes, a
//   tenth in the frontier, AVX2): 31 ms as gangs of 8, 9.0 ms on the scalar path, 9.2 ms for the C++ loop.
// Contiguous accesses (a[i], a(i, j + 1): LaneUniformity::lane_stride 1) stay one masked vector access each and keep
// the gangs.
enum class DivergentAccess { None, Local, Gather };

DivergentAccess access_in_divergent_loop(const ir::Kernel& k, const LaneUniformity& lanes) {
  DivergentAccess found = DivergentAccess::None;
  auto check = [&](const ir::ArrayRef& a, const ir::Expr& index) {
    if (found != DivergentAccess::None || !lanes.varying(index)) return;
    if (a.space == ir::ArrayRef::Space::Local) found = DivergentAccess::Local;
    // In a workgroup kernel every varying access counts (a work-item loop's index is not read as contiguous here).
    const bool contiguous = k.launch == ir::LaunchKind::Parallel && lanes.lane_stride(index) == 1;
    if (a.space == ir::ArrayRef::Space::Param && !contiguous) found = DivergentAccess::Gather;
  };
  std::function<void(const ir::Stmt&, bool)> visit = [&](const ir::Stmt& s, bool divergent) {
    if (!s || found != DivergentAccess::None) return;
    if (divergent) ir::for_each_own_access(s, check);
    switch (s->kind) {
      case ir::StmtKind::Block:
        for (const ir::Stmt& c : s.as<ir::Block>()->stmts) visit(c, divergent);
        break;
      case ir::StmtKind::If:
        visit(s.as<ir::If>()->then_case, divergent);
        visit(s.as<ir::If>()->else_case, divergent);
        break;
      case ir::StmtKind::For: visit(s.as<ir::For>()->body, divergent || lanes.divergent_loop(s.get())); break;
      case ir::StmtKind::Loop: visit(s.as<ir::Loop>()->body, divergent || lanes.divergent_loop(s.get())); break;
      default: break;
    }
  };
  visit(k.body, false);
  return found;
}

// How an I64 index changes from one iteration of the for_range whose index is Let `loop` to the next: 0 when it does
// not depend on it, the step when it is the index times a constant plus what does not depend on it, none otherwise
// (a load, a Var, anything else that depends on it).
std::optional<std::int64_t> loop_step(const ir::Expr& e, int loop, const std::unordered_map<int, ir::Expr>& lets) {
  if (!e) return std::nullopt;
  switch (e->kind) {
    case ir::ExprKind::Const:
    case ir::ExprKind::ScalarParam:
    case ir::ExprKind::ArrayDim:
    case ir::ExprKind::LoopIndex:
    case ir::ExprKind::GroupValue: return 0;
    case ir::ExprKind::LetRef: {
      const int id = e.as<ir::LetRef>()->id;
      if (id == loop) return 1;
      auto v = lets.find(id);
      return v == lets.end() ? std::optional<std::int64_t>(0) : loop_step(v->second, loop, lets);
    }
    case ir::ExprKind::Cast: {
      const ir::Expr& from = e.as<ir::Cast>()->value;
      const bool wide = from->type.dtype == DType::I64 || from->type.dtype == DType::U64;
      std::optional<std::int64_t> s = loop_step(from, loop, lets);
      return wide || s == 0 ? s : std::nullopt;
    }
    case ir::ExprKind::Op: {
      const auto* n = e.as<ir::Op>();
      std::vector<std::optional<std::int64_t>> steps;
      for (int a = 0; a < n->arity(); ++a) steps.push_back(loop_step(n->args[static_cast<std::size_t>(a)], loop, lets));
      if (std::all_of(steps.begin(), steps.end(), [](auto s) { return s == 0; })) return 0;
      if (steps.size() != 2 || !steps[0] || !steps[1]) return std::nullopt;
      if (n->op == ir::OpCode::Add) return *steps[0] + *steps[1];
      if (n->op == ir::OpCode::Sub) return *steps[0] - *steps[1];
      if (n->op == ir::OpCode::Mul)
        for (int k = 0; k < 2; ++k)
          if (const auto* c = n->args[static_cast<std::size_t>(k)].as<ir::Const>(); c && steps[k] == 0)
            return c->i * *steps[static_cast<std::size_t>(1 - k)];
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// A work-item walking its own row: inside a for_range, an array parameter read or written at an index one element
// apart from iteration to iteration but not from work-item to work-item (x[r * cols + j], one row per work-item). A
// gang gathers (and scatters) a row per lane on every iteration, where the scalar path's loop runs along the row,
// contiguous, and LLVM's loop vectorizer takes the loops it can. Measured on bench standardize (4096 rows of 1024
// f32, AVX2): 13.4 ms as gangs of 8, 6.2 ms on the scalar path, 5.4 ms for the hand-written C++; softmax, whose exp
// the gangs run in vectors, 15.9 ms as gangs, 16.7 ms scalar, 14.6 ms C++. Loops of at most kShortLoopTrips
// constant trips do not count.
constexpr std::int64_t kShortLoopTrips = 16;
bool walks_own_row(const ir::Kernel& k, const LaneUniformity& lanes) {
  if (k.launch != ir::LaunchKind::Parallel) return false;
  const std::unordered_map<int, ir::Expr>& lets = lanes.let_values();
  bool found = false;
  std::vector<int> loops;  // the for_range indices around
  auto check = [&](const ir::ArrayRef& a, const ir::Expr& index) {
    if (found || a.space != ir::ArrayRef::Space::Param || !lanes.varying(index) || lanes.lane_stride(index) == 1)
      return;
    for (int loop : loops)
      if (std::optional<std::int64_t> step = loop_step(index, loop, lets); step == 1 || step == -1) found = true;
  };
  std::function<void(const ir::Stmt&)> visit = [&](const ir::Stmt& s) {
    if (!s || found) return;
    if (!loops.empty()) ir::for_each_own_access(s, check);
    switch (s->kind) {
      case ir::StmtKind::Block:
        for (const ir::Stmt& c : s.as<ir::Block>()->stmts) visit(c);
        break;
      case ir::StmtKind::If:
        visit(s.as<ir::If>()->then_case);
        visit(s.as<ir::If>()->else_case);
        break;
      case ir::StmtKind::For: {
        // A loop of a few constant trips (a small vector's components, a short stencil) stays in gangs: LLVM
        // unrolls it, and the gang computes the lanes' rows side by side.
        const auto* f = s.as<ir::For>();
        const auto *lo = f->lo.as<ir::Const>(), *hi = f->hi.as<ir::Const>();
        const bool short_loop = lo && hi && hi->i - lo->i <= kShortLoopTrips;
        if (!short_loop) loops.push_back(f->index);
        visit(f->body);
        if (!short_loop) loops.pop_back();
        break;
      }
      case ir::StmtKind::Loop: visit(s.as<ir::Loop>()->body); break;
      default: break;
    }
  };
  visit(k.body);
  return found;
}

// A straight-line integer kernel whose arrays are all 8 or 16 bits wide (an image filter over bytes): LLVM's loop
// vectorizer runs its innermost dimension 32 bytes a vector and computes in the narrowest width the values need,
// where a gang has 8 lanes of 32-bit values (AVX2) and loads 8 bytes at a time. Measured on bench blur_u8 (3x3 box
// blur, 4096^2 u8, AVX2): 22 ms as gangs of 8, 5.1 ms on the scalar path. Loops, branches and atomics keep the
// gangs, whose masks the loop vectorizer would have to rebuild.
bool narrow_straight_line(const ir::Kernel& k) {
  if (k.launch != ir::LaunchKind::Parallel) return false;
  auto narrow_array = [&](const ir::ArrayRef& a) {
    if (a.space != ir::ArrayRef::Space::Param) return false;
    const DType t = k.params[static_cast<std::size_t>(a.index)].dtype;
    return is_integer(t) && dtype_bits(t) <= 16;
  };
  bool ok = true, any_access = false;
  std::function<void(const ir::Stmt&)> visit = [&](const ir::Stmt& s) {
    if (!s || !ok) return;
    switch (s->kind) {
      case ir::StmtKind::Block:
        for (const ir::Stmt& c : s.as<ir::Block>()->stmts) visit(c);
        return;
      case ir::StmtKind::Let:
      case ir::StmtKind::DeclareVar:
      case ir::StmtKind::Assign: break;
      case ir::StmtKind::Store:
        any_access = true;
        ok = narrow_array(s.as<ir::Store>()->array);
        break;
      default: ok = false; return;
    }
    std::unordered_set<const ir::ExprNode*> seen;
    for (const ir::Expr& e : ir::own_exprs(s))
      ir::walk(e, seen, [&](const ir::Expr& x) {
        if (auto l = x.as<ir::Load>()) {
          any_access = true;
          ok = ok && narrow_array(l->array);
        }
        if (x->kind == ir::ExprKind::TexSample || (x->type.dtype != DType::Bool && !is_integer(x->type.dtype)))
          ok = false;
      });
  };
  visit(k.body);
  return ok && any_access;
}

int counted_bits(DType t) {
  if (t == DType::I64 || t == DType::U64 || t == DType::Bool) return 0;
  return std::max(32, dtype_bits(t));
}

}  // namespace

SimdPlan plan_simd(const ir::Kernel& k, unsigned vector_bits, bool enabled) {
  SimdPlan plan;
  if (!enabled) {
    plan.why = "scalar path: TACK_CPU_SIMD=0";
    return plan;
  }
  if (k.launch == ir::LaunchKind::Workgroup && crosses_work_item_loop(k)) {
    plan.why = "scalar path: a value of a work-item loop is used outside it";
    return plan;
  }
  if (samples_texture(k)) {
    plan.why = "scalar path: the kernel samples a texture, which the SIMD path does not do yet";
    return plan;
  }
  LaneUniformity lanes(k);
  switch (access_in_divergent_loop(k, lanes)) {
    case DivergentAccess::Local:
      plan.why =
          "scalar path: a local array is indexed per work-item inside a loop whose work-items leave at "
          "different iterations";
      return plan;
    case DivergentAccess::Gather:
      plan.why =
          "scalar path: an array is gathered or scattered (an index not one apart from work-item to work-item) "
          "inside a loop whose work-items leave at different iterations";
      return plan;
    case DivergentAccess::None: break;
  }
  if (walks_own_row(k, lanes)) {
    plan.why =
        "scalar path: each work-item walks its own row (an index one apart from iteration to iteration of a "
        "for_range, not from work-item to work-item), which a gang would gather a row per lane";
    return plan;
  }
  if (narrow_straight_line(k)) {
    plan.why =
        "scalar path: a straight-line integer kernel over 8- and 16-bit arrays, which LLVM's loop vectorizer "
        "packs a whole vector of where gangs hold 32-bit lanes";
    return plan;
  }
  int widest = 32;
  for (std::size_t i = 0; i < k.lets.size(); ++i)
    if (lanes.let_varying(static_cast<int>(i))) widest = std::max(widest, counted_bits(k.lets[i].dtype));
  for (std::size_t i = 0; i < k.vars.size(); ++i)
    if (lanes.var_varying(static_cast<int>(i))) widest = std::max(widest, counted_bits(k.vars[i].dtype));
  plan.lanes = std::min(LaneUniformity::kMaxGang, std::max(2u, vector_bits / static_cast<unsigned>(widest)));
  plan.why = "SIMD path: gangs of " + std::to_string(plan.lanes) + " work-items, " + std::to_string(widest) +
             "-bit values in " + std::to_string(vector_bits) + "-bit vectors";
  return plan;
}

}  // namespace tack::analysis
