// Literals, operators and math functions on Values: each builds an untyped IR
// node; types are settled per call by passes/infer_types.
#include "ir/ir.hpp"
#include "lang/trace_context.hpp"

#include <tack/lang.hpp>

namespace tack::lang {
namespace detail {

ExprHandle literal_int(std::int64_t v, DType cpp_type) {
  return ir::Const::make_int(ir::Type::weak(cpp_type), v).ptr();
}
ExprHandle literal_uint(std::uint64_t v, DType cpp_type) {
  return ir::Const::make_int(ir::Type::weak(cpp_type), static_cast<std::int64_t>(v)).ptr();
}
ExprHandle literal_float(double v, DType cpp_type) { return ir::Const::make_float(ir::Type::weak(cpp_type), v).ptr(); }
ExprHandle literal_bool(bool v) { return ir::Const::make_bool(v).ptr(); }

}  // namespace detail

namespace {
ir::Expr E(const Value& v) { return ir::Expr(v.expr()); }
Value made(ir::Expr e) {
  if (auto* ctx = detail::TraceContext::active()) ctx->note_origin(e.get());
  return Value(e.ptr());
}
Value op(ir::OpCode code, const Value& a) { return made(ir::Op::make(ir::Type::unknown(), code, E(a))); }
Value op(ir::OpCode code, const Value& a, const Value& b) {
  return made(ir::Op::make(ir::Type::unknown(), code, E(a), E(b)));
}
Value op(ir::OpCode code, const Value& a, const Value& b, const Value& c) {
  return made(ir::Op::make(ir::Type::unknown(), code, E(a), E(b), E(c)));
}
}  // namespace

using ir::OpCode;

Value operator+(const Value& a, const Value& b) { return op(OpCode::Add, a, b); }
Value operator-(const Value& a, const Value& b) { return op(OpCode::Sub, a, b); }
Value operator*(const Value& a, const Value& b) { return op(OpCode::Mul, a, b); }
Value operator/(const Value& a, const Value& b) { return op(OpCode::Div, a, b); }
Value operator%(const Value& a, const Value& b) { return op(OpCode::Mod, a, b); }
Value operator&(const Value& a, const Value& b) { return op(OpCode::BitAnd, a, b); }
Value operator|(const Value& a, const Value& b) { return op(OpCode::BitOr, a, b); }
Value operator^(const Value& a, const Value& b) { return op(OpCode::BitXor, a, b); }
Value operator<<(const Value& a, const Value& b) { return op(OpCode::Shl, a, b); }
Value operator>>(const Value& a, const Value& b) { return op(OpCode::Shr, a, b); }
Value operator&&(const Value& a, const Value& b) { return op(OpCode::And, a, b); }
Value operator||(const Value& a, const Value& b) { return op(OpCode::Or, a, b); }
Value operator==(const Value& a, const Value& b) { return op(OpCode::Eq, a, b); }
Value operator!=(const Value& a, const Value& b) { return op(OpCode::Ne, a, b); }
Value operator<(const Value& a, const Value& b) { return op(OpCode::Lt, a, b); }
Value operator<=(const Value& a, const Value& b) { return op(OpCode::Le, a, b); }
Value operator>(const Value& a, const Value& b) { return op(OpCode::Gt, a, b); }
Value operator>=(const Value& a, const Value& b) { return op(OpCode::Ge, a, b); }
Value operator-(const Value& a) { return op(OpCode::Neg, a); }
Value operator+(const Value& a) { return a; }
Value operator~(const Value& a) { return op(OpCode::BitNot, a); }
Value operator!(const Value& a) { return op(OpCode::Not, a); }

Value abs(const Value& x) { return op(OpCode::Abs, x); }
Value min(const Value& a, const Value& b) { return op(OpCode::Min, a, b); }
Value max(const Value& a, const Value& b) { return op(OpCode::Max, a, b); }
Value clamp(const Value& x, const Value& lo, const Value& hi) { return min(max(x, lo), hi); }
Value floor(const Value& x) { return op(OpCode::Floor, x); }
Value ceil(const Value& x) { return op(OpCode::Ceil, x); }
Value round(const Value& x) { return op(OpCode::Round, x); }
Value trunc(const Value& x) { return op(OpCode::Trunc, x); }
Value sqrt(const Value& x) { return op(OpCode::Sqrt, x); }
Value rsqrt(const Value& x) { return op(OpCode::Rsqrt, x); }
Value exp(const Value& x) { return op(OpCode::Exp, x); }
Value exp2(const Value& x) { return op(OpCode::Exp2, x); }
Value log(const Value& x) { return op(OpCode::Log, x); }
Value log2(const Value& x) { return op(OpCode::Log2, x); }
Value log10(const Value& x) { return op(OpCode::Log10, x); }
Value sin(const Value& x) { return op(OpCode::Sin, x); }
Value cos(const Value& x) { return op(OpCode::Cos, x); }
Value tan(const Value& x) { return op(OpCode::Tan, x); }
Value asin(const Value& x) { return op(OpCode::Asin, x); }
Value acos(const Value& x) { return op(OpCode::Acos, x); }
Value atan(const Value& x) { return op(OpCode::Atan, x); }
Value atan2(const Value& y, const Value& x) { return op(OpCode::Atan2, y, x); }
Value sinh(const Value& x) { return op(OpCode::Sinh, x); }
Value cosh(const Value& x) { return op(OpCode::Cosh, x); }
Value tanh(const Value& x) { return op(OpCode::Tanh, x); }
Value pow(const Value& x, const Value& y) { return op(OpCode::Pow, x, y); }
Value fma(const Value& a, const Value& b, const Value& c) { return op(OpCode::Fma, a, b, c); }
Value copysign(const Value& x, const Value& sign) { return op(OpCode::Copysign, x, sign); }
Value isnan(const Value& x) { return op(OpCode::IsNan, x); }
Value isinf(const Value& x) { return op(OpCode::IsInf, x); }
Value floordiv(const Value& a, const Value& b) { return op(OpCode::FloorDiv, a, b); }
Value floormod(const Value& a, const Value& b) { return op(OpCode::FloorMod, a, b); }
Value true_div(const Value& a, const Value& b) { return op(OpCode::TrueDiv, a, b); }

Value select(const Value& cond, const Value& if_true, const Value& if_false) {
  return made(ir::Select::make(ir::Type::unknown(), E(cond), E(if_true), E(if_false)));
}
Value cast(DType to, const Value& v) { return made(ir::Cast::make(ir::Type::strong(to), E(v))); }

}  // namespace tack::lang
