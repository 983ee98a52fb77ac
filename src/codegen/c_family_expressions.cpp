// The C-family emitter's expressions: pure C expressions, with a node used more
// than once in a statement computed once into a temporary, and conversions as
// docs/semantics.md defines them (float to int and f64 to f32 through helpers).
#include "codegen/c_family.hpp"

#include "ir/check.hpp"
#include "ir/scalar_ops.hpp"

namespace tack::codegen {

namespace {
bool is_int(DType t) { return t != DType::Bool && !is_float(t); }
}  // namespace

std::string CFamilyCodeGen::converted(const ir::Expr& e, DType to) { return cast(e->type.dtype, to, expr(e)); }

std::string CFamilyCodeGen::expr(const ir::Expr& e) {
  TACK_CHECK(e && e->type.is_strong());
  auto it = temps_.find(e.get());
  if (it != temps_.end()) return it->second;
  std::string s = compute(e);
  bool trivial = e->kind == ir::ExprKind::Const || e->kind == ir::ExprKind::LetRef || e->kind == ir::ExprKind::VarRef ||
                 e->kind == ir::ExprKind::LoopIndex || e->kind == ir::ExprKind::GroupValue;
  if (!trivial && uses_[e.get()] > 1) {
    std::string name = "__t" + std::to_string(temp_count_++) + "__";
    pending_.push_back("const " + type_name(e->type.dtype) + " " + name + " = " + s + ";");
    temps_.emplace(e.get(), name);
    return name;
  }
  return s;
}

std::string CFamilyCodeGen::cast(DType from, DType to, const std::string& x) {
  if (from == to) return x;
  if (to == DType::Bool) return "(" + x + " != " + literal_int(from == DType::Bool ? DType::I32 : from, 0) + ")";
  if (from == DType::Bool) return "((" + type_name(to) + ")(" + x + " ? 1 : 0))";
  if (is_float(from) && is_int(to)) return float_to_int(from, to, x);
  if (from == DType::F64 && to == DType::F32) return f64_to_f32_helper() + "(" + x + ")";
  return "((" + type_name(to) + ")(" + x + "))";
}

std::string CFamilyCodeGen::compute(const ir::Expr& e) {
  switch (e->kind) {
    case ir::ExprKind::Const: return literal(e->type.dtype, ir::const_bits(e.as<ir::Const>()));
    case ir::ExprKind::ScalarParam:
    case ir::ExprKind::ArrayDim: TACK_UNREACHABLE("c_family: host scalars must be packed first (pack_scalars)");
    case ir::ExprKind::LoopIndex: {
      int d = e.as<ir::LoopIndex>()->dim;
      TACK_CHECK(d >= 0 && static_cast<std::size_t>(d) < loop_index_.size() && !loop_index_[d].empty());
      return loop_index_[static_cast<std::size_t>(d)];
    }
    case ir::ExprKind::GroupValue:
      switch (e.as<ir::GroupValue>()->field) {
        case ir::GroupField::LocalId: return "__lid__";
        case ir::GroupField::GroupId: return "__gid__";
        case ir::GroupField::GroupSize: return literal_int(DType::I64, kGpuGroupSize);
        case ir::GroupField::NumGroups: return param_ref("__n__");
      }
      TACK_UNREACHABLE("c_family: unknown group field");
    case ir::ExprKind::LetRef: return let_name(e.as<ir::LetRef>()->id);
    case ir::ExprKind::VarRef: return var_name(e.as<ir::VarRef>()->id);
    case ir::ExprKind::Load: {
      const auto* n = e.as<ir::Load>();
      return cast(array_dtype(n->array), e->type.dtype, element(n->array, n->index));
    }
    case ir::ExprKind::Op: return op(e.as<ir::Op>(), e);
    case ir::ExprKind::Select: {
      const auto* n = e.as<ir::Select>();
      return "(" + converted(n->cond, DType::Bool) + " ? " + converted(n->if_true, e->type.dtype) + " : " +
             converted(n->if_false, e->type.dtype) + ")";
    }
    case ir::ExprKind::Cast: {
      const auto* n = e.as<ir::Cast>();
      return cast(n->value->type.dtype, e->type.dtype, expr(n->value));
    }
    case ir::ExprKind::TexSample: {
      const auto* n = e.as<ir::TexSample>();
      // Hardware sampling only where the dialect has it (the runtimes choosing it: texture_in_hardware).
      const bool hardware = k_->params[static_cast<std::size_t>(n->param)].hardware_texture;
      TACK_CHECK(!hardware || hardware_textures());
      auto extent = [&](int d) {
        const abi::PackSlot* s = packed_->pack.find(abi::PackSlot::Source::TextureExtent, n->param, d);
        TACK_CHECK(s);
        return let_name(s->let);
      };
      std::string fn = hardware ? hardware_texture_sample_helper() : texture_sample_helper();
      std::string r = fn + "(" + param_ref("t" + std::to_string(n->param)) + ", " + extent(0) + ", " + extent(1) +
                      ", " + extent(2) + ", " + converted(n->u, DType::F32) + ", " + converted(n->v, DType::F32) +
                      ", " + converted(n->w, DType::F32) + ")";
      return cast(DType::F32, e->type.dtype, r);
    }
  }
  TACK_UNREACHABLE("c_family: unknown expression kind");
}

}  // namespace tack::codegen
