// Executes a statement in lock step for the active lanes of a batch: If splits the mask, loops run while any
// lane is active, and barriers and group reductions require every lane of the group.
#include "interp/exec_stmt.hpp"

#include "interp/eval_expr.hpp"
#include "interp/memory.hpp"

#include <tack/error.hpp>

#include <optional>
#include <string>

namespace tack::interp {
namespace {

using ir::Bits;

std::string where(const ir::SourceLoc& loc) {
  std::string s = loc.str();
  return s.empty() ? "" : " at " + s;
}

// Evaluates e into a scratch buffer and writes it, converted to dtype `to`, to dst for the active lanes.
void assign_lanes(Context& ctx, const ir::Expr& e, DType to, const Mask& mask, Bits* dst) {
  LaneBuffer v(ctx.scratch);
  eval_expr(ctx, e, mask, v.get());
  DType from = e->type.dtype;
  if (from == to) {
    mask.for_each([&](int l) { dst[l] = v[l]; });
  } else {
    mask.for_each([&](int l) { dst[l] = ir::eval_cast(from, to, v[l]); });
  }
}

void exec_store(Context& ctx, const ir::Store* n, const Mask& mask) {
  LaneBuffer idx(ctx.scratch), val(ctx.scratch);
  eval_expr(ctx, n->index, mask, idx.get());
  eval_expr(ctx, n->value, mask, val.get());
  ArrayView v = array_view(ctx, n->array);
  DType from = n->value->type.dtype;
  mask.for_each([&](int l) {
    auto i = static_cast<std::int64_t>(idx[l]);
    check_index(ctx, n->array, v, i);
    Bits b = from == v.dtype ? val[l] : ir::eval_cast(from, v.dtype, val[l]);
    if (v.data)
      store_element(v, i, b);
    else
      local_element(ctx, n->array, i, l) = v.dtype == DType::Bool ? (b != 0) : b;
  });
}

void exec_atomic(Context& ctx, const ir::Atomic* n, const Mask& mask) {
  LaneBuffer idx(ctx.scratch), val(ctx.scratch);
  std::optional<LaneBuffer> cmp;
  eval_expr(ctx, n->index, mask, idx.get());
  eval_expr(ctx, n->value, mask, val.get());
  if (n->op == ir::AtomicOp::Cas) {
    cmp.emplace(ctx.scratch);
    eval_expr(ctx, n->compare, mask, cmp->get());
  }
  ArrayView v = array_view(ctx, n->array);
  DType t = v.dtype;
  ir::OpCode op = ir::OpCode::Add;
  switch (n->op) {
    case ir::AtomicOp::Add: op = ir::OpCode::Add; break;
    case ir::AtomicOp::Sub: op = ir::OpCode::Sub; break;
    case ir::AtomicOp::Min: op = ir::OpCode::Min; break;
    case ir::AtomicOp::Max: op = ir::OpCode::Max; break;
    case ir::AtomicOp::And: op = ir::OpCode::BitAnd; break;
    case ir::AtomicOp::Or: op = ir::OpCode::BitOr; break;
    case ir::AtomicOp::Xor: op = ir::OpCode::BitXor; break;
    case ir::AtomicOp::Exchange:
    case ir::AtomicOp::Cas: break;
  }
  bool bitwise = n->op == ir::AtomicOp::And || n->op == ir::AtomicOp::Or || n->op == ir::AtomicOp::Xor;
  if (bitwise && !is_integer(t)) {
    throw InvalidArgument("kernel '" + ctx.kernel.name + "': atomic " + ir::atomic_name(n->op) + " needs an integer " +
                          "array, not " + std::string(dtype_name(t)) + where(n->loc));
  }
  DType vt = n->value->type.dtype;
  DType ct = n->compare ? n->compare->type.dtype : t;
  Bits* result = ctx.let(n->result);
  DType rt = ctx.kernel.lets[static_cast<std::size_t>(n->result)].dtype;
  mask.for_each([&](int l) {
    auto i = static_cast<std::int64_t>(idx[l]);
    check_index(ctx, n->array, v, i);
    Bits old = load_element(v, i);
    Bits x = vt == t ? val[l] : ir::eval_cast(vt, t, val[l]);
    switch (n->op) {
      case ir::AtomicOp::Exchange: store_element(v, i, x); break;
      case ir::AtomicOp::Cas:
        if (old == (ct == t ? (*cmp)[l] : ir::eval_cast(ct, t, (*cmp)[l]))) store_element(v, i, x);
        break;
      default: {
        Bits operands[2] = {old, x};
        store_element(v, i, ir::eval_op(op, t, operands));
      }
    }
    result[l] = rt == t ? old : ir::eval_cast(t, rt, old);
  });
}

void exec_if(Context& ctx, const ir::If* n, Mask& mask) {
  Mask then_mask, else_mask;
  {
    LaneBuffer c(ctx.scratch);
    eval_expr(ctx, n->cond, mask, c.get());
    mask.for_each([&](int l) { c[l] ? then_mask.set(l) : else_mask.set(l); });
  }
  if (then_mask.any()) exec_stmt(ctx, n->then_case, then_mask);
  if (n->else_case && else_mask.any()) exec_stmt(ctx, n->else_case, else_mask);
  mask = then_mask | else_mask;
}

// Runs one iteration of a loop body for `iter`; returns the lanes that did not Break.
Mask run_iteration(Context& ctx, const ir::Stmt& body, const Mask& iter) {
  ctx.breaks.emplace_back();
  Mask m = iter;
  exec_stmt(ctx, body, m);
  Mask broke = ctx.breaks.back();
  ctx.breaks.pop_back();
  return iter.without(broke);
}

void exec_for(Context& ctx, const ir::For* n, const Mask& mask) {
  // lo and hi are evaluated once, when the loop starts.
  LaneBuffer i(ctx.scratch), hi(ctx.scratch);
  eval_expr(ctx, n->lo, mask, i.get());
  eval_expr(ctx, n->hi, mask, hi.get());
  auto less = [&](int l) { return static_cast<std::int64_t>(i[l]) < static_cast<std::int64_t>(hi[l]); };
  Mask iter;
  mask.for_each([&](int l) {
    if (less(l)) iter.set(l);
  });
  Bits* index = ctx.let(n->index);
  while (iter.any()) {
    iter.for_each([&](int l) { index[l] = i[l]; });
    Mask next = run_iteration(ctx, n->body, iter);
    iter = Mask{};
    next.for_each([&](int l) {
      i[l] += 1;  // i < hi <= INT64_MAX, so this cannot overflow
      if (less(l)) iter.set(l);
    });
  }
}

void exec_loop(Context& ctx, const ir::Loop* n, const Mask& mask) {
  Mask iter = mask;
  while (iter.any()) iter = run_iteration(ctx, n->body, iter);
}

// Barrier and GroupReduce: every work-item of the group must arrive together.
void require_whole_group(const Context& ctx, const Mask& mask, const char* what, const ir::SourceLoc& loc) {
  if (!ctx.workgroup) {
    throw InvalidArgument("kernel '" + ctx.kernel.name + "': " + what + where(loc) +
                          " is only allowed inside a workgroup loop");
  }
  if (mask == ctx.group_mask) return;
  throw InvalidArgument("kernel '" + ctx.kernel.name + "': " + what + where(loc) + " was reached by only " +
                        std::to_string(mask.count()) + " of the " + std::to_string(kGroupSize) +
                        " work-items of group " + std::to_string(ctx.group_id) +
                        "; every work-item of a group must reach it (it may not sit in divergent control flow)");
}

void exec_group_reduce(Context& ctx, const ir::GroupReduce* n, const Mask& mask) {
  require_whole_group(ctx, mask, "a group reduction", n->loc);
  DType t = n->value->type.dtype;
  if (t == DType::Bool) {
    throw InvalidArgument("kernel '" + ctx.kernel.name + "': group reduce_" + ir::reduce_name(n->op) +
                          " needs a numeric value, not bool" + where(n->loc));
  }
  ir::OpCode op = n->op == ir::ReduceOp::Add   ? ir::OpCode::Add
                  : n->op == ir::ReduceOp::Min ? ir::OpCode::Min
                                               : ir::OpCode::Max;
  LaneBuffer v(ctx.scratch);
  eval_expr(ctx, n->value, mask, v.get());
  std::optional<Bits> acc;
  mask.for_each([&](int l) {
    if (!acc) {
      acc = v[l];
    } else {
      Bits operands[2] = {*acc, v[l]};
      acc = ir::eval_op(op, t, operands);
    }
  });
  Bits* result = ctx.let(n->result);
  DType rt = ctx.kernel.lets[static_cast<std::size_t>(n->result)].dtype;
  Bits r = rt == t ? *acc : ir::eval_cast(t, rt, *acc);
  mask.for_each([&](int l) { result[l] = r; });
}

}  // namespace

void exec_stmt(Context& ctx, const ir::Stmt& s, Mask& mask) {
  ctx.loc = &s->loc;
  switch (s->kind) {
    case ir::StmtKind::Block:
      for (const ir::Stmt& child : s.as<ir::Block>()->stmts) {
        if (mask.none()) return;
        exec_stmt(ctx, child, mask);
      }
      return;
    case ir::StmtKind::Let: {
      const auto* n = s.as<ir::Let>();
      Bits* dst = ctx.let(n->id);
      return assign_lanes(ctx, n->value, ctx.kernel.lets[static_cast<std::size_t>(n->id)].dtype, mask, dst);
    }
    case ir::StmtKind::DeclareVar: {
      const auto* n = s.as<ir::DeclareVar>();
      Bits* dst = ctx.var(n->id);
      return assign_lanes(ctx, n->init, ctx.kernel.vars[static_cast<std::size_t>(n->id)].dtype, mask, dst);
    }
    case ir::StmtKind::Assign: {
      const auto* n = s.as<ir::Assign>();
      Bits* dst = ctx.var(n->id);
      return assign_lanes(ctx, n->value, ctx.kernel.vars[static_cast<std::size_t>(n->id)].dtype, mask, dst);
    }
    case ir::StmtKind::Store: return exec_store(ctx, s.as<ir::Store>(), mask);
    case ir::StmtKind::Atomic: return exec_atomic(ctx, s.as<ir::Atomic>(), mask);
    case ir::StmtKind::If: return exec_if(ctx, s.as<ir::If>(), mask);
    case ir::StmtKind::For: return exec_for(ctx, s.as<ir::For>(), mask);
    case ir::StmtKind::Loop: return exec_loop(ctx, s.as<ir::Loop>(), mask);
    case ir::StmtKind::Break:
      TACK_CHECK(!ctx.breaks.empty());
      ctx.breaks.back() = ctx.breaks.back() | mask;
      mask = Mask{};
      return;
    case ir::StmtKind::Continue:
      TACK_CHECK(!ctx.breaks.empty());
      mask = Mask{};
      return;
    case ir::StmtKind::Barrier:
      // Lock step already finishes every statement before the barrier for all lanes first.
      return require_whole_group(ctx, mask, "a barrier", s->loc);
    case ir::StmtKind::GroupReduce: return exec_group_reduce(ctx, s.as<ir::GroupReduce>(), mask);
    // The interpreter runs what every backend runs: the stores passes::lower_prints makes of it.
    case ir::StmtKind::Print: TACK_UNREACHABLE("interp: prints must be lowered by passes::lower_prints");
  }
  TACK_UNREACHABLE("unknown statement kind");
}

}  // namespace tack::interp
