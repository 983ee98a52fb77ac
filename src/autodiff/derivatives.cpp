// The derivative rules: one switch over the float operations of ops.def, each partial written with the
// operands (and the operation's own value, where that is cheaper: exp, sqrt, tanh).
#include "autodiff/derivatives.hpp"

#include "ir/check.hpp"

#include <cmath>
#include <numbers>

namespace tack::autodiff {
using ir::Expr;
using ir::OpCode;

namespace {
bool is_constant(const Expr& e, double v) {
  const auto* c = e.as<ir::Const>();
  return c && is_float(c->type.dtype) && c->f == v;
}
Expr boolean_op(OpCode op, const Expr& a, const Expr& b = {}) {
  return ir::Op::make(ir::Type::strong(DType::Bool), op, a, b);
}
}  // namespace

Expr FloatMath::constant(double v) const {
  // An f32 constant holds an f32 value (ir/verify.cpp's canonical form).
  return ir::Const::make_float(type(), dtype == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v);
}

Expr FloatMath::add(const Expr& a, const Expr& b) const {
  if (!a) return b;
  if (!b) return a;
  return ir::Op::make(type(), OpCode::Add, a, b);
}

Expr FloatMath::sub(const Expr& a, const Expr& b) const {
  if (!b) return a;
  if (!a) return neg(b);
  return ir::Op::make(type(), OpCode::Sub, a, b);
}

Expr FloatMath::mul(const Expr& a, const Expr& b) const {
  if (!a || !b) return {};
  if (is_constant(a, 1)) return b;
  if (is_constant(b, 1)) return a;
  if (is_constant(a, -1)) return neg(b);
  if (is_constant(b, -1)) return neg(a);
  return ir::Op::make(type(), OpCode::Mul, a, b);
}

Expr FloatMath::div(const Expr& a, const Expr& b) const {
  if (!a) return {};
  return ir::Op::make(type(), OpCode::Div, a, b);
}

Expr FloatMath::neg(const Expr& a) const {
  if (!a) return {};
  if (const auto* n = a.as<ir::Op>(); n && n->op == OpCode::Neg) return n->args[0];
  return ir::Op::make(type(), OpCode::Neg, a);
}

Expr FloatMath::unary(OpCode op, const Expr& a) const { return ir::Op::make(type(), op, a); }

Expr FloatMath::binary(OpCode op, const Expr& a, const Expr& b) const { return ir::Op::make(type(), op, a, b); }

Expr FloatMath::select(const Expr& cond, const Expr& a, const Expr& b) const {
  if (!a && !b) return {};
  return ir::Select::make(type(), cond, a ? a : constant(0), b ? b : constant(0));
}

Expr compare(OpCode op, const Expr& a, const Expr& b) { return boolean_op(op, a, b); }

Expr logical_or(const Expr& a, const Expr& b) { return boolean_op(OpCode::Or, a, b); }

std::array<Expr, 3> texture_partials(const ir::TexSample& n) {
  const FloatMath m{DType::F32};
  const Expr coords[3] = {n.u, n.v, n.w};
  std::array<Expr, 3> out;
  for (int a = 0; a < 3; ++a) {
    TACK_CHECK(coords[a]->type.dtype == DType::F32);
    // e = extent - 1; the cell [i0, i0 + 1] holding c * e (the last cell at c == 1).
    const Expr e =
        ir::Cast::make(m.type(), ir::Op::make(ir::Type::strong(DType::I64), OpCode::Sub, ir::ArrayDim::make(n.param, a),
                                              ir::Const::make_int(ir::Type::strong(DType::I64), 1)));
    const Expr i0 = m.binary(OpCode::Min, m.unary(OpCode::Floor, m.mul(coords[a], e)), m.sub(e, m.constant(1)));
    Expr lo[3] = {n.u, n.v, n.w}, hi[3] = {n.u, n.v, n.w};
    lo[a] = m.div(i0, e);
    hi[a] = m.div(m.add(i0, m.constant(1)), e);
    const Expr at_lo = ir::TexSample::make(n.type, n.param, lo[0], lo[1], lo[2]);
    const Expr at_hi = ir::TexSample::make(n.type, n.param, hi[0], hi[1], hi[2]);
    const Expr inside = ir::Op::make(
        ir::Type::strong(DType::Bool), OpCode::And,
        ir::Op::make(ir::Type::strong(DType::Bool), OpCode::And, compare(OpCode::Gt, coords[a], m.constant(0)),
                     compare(OpCode::Lt, coords[a], m.constant(1))),
        compare(OpCode::Gt, e, m.constant(0)));
    out[static_cast<size_t>(a)] = m.select(inside, m.mul(m.binary(OpCode::Sub, at_hi, at_lo), e), {});
  }
  return out;
}

bool partials_read_operands(OpCode op) {
  switch (op) {
    case OpCode::Neg:
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Floor:
    case OpCode::Ceil:
    case OpCode::Round:
    case OpCode::Trunc:
    case OpCode::FloorDiv: return false;
    default: return true;
  }
}

std::array<Expr, 3> partials(const ir::Op& op, const Expr& self) {
  const FloatMath m{op.type.dtype};
  TACK_CHECK(is_float(m.dtype));
  const Expr& a = op.args[0];
  const Expr& b = op.args[1];
  const Expr one = m.constant(1), zero = m.constant(0);
  switch (op.op) {
    case OpCode::Neg: return {m.constant(-1)};
    // sign(a), and 0 at 0: the subgradient nearest to "no change" (docs/autodiff.md).
    case OpCode::Abs:
      return {m.select(compare(OpCode::Gt, a, zero), one, m.select(compare(OpCode::Lt, a, zero), m.constant(-1), {}))};
    case OpCode::Add: return {one, one};
    case OpCode::Sub: return {one, m.constant(-1)};
    case OpCode::Mul: return {b, a};
    case OpCode::Div: return {m.div(one, b), m.neg(m.div(self, b))};
    // fmod: a - trunc(a / b) * b, the quotient held fixed.
    case OpCode::Mod: return {one, m.neg(m.unary(OpCode::Trunc, m.div(a, b)))};
    case OpCode::FloorMod: return {one, m.neg(m.unary(OpCode::Floor, m.div(a, b)))};
    case OpCode::FloorDiv: return {};
    // The operand whose value min or max returns (docs/semantics.md: a NaN yields the other, ties the first).
    case OpCode::Min: {
      Expr first = logical_or(compare(OpCode::Le, a, b), boolean_op(OpCode::IsNan, b));
      return {m.select(first, one, {}), m.select(first, {}, one)};
    }
    case OpCode::Max: {
      Expr first = logical_or(compare(OpCode::Ge, a, b), boolean_op(OpCode::IsNan, b));
      return {m.select(first, one, {}), m.select(first, {}, one)};
    }
    case OpCode::Floor:
    case OpCode::Ceil:
    case OpCode::Round:
    case OpCode::Trunc: return {};
    case OpCode::Sqrt: return {m.div(m.constant(0.5), self)};
    case OpCode::Rsqrt: return {m.mul(m.constant(-0.5), m.mul(self, m.mul(self, self)))};
    case OpCode::Exp: return {self};
    case OpCode::Exp2: return {m.mul(self, m.constant(std::numbers::ln2))};
    case OpCode::Log: return {m.div(one, a)};
    case OpCode::Log2: return {m.div(one, m.mul(a, m.constant(std::numbers::ln2)))};
    case OpCode::Log10: return {m.div(one, m.mul(a, m.constant(std::numbers::ln10)))};
    case OpCode::Sin: return {m.unary(OpCode::Cos, a)};
    case OpCode::Cos: return {m.neg(m.unary(OpCode::Sin, a))};
    case OpCode::Tan: return {m.add(one, m.mul(self, self))};
    case OpCode::Asin: return {m.unary(OpCode::Rsqrt, m.sub(one, m.mul(a, a)))};
    case OpCode::Acos: return {m.neg(m.unary(OpCode::Rsqrt, m.sub(one, m.mul(a, a))))};
    case OpCode::Atan: return {m.div(one, m.add(one, m.mul(a, a)))};
    case OpCode::Sinh: return {m.unary(OpCode::Cosh, a)};
    case OpCode::Cosh: return {m.unary(OpCode::Sinh, a)};
    case OpCode::Tanh: return {m.sub(one, m.mul(self, self))};
    case OpCode::Atan2: {  // atan2(y, x)
      Expr r2 = m.add(m.mul(a, a), m.mul(b, b));
      return {m.div(b, r2), m.neg(m.div(a, r2))};
    }
    case OpCode::Pow: {
      // d/da: b * a^(b-1), 0 where b == 0 (a^0 is constant, also at a == 0); d/db: a^b * log(a), 0 where a <= 0
      // (log(0) * 0 and the NaN of a negative base are no use to a gradient).
      Expr da = m.select(compare(OpCode::Eq, b, zero), {}, m.mul(b, m.binary(OpCode::Pow, a, m.sub(b, one))));
      Expr db = m.select(compare(OpCode::Gt, a, zero), m.mul(self, m.unary(OpCode::Log, a)), {});
      return {da, db};
    }
    // |a| with b's sign: the sign a's magnitude is given, sign(a) * sign(b) (1 at +0).
    case OpCode::Copysign: return {m.mul(m.binary(OpCode::Copysign, one, a), m.binary(OpCode::Copysign, one, b)), {}};
    case OpCode::Fma: return {b, a, one};
    default: break;
  }
  TACK_UNREACHABLE("partials: not a float operation");
}

}  // namespace tack::autodiff
