// Evaluates a launch range on the host: a pure expression of scalar parameters, array extents and constants.
#include "interp/eval_host.hpp"
#include "interp/interpreter.hpp"

#include "ir/check.hpp"
#include "ir/printer.hpp"

#include <tack/error.hpp>

namespace tack::interp {

ir::Bits eval_host(const ir::Expr& e, const HostInputs& in) {
  TACK_CHECK(e);
  switch (e->kind) {
    case ir::ExprKind::Const: return ir::const_bits(e.as<ir::Const>());
    case ir::ExprKind::ScalarParam: return ir::normalize(e->type.dtype, in.scalar(e.as<ir::ScalarParam>()->param));
    case ir::ExprKind::ArrayDim: {
      const auto* n = e.as<ir::ArrayDim>();
      TACK_CHECK(n->dim == ir::ArrayDim::kSize || (n->dim >= 0 && n->dim < 4));
      return static_cast<ir::Bits>(in.extent(n->param, n->dim));
    }
    case ir::ExprKind::Op: {
      const auto* n = e.as<ir::Op>();
      ir::Bits x[3] = {};
      for (int k = 0; k < n->arity(); ++k) x[k] = eval_host(n->args[static_cast<std::size_t>(k)], in);
      return ir::eval_op(n->op, n->args[0]->type.dtype, x);
    }
    case ir::ExprKind::Select: {
      const auto* n = e.as<ir::Select>();
      ir::Bits c = eval_host(n->cond, in);
      ir::Bits a = eval_host(n->if_true, in);
      ir::Bits b = eval_host(n->if_false, in);
      return c ? a : b;
    }
    case ir::ExprKind::Cast: {
      const auto* n = e.as<ir::Cast>();
      return ir::eval_cast(n->value->type.dtype, n->type.dtype, eval_host(n->value, in));
    }
    default:
      throw InvalidArgument("a launch range may use only scalar parameters, array extents and constants, not " +
                            ir::to_string(e));
  }
}

ir::Bits eval_host(const ir::Expr& e, std::span<const Arg> args) {
  auto arg = [&](int p, ir::ParamKind kind) -> const Arg& {
    TACK_CHECK(p >= 0 && static_cast<std::size_t>(p) < args.size());
    const Arg& a = args[static_cast<std::size_t>(p)];
    TACK_CHECK(a.kind == kind);
    return a;
  };
  HostInputs in;
  in.scalar = [&](int p) { return arg(p, ir::ParamKind::Scalar).scalar; };
  in.extent = [&](int p, int dim) {
    const ArrayArg& a = arg(p, ir::ParamKind::Array).array;
    return dim == ir::ArrayDim::kSize ? a.size : a.shape[static_cast<std::size_t>(dim)];
  };
  return eval_host(e, in);
}

}  // namespace tack::interp
