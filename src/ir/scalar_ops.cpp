// docs/semantics.md on single values: every operator and conversion, free of undefined behaviour.
#include "ir/scalar_ops.hpp"

#include "ir/dtype_dispatch.hpp"

#include "ir/check.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

namespace tack::ir {
namespace {

// ---- Bits <-> C++ values -------------------------------------------------

template <class T>
T get(Bits b) {
  if constexpr (std::is_same_v<T, bool>) {
    return b != 0;
  } else if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(b));
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<double>(b);
  } else {
    return static_cast<T>(b);  // modular since C++20
  }
}

template <class T>
Bits put(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<std::uint32_t>(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<std::uint64_t>(v);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<Bits>(static_cast<std::int64_t>(v));
  } else {
    return static_cast<Bits>(v);
  }
}


[[noreturn]] void bad_op(OpCode op, DType t) {
  std::string what = std::string("eval_op: '") + op_name(op) + "' is not defined on " + std::string(dtype_name(t));
  detail::internal_error(__FILE__, __LINE__, what.c_str());
}

template <class T>
Bits compare(OpCode op, T a, T b) {
  switch (op) {
    case OpCode::Eq: return put<bool>(a == b);
    case OpCode::Ne: return put<bool>(a != b);
    case OpCode::Lt: return put<bool>(a < b);
    case OpCode::Le: return put<bool>(a <= b);
    case OpCode::Gt: return put<bool>(a > b);
    case OpCode::Ge: return put<bool>(a >= b);
    default: TACK_UNREACHABLE("not a comparison");
  }
}

// ---- operators by kind of dtype -----------------------------------------

Bits eval_bool(OpCode op, const Bits* x) {
  bool a = get<bool>(x[0]);
  bool b = op_arity(op) >= 2 ? get<bool>(x[1]) : false;
  switch (op) {
    case OpCode::Not:
    case OpCode::BitNot: return put<bool>(!a);
    case OpCode::And:
    case OpCode::BitAnd:
    case OpCode::Min: return put<bool>(a && b);
    case OpCode::Or:
    case OpCode::BitOr:
    case OpCode::Max: return put<bool>(a || b);
    case OpCode::BitXor: return put<bool>(a != b);
    case OpCode::Eq:
    case OpCode::Ne:
    case OpCode::Lt:
    case OpCode::Le:
    case OpCode::Gt:
    case OpCode::Ge: return compare(op, a, b);
    default: bad_op(op, DType::Bool);
  }
}

