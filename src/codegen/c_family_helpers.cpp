// The C-family emitter's arithmetic helpers: the operators and conversions C
// leaves undefined or spells differently (docs/semantics.md), as helper functions
// emitted once per kernel on first use. Each is a raw-string C template.
#include "codegen/c_family.hpp"

#include "codegen/c_template.hpp"
#include "ir/check.hpp"
#include "ir/scalar_ops.hpp"

#include <bit>
#include <cmath>

namespace tack::codegen {

namespace {

// scalar_ops: min is `b < a ? b : a`, max `a < b ? b : a`; for floats a NaN yields the other operand.
constexpr std::string_view kIntMinMax = R"(${Q} ${T} ${name}(${T} a, ${T} b) {
  return ${pick};
}
)";
constexpr std::string_view kFloatMinMax = R"(${Q} ${T} ${name}(${T} a, ${T} b) {
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  return ${pick};
}
)";

// Truncate, saturate, NaN to 0. The bounds are powers of two (or 0), exact in both float types; trunc
// first, then compare.
constexpr std::string_view kFloatToInt = R"(${Q} ${T} ${name}(${F} x) {
  if (isnan(x)) return ${zero};
  ${F} t = ${trunc}(x);
  if (t >= ${hi}) return ${max};
  if (t < ${lo}) return ${min};
  return (${T})t;
}
)";

// C leaves a double beyond float's range undefined; docs/semantics.md rounds it: from FLT_MAX + half an ulp up
// to infinity, just above FLT_MAX down to it.
constexpr std::string_view kF64ToF32 = R"(${Q} float tack_f64_to_f32(double d) {
  double m = ${fabs}(d);
  if (m >= 0x1.ffffffp+127) return d > 0 ? ${inf} : -${inf};
  if (m > 0x1.fffffep+127) return d > 0 ? 0x1.fffffep+127f : -0x1.fffffep+127f;
  return (float)d;
}
)";

// Python's and NumPy's float floor division and remainder, as scalar_ops computes them (see floor_div there):
// from the exact fmod, not from a rounded a / b. By zero: a / b, and fmod's NaN.
constexpr std::string_view kFloatFloorDiv = R"(${Q} ${T} ${name}(${T} a, ${T} b) {
  if (b == ${zero}) return a / b;
  ${T} mod = ${fmod}(a, b);
  ${T} div = (a - mod) / b;
  if (mod != ${zero} && ((b < ${zero}) != (mod < ${zero}))) div -= ${one};
  if (div == ${zero}) return ${copysign}(${zero}, a / b);
  ${T} floordiv = ${floor}(div);
  if (div - floordiv > ${half}) floordiv += ${one};
  return floordiv;
}
)";
constexpr std::string_view kFloatFloorMod = R"(${Q} ${T} ${name}(${T} a, ${T} b) {
  ${T} mod = ${fmod}(a, b);
  if (b == ${zero}) return mod;
  if (mod != ${zero}) return (b < ${zero}) != (mod < ${zero}) ? mod + b : mod;
  return ${copysign}(${zero}, b);
}
)";

constexpr std::string_view kIntAbs = R"(${Q} ${T} ${name}(${T} a) {
  return a < 0 ? ${neg_a} : a;
}
)";

// Integer division and modulo: x / 0 and x % 0 are 0, MIN / -1 wraps to MIN and MIN % -1 is 0; the floor
// forms round toward negative infinity. A signed type's -1 check and floor rounding fill the last holes.
constexpr std::string_view kIntDivision = R"(${Q} ${T} ${name}(${T} a, ${T} b) {
  if (b == ${zero}) return ${zero};
${minus_one_check}${result}}
)";
constexpr std::string_view kSignedFloorDiv = R"(  ${T} q = (${T})(a / b);
  if (a % b != 0 && ((a < 0) != (b < 0))) q = (${T})(q - 1);
  return q;
)";
constexpr std::string_view kSignedFloorMod = R"(  ${T} r = (${T})(a % b);
  if (r != 0 && ((r < 0) != (b < 0))) r = (${T})(r + b);
  return r;
)";

}  // namespace

std::string CFamilyCodeGen::min_max_helper(ir::OpCode op, DType t) {
  bool mn = op == ir::OpCode::Min;
  std::string name = std::string("tack_") + (mn ? "min_" : "max_") + suffix(t);
  return helper(name, [&] {
    return fill_template(is_float(t) ? kFloatMinMax : kIntMinMax, {{"Q", helper_qualifier()},
                                                                   {"T", type_name(t)},
                                                                   {"name", name},
                                                                   {"pick", mn ? "b < a ? b : a" : "a < b ? b : a"}});
  });
}

