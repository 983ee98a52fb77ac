// Evaluates a launch range on the host: a pure expression of scalar parameters, array extents and constants.
#include "interp/interpreter.hpp"

#include "ir/check.hpp"
#include "ir/printer.hpp"

#include <tack/error.hpp>

namespace tack::interp {

ir::Bits eval_host(const ir::Expr& e, std::span<const Arg> args) {
  TACK_CHECK(e);
  auto arg = [&](int p) -> const Arg& {
    TACK_CHECK(p >= 0 && static_cast<std::size_t>(p) < args.size());
    return args[static_cast<std::size_t>(p)];
  };
  switch (e->kind) {
    case ir::ExprKind::Const: return ir::const_bits(e.as<ir::Const>());
    case ir::ExprKind::ScalarParam: {
      const Arg& a = arg(e.as<ir::ScalarParam>()->param);
      TACK_CHECK(a.kind == ir::ParamKind::Scalar);
      return ir::normalize(e->type.dtype, a.scalar);
    }
    case ir::ExprKind::ArrayDim: {
      const auto* n = e.as<ir::ArrayDim>();
      const Arg& a = arg(n->param);
      TACK_CHECK(a.kind == ir::ParamKind::Array && n->dim >= ir::ArrayDim::kSize && n->dim < 4);
      return static_cast<ir::Bits>(n->dim == ir::ArrayDim::kSize ? a.array.size
                                                                 : a.array.shape[static_cast<std::size_t>(n->dim)]);
    }
    case ir::ExprKind::Op: {
      const auto* n = e.as<ir::Op>();
      ir::Bits x[3] = {};
      for (int k = 0; k < n->arity(); ++k) x[k] = eval_host(n->args[static_cast<std::size_t>(k)], args);
      return ir::eval_op(n->op, n->args[0]->type.dtype, x);
    }
    case ir::ExprKind::Select: {
      const auto* n = e.as<ir::Select>();
      ir::Bits c = eval_host(n->cond, args);
      ir::Bits a = eval_host(n->if_true, args);
      ir::Bits b = eval_host(n->if_false, args);
      return c ? a : b;
    }
    case ir::ExprKind::Cast: {
      const auto* n = e.as<ir::Cast>();
      return ir::eval_cast(n->value->type.dtype, n->type.dtype, eval_host(n->value, args));
    }
    default:
      throw InvalidArgument("a launch range may use only scalar parameters, array extents and constants, not " +
                            ir::to_string(e));
  }
}

}  // namespace tack::interp
