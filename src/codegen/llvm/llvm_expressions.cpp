// The CPU code generator's expressions: each node of a statement emitted once
// (a shared node is one LLVM value), operators through llvm_ops with the
// `contract` flag only where docs/semantics.md allows a product to fuse.
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "codegen/llvm/llvm_ops.hpp"
#include "ir/check.hpp"
#include "ir/scalar_ops.hpp"

namespace tack::codegen::detail {

using llvm::Value;

// e converted to dtype `to` as Cast does (stores, Lets and Vars convert what they are given).
Value* KernelEmitter::converted(const ir::Expr& e, DType to) { return emit_cast(b_, e->type.dtype, to, expr(e)); }

Value* KernelEmitter::expr(const ir::Expr& e) {
  TACK_CHECK(e && e->type.is_strong());
  auto it = cache_.find(e.get());
  if (it != cache_.end()) return it->second;
  Value* v = compute(e);
  cache_.emplace(e.get(), v);
  return v;
}

Value* KernelEmitter::compute(const ir::Expr& e) {
  switch (e->kind) {
    case ir::ExprKind::Const: return emit_const(b_, e->type.dtype, ir::const_bits(e.as<ir::Const>()));
    case ir::ExprKind::ScalarParam: {
      int p = e.as<ir::ScalarParam>()->param;
      TACK_CHECK(p >= 0 && static_cast<std::size_t>(p) < k_.params.size() &&
                 k_.params[static_cast<std::size_t>(p)].kind == ir::ParamKind::Scalar);
      DType pt = k_.params[static_cast<std::size_t>(p)].dtype;
      TACK_CHECK(pt == e->type.dtype);
      return params_[static_cast<std::size_t>(p)].scalar;
    }
    case ir::ExprKind::ArrayDim: {
      const auto* n = e.as<ir::ArrayDim>();
      if (k_.params[static_cast<std::size_t>(n->param)].kind == ir::ParamKind::Texture) {
        TACK_CHECK(n->dim >= 0 && n->dim < 3);  // width, height, depth, as the sample reads them
        return params_[static_cast<std::size_t>(n->param)].extent[static_cast<std::size_t>(n->dim)];
      }
      const ParamValues& pv = array_param(ir::ArrayRef{ir::ArrayRef::Space::Param, n->param});
      if (n->dim == ir::ArrayDim::kSize) return pv.size;
      TACK_CHECK(n->dim >= 0 && n->dim < k_.params[static_cast<std::size_t>(n->param)].rank);
      return pv.extent[static_cast<std::size_t>(n->dim)];
    }
    case ir::ExprKind::LoopIndex: {
      int d = e.as<ir::LoopIndex>()->dim;
      TACK_CHECK(d >= 0 && static_cast<std::size_t>(d) < loop_index_.size());
      return loop_index_[static_cast<std::size_t>(d)];
    }
    case ir::ExprKind::GroupValue:
      TACK_UNREACHABLE("llvm_gen: group values must be lowered by passes::lower_workgroups");
    case ir::ExprKind::LetRef: {
      if (Value* v = let_values_ssa_[static_cast<std::size_t>(e.as<ir::LetRef>()->id)]) return v;
      llvm::AllocaInst* s = let_slot(e.as<ir::LetRef>()->id);
      return b_.CreateLoad(s->getAllocatedType(), s);
    }
    case ir::ExprKind::VarRef: {
      const int id = e.as<ir::VarRef>()->id;
      llvm::AllocaInst* s = var_slot(id);
      Value* v = b_.CreateLoad(s->getAllocatedType(), s);
      return narrow_var(id) ? b_.CreateSExt(v, shaped_like(b_.getInt64Ty(), v)) : v;
    }
    case ir::ExprKind::Load: {
      const auto* n = e.as<ir::Load>();
      if (gang_) return gang_load(n, e->type.dtype);
      DType t = array_dtype(n->array);
      Value* v = b_.CreateAlignedLoad(memory_type(c_, t), element_ptr(n->array, n->index), element_align(t));
      return emit_cast(b_, t, e->type.dtype, from_memory(b_, t, v));
    }
    case ir::ExprKind::Op: {
      const auto* n = e.as<ir::Op>();
      if (gang_ && lanes_->gang_block(e)) return gang_block(n);
      int arity = n->arity();
      DType t = n->args[0]->type.dtype;
      Value* args[3] = {};
      bool vector = false;
      for (int i = 0; i < arity; ++i) {
        const ir::Expr& a = n->args[static_cast<std::size_t>(i)];
        TACK_CHECK(a && a->type.dtype == t);
        args[i] = expr(a);
        vector = vector || is_vec(args[i]);
      }
      if (vector)
        for (int i = 0; i < arity; ++i) args[i] = splat(args[i]);
      bool contract = false;
      if (is_float(t)) {
        if (n->op == ir::OpCode::Mul) {
          contract = contract_.count(e.get()) != 0;
        } else if (n->op == ir::OpCode::Add || n->op == ir::OpCode::Sub) {
          contract = contract_.count(n->args[0].get()) != 0 || contract_.count(n->args[1].get()) != 0;
        }
      }
      return emit_op(b_, n->op, t, args, contract, math_);
    }
    case ir::ExprKind::Select: {
      const auto* n = e.as<ir::Select>();
      Value* c = converted(n->cond, DType::Bool);
      Value* a = converted(n->if_true, e->type.dtype);
      Value* f = converted(n->if_false, e->type.dtype);
      if (is_vec(c) || is_vec(a) || is_vec(f)) a = splat(a), f = splat(f);
      return b_.CreateSelect(c, a, f);  // a vector condition picks per lane
    }
    case ir::ExprKind::Cast: {
      const auto* n = e.as<ir::Cast>();
      return emit_cast(b_, n->value->type.dtype, e->type.dtype, expr(n->value));
    }
    case ir::ExprKind::TexSample: {
      const auto* n = e.as<ir::TexSample>();
      TACK_CHECK(n->param >= 0 && static_cast<std::size_t>(n->param) < k_.params.size() &&
                 k_.params[static_cast<std::size_t>(n->param)].kind == ir::ParamKind::Texture &&
                 !k_.params[static_cast<std::size_t>(n->param)].hardware_texture);  // the CPU samples in software
      const ParamValues& pv = params_[static_cast<std::size_t>(n->param)];
      TextureValues tex{pv.data, pv.extent[0], pv.extent[1], pv.extent[2]};
      Value* r = emit_texture_sample(b_, tex, converted(n->u, DType::F32), converted(n->v, DType::F32),
                                     converted(n->w, DType::F32));
      return emit_cast(b_, DType::F32, e->type.dtype, r);
    }
  }
  TACK_UNREACHABLE("llvm_gen: unknown expression kind");
}

}  // namespace tack::codegen::detail