template <class T>
Bits eval_int(OpCode op, DType t, const Bits* x) {
  constexpr bool kSigned = std::is_signed_v<T>;
  constexpr unsigned kWidthMask = sizeof(T) * 8 - 1;
  using U64 = std::uint64_t;
  T a = get<T>(x[0]);
  T b = op_arity(op) >= 2 ? get<T>(x[1]) : T{};
  // Wrapping arithmetic: compute in 64-bit unsigned, convert back modulo 2^width.
  auto wrap = [](U64 v) { return put<T>(static_cast<T>(v)); };
  switch (op) {
    case OpCode::Neg: return wrap(U64{0} - static_cast<U64>(a));
    case OpCode::Abs:
      if constexpr (kSigned) return a < 0 ? wrap(U64{0} - static_cast<U64>(a)) : put<T>(a);
      return put<T>(a);
    case OpCode::BitNot: return wrap(~static_cast<U64>(a));
    case OpCode::Add: return wrap(static_cast<U64>(a) + static_cast<U64>(b));
    case OpCode::Sub: return wrap(static_cast<U64>(a) - static_cast<U64>(b));
    case OpCode::Mul: return wrap(static_cast<U64>(a) * static_cast<U64>(b));
    case OpCode::Div:
      if (b == 0) return 0;
      if constexpr (kSigned) {
        if (b == -1) return wrap(U64{0} - static_cast<U64>(a));  // MIN / -1 == MIN
      }
      return put<T>(static_cast<T>(a / b));
    case OpCode::Mod:
      if (b == 0) return 0;
      if constexpr (kSigned) {
        if (b == -1) return 0;  // MIN % -1 == 0
      }
      return put<T>(static_cast<T>(a % b));
    case OpCode::FloorDiv: {
      if (b == 0) return 0;
      if constexpr (kSigned) {
        if (b == -1) return wrap(U64{0} - static_cast<U64>(a));
        T q = static_cast<T>(a / b);
        // |b| >= 2 here, so q - 1 cannot overflow.
        if (a % b != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
        return put<T>(q);
      }
      return put<T>(static_cast<T>(a / b));
    }
    case OpCode::FloorMod: {
      if (b == 0) return 0;
      if constexpr (kSigned) {
        if (b == -1) return 0;
        T r = static_cast<T>(a % b);
        // r and b have opposite signs here, so r + b cannot overflow.
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
        return put<T>(r);
      }
      return put<T>(static_cast<T>(a % b));
    }
    case OpCode::Min: return put<T>(b < a ? b : a);
    case OpCode::Max: return put<T>(a < b ? b : a);
    case OpCode::BitAnd: return wrap(static_cast<U64>(a) & static_cast<U64>(b));
    case OpCode::BitOr: return wrap(static_cast<U64>(a) | static_cast<U64>(b));
    case OpCode::BitXor: return wrap(static_cast<U64>(a) ^ static_cast<U64>(b));
    case OpCode::Shl: {
      unsigned c = static_cast<unsigned>(static_cast<U64>(b) & kWidthMask);
      return wrap(static_cast<U64>(a) << c);
    }
    case OpCode::Shr: {
      unsigned c = static_cast<unsigned>(static_cast<U64>(b) & kWidthMask);
      // Arithmetic for signed types (defined since C++20), logical for unsigned.
      if constexpr (kSigned) return put<T>(static_cast<T>(static_cast<std::int64_t>(a) >> c));
      return put<T>(static_cast<T>(static_cast<U64>(a) >> c));
    }
    case OpCode::Eq:
    case OpCode::Ne:
    case OpCode::Lt:
    case OpCode::Le:
    case OpCode::Gt:
    case OpCode::Ge: return compare(op, a, b);
    default: bad_op(op, t);
  }
}

// IEEE 754 division. ISO C++ leaves division by zero undefined even for floats, so that case is spelled out:
// x / ±0 is ±inf with the sign of the quotient, and 0 / 0 or NaN / 0 is NaN.
template <class T>
T divide(T a, T b) {
  if (b != 0) return a / b;
  if (a == 0 || std::isnan(a)) return std::numeric_limits<T>::quiet_NaN();
  T inf = std::numeric_limits<T>::infinity();
  return std::signbit(a) != std::signbit(b) ? -inf : inf;
}

// Python's and NumPy's float floor division and remainder (CPython's float_divmod, NumPy's npy_divmod), step
// for step and in T, so that f32 gives NumPy's float32 bits. floor(a / b) would round the quotient first:
// 1.0 // 0.1 is 9 (0.1 is a little above a tenth), where floor(1.0 / 0.1) is 10. The remainder has the
// divisor's sign, a zero one included (-4.0 % 2.0 is +0.0); by zero, the quotient is a / b and the remainder
// NaN, as NumPy gives (Python raises).
template <class T>
T floor_mod(T a, T b) {
  T mod = std::fmod(a, b);  // exact; NaN when b is 0
  if (b == 0) return mod;
  if (mod != 0) {  // NaN included
    if ((b < 0) != (mod < 0)) mod += b;
    return mod;
  }
  return std::copysign(T{0}, b);
}

template <class T>
T floor_div(T a, T b) {
  if (b == 0) return divide(a, b);
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;  // very nearly an integer
  if (mod != 0 && (b < 0) != (mod < 0)) div -= T{1};
  if (div == 0) return std::copysign(T{0}, a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T{0.5}) floordiv += T{1};  // snap to the nearest integer
  return floordiv;
}

// T is float or double; every operation is computed in T so f32 results are correctly rounded f32.
template <class T>
Bits eval_float(OpCode op, DType t, const Bits* x) {
  int n = op_arity(op);
  T a = get<T>(x[0]);
  T b = n >= 2 ? get<T>(x[1]) : T{};
  switch (op) {
    case OpCode::Neg: return put<T>(-a);
    case OpCode::Abs: return put<T>(std::fabs(a));
    case OpCode::Add: return put<T>(a + b);
    case OpCode::Sub: return put<T>(a - b);
    case OpCode::Mul: return put<T>(a * b);
    case OpCode::Div: return put<T>(divide(a, b));
    case OpCode::Mod: return put<T>(std::fmod(a, b));
    case OpCode::FloorDiv: return put<T>(floor_div(a, b));
    case OpCode::FloorMod: return put<T>(floor_mod(a, b));
    case OpCode::Min:
      if (std::isnan(a)) return put<T>(b);
      if (std::isnan(b)) return put<T>(a);
      return put<T>(b < a ? b : a);
    case OpCode::Max:
      if (std::isnan(a)) return put<T>(b);
      if (std::isnan(b)) return put<T>(a);
      return put<T>(a < b ? b : a);
    case OpCode::Eq:
    case OpCode::Ne:
    case OpCode::Lt:
    case OpCode::Le:
    case OpCode::Gt:
    case OpCode::Ge: return compare(op, a, b);
    case OpCode::Floor: return put<T>(std::floor(a));
    case OpCode::Ceil: return put<T>(std::ceil(a));
    case OpCode::Round: return put<T>(std::nearbyint(a));  // default rounding mode: half to even
    case OpCode::Trunc: return put<T>(std::trunc(a));
    case OpCode::Sqrt: return put<T>(std::sqrt(a));
    case OpCode::Rsqrt: return put<T>(divide(T{1}, std::sqrt(a)));
    case OpCode::Exp: return put<T>(std::exp(a));
    case OpCode::Exp2: return put<T>(std::exp2(a));
    case OpCode::Log: return put<T>(std::log(a));
    case OpCode::Log2: return put<T>(std::log2(a));
    case OpCode::Log10: return put<T>(std::log10(a));
    case OpCode::Sin: return put<T>(std::sin(a));
    case OpCode::Cos: return put<T>(std::cos(a));
    case OpCode::Tan: return put<T>(std::tan(a));
    case OpCode::Asin: return put<T>(std::asin(a));
    case OpCode::Acos: return put<T>(std::acos(a));
    case OpCode::Atan: return put<T>(std::atan(a));
    case OpCode::Sinh: return put<T>(std::sinh(a));
    case OpCode::Cosh: return put<T>(std::cosh(a));
    case OpCode::Tanh: return put<T>(std::tanh(a));
    case OpCode::Atan2: return put<T>(std::atan2(a, b));
    case OpCode::Pow: return put<T>(std::pow(a, b));
    case OpCode::Copysign: return put<T>(std::copysign(a, b));
    case OpCode::Fma: return put<T>(std::fma(a, b, get<T>(x[2])));
    case OpCode::IsNan: return put<bool>(std::isnan(a));
    case OpCode::IsInf: return put<bool>(std::isinf(a));
    default: bad_op(op, t);
  }
}

// Float to integer: truncate toward zero, saturate at T's range, NaN gives 0.
template <class T>
T float_to_int(double d) {
  if (std::isnan(d)) return 0;
  double t = std::trunc(d);
  // Both bounds are powers of two (or 0), so they are exact doubles.
  constexpr double kLo = static_cast<double>(std::numeric_limits<T>::min());
  constexpr double kHiExclusive = 2.0 * static_cast<double>(std::numeric_limits<T>::max() / 2 + 1);
  if (t >= kHiExclusive) return std::numeric_limits<T>::max();
  if (t < kLo) return std::numeric_limits<T>::min();
  return static_cast<T>(t);
}

// f64 -> f32, rounding to nearest even. ISO C++ leaves a value beyond float's range undefined, so overflow is
// spelled out: magnitudes from FLT_MAX + half an ulp (2^128 - 2^103, a tie that goes to the even infinity) up
// become infinite, and those just above FLT_MAX round down to it.
float narrow_to_f32(double d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr double kToInfinity = 340282356779733661637539395458142568448.0;  // 2^128 - 2^103
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (std::fabs(d) >= kToInfinity) return d > 0 ? kInf : -kInf;
  if (std::fabs(d) > kMax) return static_cast<float>(d > 0 ? kMax : -kMax);
  return static_cast<float>(d);
}

double to_double(DType t, Bits v) {
  switch (t) {
    case DType::F32: return get<float>(v);
    case DType::F64: return get<double>(v);
    default: TACK_UNREACHABLE("to_double of a non-float dtype");
  }
}

}  // namespace