std::string CFamilyCodeGen::float_to_int(DType from, DType to, const std::string& x) {
  std::string name = "tack_" + suffix(from) + "_to_" + suffix(to);
  helper(name, [&] {
    double lo = is_signed_int(to) ? -std::ldexp(1.0, dtype_bits(to) - 1) : 0.0;
    double hi = is_signed_int(to) ? std::ldexp(1.0, dtype_bits(to) - 1) : std::ldexp(1.0, dtype_bits(to));
    std::uint64_t lo_bits =
        from == DType::F32 ? std::bit_cast<std::uint32_t>(static_cast<float>(lo)) : std::bit_cast<std::uint64_t>(lo);
    std::uint64_t hi_bits =
        from == DType::F32 ? std::bit_cast<std::uint32_t>(static_cast<float>(hi)) : std::bit_cast<std::uint64_t>(hi);
    std::int64_t tmin = is_signed_int(to) ? ir::bits_to_int(to, std::uint64_t{1} << (dtype_bits(to) - 1)) : 0;
    std::uint64_t tmax_bits =
        is_signed_int(to) ? (std::uint64_t{1} << (dtype_bits(to) - 1)) - 1
                          : (dtype_bits(to) == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << dtype_bits(to)) - 1);
    return fill_template(kFloatToInt, {{"Q", helper_qualifier()},
                                       {"T", type_name(to)},
                                       {"F", type_name(from)},
                                       {"name", name},
                                       {"zero", literal_int(to, 0)},
                                       {"trunc", math("trunc", from)},
                                       {"hi", literal(from, hi_bits)},
                                       {"max", literal(to, tmax_bits)},
                                       {"lo", literal(from, lo_bits)},
                                       {"min", literal_int(to, tmin)}});
  });
  return name + "(" + x + ")";
}

std::string CFamilyCodeGen::f64_to_f32_helper() {
  return helper("tack_f64_to_f32", [&] {
    return fill_template(kF64ToF32, {{"Q", helper_qualifier()},
                                     {"fabs", math("fabs", DType::F64)},
                                     {"inf", float_from_bits(DType::F32, 0x7f800000u)}});
  });
}

std::string CFamilyCodeGen::float_floor_helper(ir::OpCode op, DType t) {
  const bool quotient = op == ir::OpCode::FloorDiv;
  const std::string name = std::string(quotient ? "tack_floordiv_" : "tack_floormod_") + suffix(t);
  return helper(name, [&] {
    return fill_template(quotient ? kFloatFloorDiv : kFloatFloorMod,
                         {{"Q", helper_qualifier()},
                          {"T", type_name(t)},
                          {"name", name},
                          {"fmod", math("fmod", t)},
                          {"floor", math("floor", t)},
                          {"copysign", math("copysign", t)},
                          {"zero", literal(t, ir::bits_from_double(t, 0.0))},
                          {"half", literal(t, ir::bits_from_double(t, 0.5))},
                          {"one", literal(t, ir::bits_from_double(t, 1.0))}});
  });
}

// 0 - a in the unsigned type of t, converted back: -MIN wraps to MIN.
std::string CFamilyCodeGen::wrapping_negation(DType t, const std::string& a) const {
  const std::string W = wide_unsigned(t);
  return "(" + type_name(t) + ")((" + W + ")0 - (" + W + ")" + a + ")";
}

std::string CFamilyCodeGen::int_abs_helper(DType t) {
  const std::string name = "tack_abs_" + suffix(t);
  return helper(name, [&] {
    return fill_template(
        kIntAbs,
        {{"Q", helper_qualifier()}, {"T", type_name(t)}, {"name", name}, {"neg_a", wrapping_negation(t, "a")}});
  });
}

std::string CFamilyCodeGen::int_division_helper(ir::OpCode op, DType t) {
  const bool floor = op == ir::OpCode::FloorDiv || op == ir::OpCode::FloorMod;
  const bool quotient = op == ir::OpCode::Div || op == ir::OpCode::FloorDiv;
  const std::string name = std::string("tack_") + (floor ? "floor" : "") + (quotient ? "div" : "mod") + "_" + suffix(t);
  return helper(name, [&] {
    const std::string T = type_name(t), zero = literal_int(t, 0);
    std::string minus_one_check, result = "  return (" + T + ")(a " + (quotient ? "/" : "%") + " b);\n";
    if (is_signed_int(t)) {
      minus_one_check =
          "  if (b == " + literal_int(t, -1) + ") return " + (quotient ? wrapping_negation(t, "a") : zero) + ";\n";
      if (floor) result = fill_template(quotient ? kSignedFloorDiv : kSignedFloorMod, {{"T", T}});
    }
    return fill_template(kIntDivision, {{"Q", helper_qualifier()},
                                        {"T", T},
                                        {"name", name},
                                        {"zero", zero},
                                        {"minus_one_check", minus_one_check},
                                        {"result", result}});
  });
}

}  // namespace tack::codegen
