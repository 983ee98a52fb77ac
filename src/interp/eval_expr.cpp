// Evaluates a pure expression for the active lanes of a batch, lane by lane through ir::eval_op / eval_cast.
#include "interp/eval_expr.hpp"

#include "interp/memory.hpp"
#include "interp/texture_sample.hpp"

#include <tack/error.hpp>

#include <bit>
#include <optional>
#include <string>

namespace tack::interp {
namespace {

using ir::Bits;

void fill(const Mask& mask, Bits* out, Bits v) {
  mask.for_each([&](int l) { out[l] = v; });
}

void copy(const Mask& mask, Bits* out, const Bits* in) {
  mask.for_each([&](int l) { out[l] = in[l]; });
}

std::string where(const Context& ctx) {
  std::string s = ctx.loc ? ctx.loc->str() : "";
  return s.empty() ? "" : " at " + s;
}

void eval_load(Context& ctx, const ir::Load* n, const Mask& mask, Bits* out) {
  eval_expr(ctx, n->index, mask, out);
  ArrayView v = array_view(ctx, n->array);
  DType want = n->type.dtype;
  mask.for_each([&](int l) {
    auto i = static_cast<std::int64_t>(out[l]);
    check_index(ctx, n->array, v, i);
    Bits b = v.data ? load_element(v, i) : local_element(ctx, n->array, i, l);
    out[l] = v.dtype == want ? b : ir::eval_cast(v.dtype, want, b);
  });
}

void eval_op_node(Context& ctx, const ir::Op* n, const Mask& mask, Bits* out) {
  int arity = n->arity();
  // The first operand is evaluated into out and combined in place; the others go to scratch.
  eval_expr(ctx, n->args[0], mask, out);
  std::optional<LaneBuffer> b, c;
  if (arity >= 2) {
    b.emplace(ctx.scratch);
    eval_expr(ctx, n->args[1], mask, b->get());
  }
  if (arity >= 3) {
    c.emplace(ctx.scratch);
    eval_expr(ctx, n->args[2], mask, c->get());
  }
  const Bits* pb = b ? b->get() : out;
  const Bits* pc = c ? c->get() : out;
  DType t = n->args[0]->type.dtype;
  ir::OpCode op = n->op;
  mask.for_each([&](int l) {
    Bits x[3] = {out[l], pb[l], pc[l]};
    out[l] = ir::eval_op(op, t, x);
  });
}

void eval_tex(Context& ctx, const ir::TexSample* n, const Mask& mask, Bits* out) {
  const Arg& arg = ctx.arg(n->param);
  TACK_CHECK(arg.kind == ir::ParamKind::Texture);
  const TextureArg& tex = arg.texture;
  if (!tex.data || tex.width < 1 || tex.height < 1 || tex.depth < 1) {
    throw InvalidArgument("kernel '" + ctx.kernel.name + "': texture argument " + std::to_string(n->param) +
                          " is empty" + where(ctx));
  }
  LaneBuffer v(ctx.scratch), w(ctx.scratch);
  eval_expr(ctx, n->u, mask, out);
  eval_expr(ctx, n->v, mask, v.get());
  eval_expr(ctx, n->w, mask, w.get());
  // Coordinates are F32 after type inference; anything else is converted as Cast would.
  auto f32 = [](const ir::Expr& c, Bits b) {
    if (c->type.dtype != DType::F32) b = ir::eval_cast(c->type.dtype, DType::F32, b);
    return std::bit_cast<float>(static_cast<std::uint32_t>(b));
  };
  mask.for_each([&](int l) {
    float r = texture_sample(tex, f32(n->u, out[l]), f32(n->v, v[l]), f32(n->w, w[l]));
    out[l] = std::bit_cast<std::uint32_t>(r);
  });
}

}  // namespace

void eval_expr(Context& ctx, const ir::Expr& e, const Mask& mask, Bits* out) {
  switch (e->kind) {
    case ir::ExprKind::Const: return fill(mask, out, ir::const_bits(e.as<ir::Const>()));
    case ir::ExprKind::ScalarParam: {
      const Arg& a = ctx.arg(e.as<ir::ScalarParam>()->param);
      TACK_CHECK(a.kind == ir::ParamKind::Scalar);
      return fill(mask, out, ir::normalize(e->type.dtype, a.scalar));
    }
    case ir::ExprKind::ArrayDim: {
      const auto* n = e.as<ir::ArrayDim>();
      const Arg& a = ctx.arg(n->param);
      if (a.kind == ir::ParamKind::Texture) {
        const std::int64_t extents[3] = {a.texture.width, a.texture.height, a.texture.depth};
        TACK_CHECK(n->dim >= 0 && n->dim < 3);
        return fill(mask, out, static_cast<Bits>(extents[n->dim]));
      }
      TACK_CHECK(a.kind == ir::ParamKind::Array && (n->dim == ir::ArrayDim::kSize || (n->dim >= 0 && n->dim < 4)));
      std::int64_t v = n->dim == ir::ArrayDim::kSize ? a.array.size : a.array.shape[static_cast<std::size_t>(n->dim)];
      return fill(mask, out, static_cast<Bits>(v));
    }
    case ir::ExprKind::LoopIndex: {
      int dim = e.as<ir::LoopIndex>()->dim;
      if (ctx.workgroup) {  // the global work-item id
        Bits base = static_cast<Bits>(ctx.group_id * kGroupSize);
        return mask.for_each([&](int l) { out[l] = base + static_cast<Bits>(l); });
      }
      TACK_CHECK(dim >= 0 && static_cast<std::size_t>(dim) < ctx.loop_index.size());
      const auto& idx = ctx.loop_index[static_cast<std::size_t>(dim)];
      return mask.for_each([&](int l) { out[l] = static_cast<Bits>(idx[static_cast<std::size_t>(l)]); });
    }
    case ir::ExprKind::GroupValue: {
      if (!ctx.workgroup) {
        throw InvalidArgument("kernel '" + ctx.kernel.name + "': a work-group value is used outside a workgroup loop" +
                              where(ctx));
      }
      switch (e.as<ir::GroupValue>()->field) {
        case ir::GroupField::LocalId: return mask.for_each([&](int l) { out[l] = static_cast<Bits>(l); });
        case ir::GroupField::GroupId: return fill(mask, out, static_cast<Bits>(ctx.group_id));
        case ir::GroupField::GroupSize: return fill(mask, out, static_cast<Bits>(kGroupSize));
        case ir::GroupField::NumGroups: return fill(mask, out, static_cast<Bits>(ctx.num_groups));
      }
      TACK_UNREACHABLE("group field");
    }
    case ir::ExprKind::LetRef: return copy(mask, out, ctx.let(e.as<ir::LetRef>()->id));
    case ir::ExprKind::VarRef: return copy(mask, out, ctx.var(e.as<ir::VarRef>()->id));
    case ir::ExprKind::Load: return eval_load(ctx, e.as<ir::Load>(), mask, out);
    case ir::ExprKind::Op: return eval_op_node(ctx, e.as<ir::Op>(), mask, out);
    case ir::ExprKind::Select: {
      const auto* n = e.as<ir::Select>();
      LaneBuffer a(ctx.scratch), b(ctx.scratch);
      eval_expr(ctx, n->cond, mask, out);
      eval_expr(ctx, n->if_true, mask, a.get());
      eval_expr(ctx, n->if_false, mask, b.get());
      return mask.for_each([&](int l) { out[l] = out[l] ? a[l] : b[l]; });
    }
    case ir::ExprKind::Cast: {
      const auto* n = e.as<ir::Cast>();
      eval_expr(ctx, n->value, mask, out);
      DType from = n->value->type.dtype, to = n->type.dtype;
      return mask.for_each([&](int l) { out[l] = ir::eval_cast(from, to, out[l]); });
    }
    case ir::ExprKind::TexSample: return eval_tex(ctx, e.as<ir::TexSample>(), mask, out);
  }
  TACK_UNREACHABLE("unknown expression kind");
}

}  // namespace tack::interp