Bits eval_op(OpCode op, DType t, const Bits* args) {
  switch (t) {
    case DType::Bool: return eval_bool(op, args);
    case DType::I8: return eval_int<std::int8_t>(op, t, args);
    case DType::U8: return eval_int<std::uint8_t>(op, t, args);
    case DType::I16: return eval_int<std::int16_t>(op, t, args);
    case DType::U16: return eval_int<std::uint16_t>(op, t, args);
    case DType::I32: return eval_int<std::int32_t>(op, t, args);
    case DType::U32: return eval_int<std::uint32_t>(op, t, args);
    case DType::I64: return eval_int<std::int64_t>(op, t, args);
    case DType::U64: return eval_int<std::uint64_t>(op, t, args);
    case DType::F32: return eval_float<float>(op, t, args);
    case DType::F64: return eval_float<double>(op, t, args);
  }
  TACK_UNREACHABLE("unknown dtype");
}

Bits eval_cast(DType from, DType to, Bits v) {
  if (from == to) return normalize(to, v);
  if (is_float(from)) {
    if (to == DType::Bool) return put<bool>(from == DType::F32 ? get<float>(v) != 0 : get<double>(v) != 0);
    double d = to_double(from, v);  // f32 -> f64 is exact
    if (to == DType::F32) return put<float>(narrow_to_f32(d));
    if (to == DType::F64) return put<double>(d);
    return with_dtype(to, [&](auto tag) -> Bits {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        return put<T>(float_to_int<T>(d));
      } else {
        TACK_UNREACHABLE("float cast");
      }
    });
  }
  // From an integer or bool: its canonical bits hold the value sign- or zero-extended.
  Bits n = normalize(from, v);
  if (to == DType::Bool) return put<bool>(n != 0);
  if (is_float(to)) {
    // One rounding, to nearest even, from the exact integer value.
    if (is_signed_int(from)) {
      auto s = static_cast<std::int64_t>(n);
      return to == DType::F32 ? put<float>(static_cast<float>(s)) : put<double>(static_cast<double>(s));
    }
    return to == DType::F32 ? put<float>(static_cast<float>(n)) : put<double>(static_cast<double>(n));
  }
  return normalize(to, n);  // int -> int wraps
}

Bits normalize(DType t, Bits v) {
  return with_dtype(t, [&](auto tag) -> Bits {
    using T = decltype(tag);
    return put<T>(get<T>(v));
  });
}

Bits bits_from_int(DType t, std::int64_t v) {
  if (t == DType::Bool) return put<bool>(v != 0);
  return eval_cast(DType::I64, t, static_cast<Bits>(v));
}

Bits bits_from_double(DType t, double v) {
  if (t == DType::F64) return put<double>(v);
  return eval_cast(DType::F64, t, put<double>(v));
}

double bits_to_double(DType t, Bits v) {
  if (is_float(t)) return to_double(t, v);
  return get<double>(eval_cast(t, DType::F64, v));
}

std::int64_t bits_to_int(DType t, Bits v) {
  if (is_float(t)) return static_cast<std::int64_t>(eval_cast(t, DType::I64, v));
  return static_cast<std::int64_t>(normalize(t, v));
}

Bits const_bits(const Const* c) {
  TACK_CHECK(c && !c->type.is_unknown());
  DType t = c->type.dtype;
  if (t == DType::Bool) return put<bool>(c->i != 0);
  if (is_float(t)) return bits_from_double(t, c->f);
  return normalize(t, static_cast<Bits>(c->i));
}

Expr make_const(DType t, Bits v) {
  if (t == DType::Bool) return Const::make_bool(v != 0);
  if (is_float(t)) return Const::make_float(Type::strong(t), to_double(t, v));
  return Const::make_int(Type::strong(t), bits_to_int(t, v));
}

}  // namespace tack::ir
