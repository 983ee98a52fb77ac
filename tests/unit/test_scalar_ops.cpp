// DESIGN §4 on single values: every operator's and conversion's edge cases, per dtype.
#include "ir/scalar_ops.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tack::ir {
namespace {

Bits f32(float x) { return std::bit_cast<std::uint32_t>(x); }
Bits f64(double x) { return std::bit_cast<std::uint64_t>(x); }
float as_f32(Bits b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b)); }
double as_f64(Bits b) { return std::bit_cast<double>(b); }
Bits in(DType t, std::int64_t v) { return bits_from_int(t, v); }
std::int64_t out(DType t, Bits b) { return bits_to_int(t, b); }

Bits op1(OpCode op, DType t, Bits a) { return eval_op(op, t, &a); }
Bits op2(OpCode op, DType t, Bits a, Bits b) {
  Bits x[2] = {a, b};
  return eval_op(op, t, x);
}
std::int64_t iop(OpCode op, DType t, std::int64_t a, std::int64_t b) { return out(t, op2(op, t, in(t, a), in(t, b))); }

constexpr DType kSigned[] = {DType::I8, DType::I16, DType::I32, DType::I64};
constexpr DType kUnsigned[] = {DType::U8, DType::U16, DType::U32, DType::U64};

std::int64_t min_of(DType t) { return t == DType::I64 ? INT64_MIN : -(std::int64_t{1} << (dtype_bits(t) - 1)); }
std::int64_t max_of(DType t) { return t == DType::I64 ? INT64_MAX : (std::int64_t{1} << (dtype_bits(t) - 1)) - 1; }

// ---- representation --------------------------------------------------------

TEST(ScalarOps, NormalizeTruncatesThenExtends) {
  EXPECT_EQ(normalize(DType::I8, 0x180), static_cast<Bits>(-128));
  EXPECT_EQ(normalize(DType::U8, 0x1ff), 0xffu);
  EXPECT_EQ(normalize(DType::I16, 0xffff), static_cast<Bits>(-1));
  EXPECT_EQ(normalize(DType::U32, ~Bits{0}), 0xffffffffu);
  EXPECT_EQ(normalize(DType::I32, 0x80000000u), static_cast<Bits>(std::int64_t{INT32_MIN}));
  EXPECT_EQ(normalize(DType::F32, 0xdeadbeef3f800000ull), f32(1.0f));
  EXPECT_EQ(normalize(DType::Bool, 2), 1u);
  EXPECT_EQ(normalize(DType::U64, ~Bits{0}), ~Bits{0});
}

TEST(ScalarOps, IntAndDoubleConversionsOfBits) {
  EXPECT_EQ(bits_from_int(DType::U8, 300), 44u);
  EXPECT_EQ(bits_from_int(DType::I8, 200), static_cast<Bits>(-56));
  EXPECT_EQ(bits_from_int(DType::F32, 3), f32(3.0f));
  EXPECT_EQ(bits_from_int(DType::Bool, 5), 1u);
  EXPECT_EQ(bits_from_double(DType::F32, 0.1), f32(0.1f));
  EXPECT_EQ(bits_from_double(DType::I32, 1e10), in(DType::I32, INT32_MAX));
  EXPECT_EQ(bits_to_double(DType::U64, ~Bits{0}), 18446744073709551616.0);
  EXPECT_EQ(bits_to_double(DType::I16, in(DType::I16, -5)), -5.0);
  EXPECT_EQ(bits_to_double(DType::F32, f32(0.5f)), 0.5);
  EXPECT_EQ(bits_to_int(DType::U64, ~Bits{0}), -1);  // its bit pattern
  EXPECT_EQ(bits_to_int(DType::U32, 0xffffffffu), 4294967295);
  EXPECT_EQ(bits_to_int(DType::Bool, 1), 1);
}

TEST(ScalarOps, ConstRoundTrip) {
  struct Case {
    DType t;
    Bits v;
  };
  const Case cases[] = {{DType::Bool, 1},
                        {DType::Bool, 0},
                        {DType::I8, in(DType::I8, -128)},
                        {DType::U8, 255},
                        {DType::I16, in(DType::I16, -32768)},
                        {DType::U16, 65535},
                        {DType::I32, in(DType::I32, INT32_MIN)},
                        {DType::U32, 0xffffffffu},
                        {DType::I64, static_cast<Bits>(INT64_MIN)},
                        {DType::U64, ~Bits{0}},
                        {DType::F32, f32(0.1f)},
                        {DType::F32, f32(-0.0f)},
                        {DType::F32, f32(std::numeric_limits<float>::denorm_min())},
                        {DType::F64, f64(0.1)},
                        {DType::F64, f64(-std::numeric_limits<double>::infinity())}};
  for (const Case& c : cases) {
    Expr e = make_const(c.t, c.v);
    const Const* k = e.as<Const>();
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->type, Type::strong(c.t));
    EXPECT_EQ(const_bits(k), c.v) << dtype_name(c.t);
  }
  EXPECT_EQ(make_const(DType::U64, ~Bits{0}).as<Const>()->i, -1);  // u64 as its bit pattern
  EXPECT_EQ(make_const(DType::U32, 0xffffffffu).as<Const>()->i, 4294967295);
  EXPECT_EQ(make_const(DType::F32, f32(0.5f)).as<Const>()->f, 0.5);
}

TEST(ScalarOps, ConstBitsOfWeakAndFactoryConsts) {
  Expr weak_f = Const::make_float(Type::weak(DType::F64), 2.5);
  EXPECT_EQ(const_bits(weak_f.as<Const>()), f64(2.5));
  Expr weak_i = Const::make_int(Type::weak(DType::I32), -1);
  EXPECT_EQ(const_bits(weak_i.as<Const>()), static_cast<Bits>(-1));
  Expr f = Const::make_float(Type::strong(DType::F32), 0.1);  // a double, rounded to f32
  EXPECT_EQ(const_bits(f.as<Const>()), f32(0.1f));
  EXPECT_EQ(const_bits(Const::make_bool(true).as<Const>()), 1u);
  EXPECT_EQ(const_bits(Const::make_int(Type::strong(DType::U8), 255).as<Const>()), 255u);
}

// ---- integer arithmetic --------------------------------------------------

TEST(ScalarOps, IntegerAddSubMulWrap) {
  for (DType t : kSigned) {
    EXPECT_EQ(iop(OpCode::Add, t, max_of(t), 1), min_of(t)) << dtype_name(t);
    EXPECT_EQ(iop(OpCode::Sub, t, min_of(t), 1), max_of(t)) << dtype_name(t);
    EXPECT_EQ(iop(OpCode::Mul, t, min_of(t), -1), min_of(t)) << dtype_name(t);
    EXPECT_EQ(iop(OpCode::Mul, t, max_of(t), 2), -2) << dtype_name(t);
  }
  EXPECT_EQ(op2(OpCode::Add, DType::U8, 255, 1), 0u);
  EXPECT_EQ(op2(OpCode::Mul, DType::U16, 65535, 65535), 1u);  // would overflow int if promoted
  EXPECT_EQ(op2(OpCode::Sub, DType::U32, 0, 1), 0xffffffffu);
  EXPECT_EQ(op2(OpCode::Sub, DType::U64, 0, 1), ~Bits{0});
  EXPECT_EQ(op2(OpCode::Mul, DType::U64, Bits{1} << 63, 2), 0u);
}

TEST(ScalarOps, IntegerDivisionEdgeCases) {
  for (DType t : kSigned) {
    SCOPED_TRACE(dtype_name(t));
    EXPECT_EQ(iop(OpCode::Div, t, min_of(t), -1), min_of(t));
    EXPECT_EQ(iop(OpCode::Mod, t, min_of(t), -1), 0);
    EXPECT_EQ(iop(OpCode::Div, t, 7, 0), 0);
    EXPECT_EQ(iop(OpCode::Mod, t, 7, 0), 0);
    EXPECT_EQ(iop(OpCode::Div, t, -7, 0), 0);
    EXPECT_EQ(iop(OpCode::Div, t, -7, 2), -3);  // toward zero
    EXPECT_EQ(iop(OpCode::Mod, t, -7, 2), -1);
    EXPECT_EQ(iop(OpCode::Div, t, 7, -2), -3);
    EXPECT_EQ(iop(OpCode::Mod, t, 7, -2), 1);
    EXPECT_EQ(iop(OpCode::Div, t, min_of(t), 1), min_of(t));
    EXPECT_EQ(iop(OpCode::Div, t, 9, -1), -9);
  }
  for (DType t : kUnsigned) {
    SCOPED_TRACE(dtype_name(t));
    EXPECT_EQ(op2(OpCode::Div, t, 7, 0), 0u);
    EXPECT_EQ(op2(OpCode::Mod, t, 7, 0), 0u);
    EXPECT_EQ(op2(OpCode::Div, t, normalize(t, ~Bits{0}), 2), normalize(t, ~Bits{0}) / 2);
    EXPECT_EQ(op2(OpCode::Mod, t, 7, 3), 1u);
  }
}

TEST(ScalarOps, FloorDivAndFloorModIntegers) {
  for (DType t : kSigned) {
    SCOPED_TRACE(dtype_name(t));
    EXPECT_EQ(iop(OpCode::FloorDiv, t, -7, 2), -4);
    EXPECT_EQ(iop(OpCode::FloorMod, t, -7, 2), 1);
    EXPECT_EQ(iop(OpCode::FloorDiv, t, 7, -2), -4);
    EXPECT_EQ(iop(OpCode::FloorMod, t, 7, -2), -1);
    EXPECT_EQ(iop(OpCode::FloorDiv, t, -7, -2), 3);
    EXPECT_EQ(iop(OpCode::FloorMod, t, -7, -2), -1);
    EXPECT_EQ(iop(OpCode::FloorDiv, t, 7, 2), 3);
    EXPECT_EQ(iop(OpCode::FloorMod, t, 7, 2), 1);
    EXPECT_EQ(iop(OpCode::FloorDiv, t, -6, 2), -3);
    EXPECT_EQ(iop(OpCode::FloorMod, t, -6, 2), 0);
    EXPECT_EQ(iop(OpCode::FloorDiv, t, 5, 0), 0);
    EXPECT_EQ(iop(OpCode::FloorMod, t, 5, 0), 0);
    EXPECT_EQ(iop(OpCode::FloorDiv, t, min_of(t), -1), min_of(t));
    EXPECT_EQ(iop(OpCode::FloorMod, t, min_of(t), -1), 0);
    EXPECT_EQ(iop(OpCode::FloorDiv, t, min_of(t), 2), min_of(t) / 2);
    EXPECT_EQ(iop(OpCode::FloorMod, t, min_of(t), max_of(t)), max_of(t) - 1);
    EXPECT_EQ(iop(OpCode::FloorDiv, t, min_of(t), max_of(t)), -2);
  }
  for (DType t : kUnsigned) {
    SCOPED_TRACE(dtype_name(t));
    EXPECT_EQ(op2(OpCode::FloorDiv, t, 7, 2), 3u);
    EXPECT_EQ(op2(OpCode::FloorMod, t, 7, 2), 1u);
    EXPECT_EQ(op2(OpCode::FloorDiv, t, 7, 0), 0u);
    EXPECT_EQ(op2(OpCode::FloorMod, t, 7, 0), 0u);
  }
}

TEST(ScalarOps, ShiftsTakeTheCountModuloTheWidth) {
  for (DType t : {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32, DType::U32, DType::I64, DType::U64}) {
    SCOPED_TRACE(dtype_name(t));
    std::int64_t w = dtype_bits(t);
    EXPECT_EQ(iop(OpCode::Shl, t, 1, w), 1);
    EXPECT_EQ(iop(OpCode::Shl, t, 1, w + 1), 2);
    EXPECT_EQ(iop(OpCode::Shl, t, 3, 2 * w + 2), 12);
    EXPECT_EQ(iop(OpCode::Shr, t, 8, w), 8);
    EXPECT_EQ(iop(OpCode::Shr, t, 8, w + 2), 2);
    EXPECT_EQ(op2(OpCode::Shl, t, in(t, 1), in(t, w - 1)),
              in(t, is_signed_int(t) ? min_of(t) : std::int64_t{1} << (w - 1)));
  }
  for (DType t : kSigned) {
    SCOPED_TRACE(dtype_name(t));
    std::int64_t w = dtype_bits(t);
    EXPECT_EQ(iop(OpCode::Shr, t, -8, 1), -4);  // arithmetic
    EXPECT_EQ(iop(OpCode::Shr, t, min_of(t), w - 1), -1);
    EXPECT_EQ(iop(OpCode::Shl, t, 1, -1), min_of(t));  // -1 mod w == w - 1
    EXPECT_EQ(iop(OpCode::Shl, t, max_of(t), 1), -2);  // wraps
  }
  EXPECT_EQ(op2(OpCode::Shr, DType::U8, 0x80, 7), 1u);  // logical
  EXPECT_EQ(op2(OpCode::Shr, DType::U32, 0x80000000u, 31), 1u);
  EXPECT_EQ(op2(OpCode::Shr, DType::U64, Bits{1} << 63, 63), 1u);
  EXPECT_EQ(op2(OpCode::Shl, DType::U16, 0xffff, 15), 0x8000u);
}

TEST(ScalarOps, NegAndAbs) {
  for (DType t : kSigned) {
    SCOPED_TRACE(dtype_name(t));
    EXPECT_EQ(out(t, op1(OpCode::Abs, t, in(t, min_of(t)))), min_of(t));
    EXPECT_EQ(out(t, op1(OpCode::Neg, t, in(t, min_of(t)))), min_of(t));
    EXPECT_EQ(out(t, op1(OpCode::Abs, t, in(t, -5))), 5);
    EXPECT_EQ(out(t, op1(OpCode::Neg, t, in(t, 5))), -5);
  }
  EXPECT_EQ(op1(OpCode::Abs, DType::U32, 0xffffffffu), 0xffffffffu);  // identity
  EXPECT_EQ(op1(OpCode::Neg, DType::U32, 1), 0xffffffffu);            // wraps
  EXPECT_EQ(op1(OpCode::Neg, DType::U8, 1), 0xffu);
  EXPECT_EQ(op1(OpCode::Neg, DType::U64, 1), ~Bits{0});
  EXPECT_EQ(op1(OpCode::Neg, DType::F32, f32(0.0f)), f32(-0.0f));
  EXPECT_EQ(op1(OpCode::Abs, DType::F64, f64(-0.0)), f64(0.0));
  EXPECT_EQ(op1(OpCode::Abs, DType::F32, f32(-3.5f)), f32(3.5f));
}

TEST(ScalarOps, BitsAndLogic) {
  EXPECT_EQ(op2(OpCode::BitAnd, DType::I32, in(DType::I32, -1), 0xf0), 0xf0u);
  EXPECT_EQ(op2(OpCode::BitOr, DType::I8, in(DType::I8, -128), 1), in(DType::I8, -127));
  EXPECT_EQ(op2(OpCode::BitXor, DType::U16, 0xff00, 0x0ff0), 0xf0f0u);
  EXPECT_EQ(op1(OpCode::BitNot, DType::I16, 0), in(DType::I16, -1));
  EXPECT_EQ(op1(OpCode::BitNot, DType::U8, 0x0f), 0xf0u);
  EXPECT_EQ(op1(OpCode::BitNot, DType::U64, 0), ~Bits{0});
  // Bool: BitNot is logical not; bit ops act on 0/1.
  EXPECT_EQ(op1(OpCode::BitNot, DType::Bool, 1), 0u);
  EXPECT_EQ(op1(OpCode::BitNot, DType::Bool, 0), 1u);
  EXPECT_EQ(op2(OpCode::BitAnd, DType::Bool, 1, 1), 1u);
  EXPECT_EQ(op2(OpCode::BitOr, DType::Bool, 0, 1), 1u);
  EXPECT_EQ(op2(OpCode::BitXor, DType::Bool, 1, 1), 0u);
  EXPECT_EQ(op1(OpCode::Not, DType::Bool, 1), 0u);
  EXPECT_EQ(op2(OpCode::And, DType::Bool, 1, 0), 0u);
  EXPECT_EQ(op2(OpCode::And, DType::Bool, 1, 1), 1u);
  EXPECT_EQ(op2(OpCode::Or, DType::Bool, 0, 0), 0u);
  EXPECT_EQ(op2(OpCode::Or, DType::Bool, 0, 1), 1u);
}

TEST(ScalarOps, IntegerMinMaxAndCompare) {
  EXPECT_EQ(iop(OpCode::Min, DType::I32, -3, 2), -3);
  EXPECT_EQ(iop(OpCode::Max, DType::I64, INT64_MIN, -1), -1);
  EXPECT_EQ(op2(OpCode::Max, DType::U32, 0xffffffffu, 1), 0xffffffffu);  // unsigned order
  EXPECT_EQ(op2(OpCode::Lt, DType::U32, 1, 0xffffffffu), 1u);
  EXPECT_EQ(op2(OpCode::Lt, DType::I32, 1, in(DType::I32, -1)), 0u);
  EXPECT_EQ(op2(OpCode::Gt, DType::U64, ~Bits{0}, 0), 1u);
  EXPECT_EQ(op2(OpCode::Le, DType::I8, in(DType::I8, -1), in(DType::I8, -1)), 1u);
  EXPECT_EQ(op2(OpCode::Ge, DType::I16, in(DType::I16, -2), in(DType::I16, -1)), 0u);
  EXPECT_EQ(op2(OpCode::Eq, DType::Bool, 1, 1), 1u);
  EXPECT_EQ(op2(OpCode::Ne, DType::Bool, 1, 0), 1u);
  EXPECT_EQ(op2(OpCode::Lt, DType::Bool, 0, 1), 1u);
}

// ---- floats ----------------------------------------------------------------

TEST(ScalarOps, NanComparesFalseExceptNe) {
  float nf = std::numeric_limits<float>::quiet_NaN();
  double nd = std::numeric_limits<double>::quiet_NaN();
  for (OpCode op : {OpCode::Eq, OpCode::Lt, OpCode::Le, OpCode::Gt, OpCode::Ge}) {
    EXPECT_EQ(op2(op, DType::F32, f32(nf), f32(1.0f)), 0u) << op_name(op);
    EXPECT_EQ(op2(op, DType::F32, f32(nf), f32(nf)), 0u) << op_name(op);
    EXPECT_EQ(op2(op, DType::F64, f64(1.0), f64(nd)), 0u) << op_name(op);
  }
  EXPECT_EQ(op2(OpCode::Ne, DType::F32, f32(nf), f32(nf)), 1u);
  EXPECT_EQ(op2(OpCode::Ne, DType::F64, f64(nd), f64(1.0)), 1u);
  EXPECT_EQ(op2(OpCode::Eq, DType::F64, f64(0.0), f64(-0.0)), 1u);
}

TEST(ScalarOps, FloatMinMaxReturnTheNonNanOperand) {
  float nf = std::numeric_limits<float>::quiet_NaN();
  double nd = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(op2(OpCode::Min, DType::F32, f32(nf), f32(1.0f)), f32(1.0f));
  EXPECT_EQ(op2(OpCode::Min, DType::F32, f32(1.0f), f32(nf)), f32(1.0f));
  EXPECT_EQ(op2(OpCode::Max, DType::F32, f32(nf), f32(-2.0f)), f32(-2.0f));
  EXPECT_EQ(op2(OpCode::Max, DType::F32, f32(-2.0f), f32(nf)), f32(-2.0f));
  EXPECT_EQ(op2(OpCode::Min, DType::F64, f64(nd), f64(3.0)), f64(3.0));
  EXPECT_EQ(op2(OpCode::Max, DType::F64, f64(3.0), f64(nd)), f64(3.0));
  EXPECT_TRUE(std::isnan(as_f32(op2(OpCode::Min, DType::F32, f32(nf), f32(nf)))));
  EXPECT_TRUE(std::isnan(as_f64(op2(OpCode::Max, DType::F64, f64(nd), f64(nd)))));
  EXPECT_EQ(op2(OpCode::Min, DType::F64, f64(-1.0), f64(2.0)), f64(-1.0));
  EXPECT_EQ(op2(OpCode::Max, DType::F32, f32(-1.0f), f32(2.0f)), f32(2.0f));
}

TEST(ScalarOps, RoundIsHalfToEven) {
  struct Case {
    double in, out;
  };
  const Case cases[] = {{2.5, 2.0}, {-2.5, -2.0}, {3.5, 4.0}, {0.5, 0.0},
                        {1.5, 2.0}, {-0.5, -0.0}, {2.4, 2.0}, {2.6, 3.0}};
  for (const Case& c : cases) {
    EXPECT_EQ(op1(OpCode::Round, DType::F64, f64(c.in)), f64(c.out)) << c.in;
    EXPECT_EQ(op1(OpCode::Round, DType::F32, f32(static_cast<float>(c.in))), f32(static_cast<float>(c.out))) << c.in;
  }
  EXPECT_EQ(op1(OpCode::Floor, DType::F32, f32(-2.5f)), f32(-3.0f));
  EXPECT_EQ(op1(OpCode::Ceil, DType::F32, f32(-2.5f)), f32(-2.0f));
  EXPECT_EQ(op1(OpCode::Trunc, DType::F64, f64(-2.7)), f64(-2.0));
}

TEST(ScalarOps, DenormalsSurvive) {
  float dmin = std::numeric_limits<float>::denorm_min();
  float nmin = std::numeric_limits<float>::min();
  EXPECT_EQ(op2(OpCode::Mul, DType::F32, f32(dmin), f32(1.0f)), f32(dmin));
  EXPECT_EQ(op2(OpCode::Div, DType::F32, f32(nmin), f32(2.0f)), f32(nmin / 2));
  EXPECT_NE(as_f32(op2(OpCode::Div, DType::F32, f32(nmin), f32(2.0f))), 0.0f);
  EXPECT_EQ(op2(OpCode::Add, DType::F32, f32(dmin), f32(dmin)), f32(2 * dmin));
  EXPECT_EQ(op2(OpCode::Sub, DType::F32, f32(nmin), f32(nmin * 0.75f)), f32(nmin * 0.25f));
  double dd = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(op2(OpCode::Add, DType::F64, f64(dd), f64(dd)), f64(2 * dd));
  EXPECT_NE(as_f64(op2(OpCode::Mul, DType::F64, f64(std::numeric_limits<double>::min()), f64(0.5))), 0.0);
  EXPECT_NE(as_f32(op1(OpCode::Sqrt, DType::F32, f32(dmin))), 0.0f);
  // f64 -> f32 into the f32 denormal range.
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(1e-40)), f32(1e-40f));
  EXPECT_NE(as_f32(eval_cast(DType::F64, DType::F32, f64(1e-40))), 0.0f);
}

TEST(ScalarOps, FloatModFloorModFloorDiv) {
  EXPECT_EQ(op2(OpCode::Mod, DType::F64, f64(-7.0), f64(2.0)), f64(-1.0));  // fmod
  EXPECT_EQ(op2(OpCode::Mod, DType::F32, f32(7.5f), f32(-2.0f)), f32(1.5f));
  EXPECT_EQ(op2(OpCode::FloorMod, DType::F64, f64(-7.0), f64(2.0)), f64(1.0));
  EXPECT_EQ(op2(OpCode::FloorMod, DType::F64, f64(7.0), f64(-2.0)), f64(-1.0));
  EXPECT_EQ(op2(OpCode::FloorMod, DType::F32, f32(-7.5f), f32(2.0f)), f32(0.5f));
  EXPECT_EQ(op2(OpCode::FloorMod, DType::F64, f64(6.0), f64(-3.0)), f64(-0.0));  // Python: the divisor's sign
  EXPECT_EQ(op2(OpCode::FloorMod, DType::F64, f64(-4.0), f64(2.0)), f64(0.0));
  EXPECT_EQ(op2(OpCode::FloorDiv, DType::F64, f64(1.0), f64(0.1)), f64(9.0));  // not floor(1.0 / 0.1) == 10
  EXPECT_EQ(op2(OpCode::FloorDiv, DType::F32, f32(1.0f), f32(0.1f)), f32(9.0f));
  EXPECT_EQ(op2(OpCode::FloorDiv, DType::F64, f64(-0.0), f64(1.0)), f64(-0.0));
  EXPECT_EQ(op2(OpCode::FloorMod, DType::F64, f64(-1.0), f64(INFINITY)), f64(INFINITY));  // Python: -1 % inf
  EXPECT_EQ(op2(OpCode::FloorDiv, DType::F64, f64(-7.0), f64(2.0)), f64(-4.0));
  EXPECT_EQ(op2(OpCode::FloorDiv, DType::F32, f32(7.0f), f32(2.0f)), f32(3.0f));
  EXPECT_TRUE(std::isnan(as_f64(op2(OpCode::Mod, DType::F64, f64(1.0), f64(0.0)))));
  EXPECT_EQ(op2(OpCode::Div, DType::F64, f64(1.0), f64(0.0)), f64(INFINITY));  // IEEE, not the integer rule
  EXPECT_EQ(op2(OpCode::Div, DType::F32, f32(-1.0f), f32(0.0f)), f32(-INFINITY));
  EXPECT_EQ(op2(OpCode::Div, DType::F32, f32(1.0f), f32(-0.0f)), f32(-INFINITY));
  EXPECT_EQ(op2(OpCode::Div, DType::F64, f64(-2.0), f64(-0.0)), f64(INFINITY));
  EXPECT_TRUE(std::isnan(as_f32(op2(OpCode::Div, DType::F32, f32(0.0f), f32(0.0f)))));
  EXPECT_TRUE(std::isnan(as_f64(op2(OpCode::Div, DType::F64, f64(NAN), f64(0.0)))));
  EXPECT_EQ(op2(OpCode::FloorDiv, DType::F64, f64(-1.0), f64(0.0)), f64(-INFINITY));
  EXPECT_EQ(op1(OpCode::Rsqrt, DType::F32, f32(0.0f)), f32(INFINITY));
  EXPECT_EQ(op1(OpCode::Rsqrt, DType::F32, f32(-0.0f)), f32(-INFINITY));
}

TEST(ScalarOps, F32IsComputedInFloat) {
  float a = 1.0f / 3.0f, b = 1e-8f, c = 0.7f;
  EXPECT_EQ(op2(OpCode::Add, DType::F32, f32(a), f32(b)), f32(a + b));
  EXPECT_EQ(op2(OpCode::Div, DType::F32, f32(1.0f), f32(3.0f)), f32(1.0f / 3.0f));
  EXPECT_EQ(op2(OpCode::Add, DType::F32, f32(16777216.0f), f32(1.0f)), f32(16777216.0f));
  Bits x[3] = {f32(a), f32(c), f32(b)};
  EXPECT_EQ(eval_op(OpCode::Fma, DType::F32, x), f32(std::fma(a, c, b)));
  EXPECT_EQ(op1(OpCode::Sin, DType::F32, f32(0.5f)), f32(std::sin(0.5f)));
  EXPECT_EQ(op1(OpCode::Exp, DType::F32, f32(1.3f)), f32(std::exp(1.3f)));
  EXPECT_EQ(op1(OpCode::Log, DType::F64, f64(3.0)), f64(std::log(3.0)));
  EXPECT_EQ(op2(OpCode::Pow, DType::F32, f32(2.0f), f32(10.0f)), f32(1024.0f));
  EXPECT_EQ(op2(OpCode::Atan2, DType::F64, f64(1.0), f64(1.0)), f64(std::atan2(1.0, 1.0)));
  EXPECT_EQ(op2(OpCode::Copysign, DType::F32, f32(3.0f), f32(-0.0f)), f32(-3.0f));
  EXPECT_EQ(op1(OpCode::Rsqrt, DType::F32, f32(4.0f)), f32(0.5f));
  EXPECT_EQ(op1(OpCode::Rsqrt, DType::F64, f64(2.0)), f64(1.0 / std::sqrt(2.0)));
  EXPECT_EQ(op1(OpCode::Exp2, DType::F64, f64(10.0)), f64(1024.0));
  EXPECT_EQ(op1(OpCode::Log2, DType::F32, f32(8.0f)), f32(3.0f));
  EXPECT_EQ(op1(OpCode::Log10, DType::F64, f64(1000.0)), f64(3.0));
  EXPECT_EQ(op1(OpCode::Tanh, DType::F32, f32(0.25f)), f32(std::tanh(0.25f)));
}

TEST(ScalarOps, Classify) {
  EXPECT_EQ(op1(OpCode::IsNan, DType::F32, f32(NAN)), 1u);
  EXPECT_EQ(op1(OpCode::IsNan, DType::F64, f64(INFINITY)), 0u);
  EXPECT_EQ(op1(OpCode::IsInf, DType::F64, f64(-INFINITY)), 1u);
  EXPECT_EQ(op1(OpCode::IsInf, DType::F32, f32(NAN)), 0u);
  EXPECT_EQ(op1(OpCode::IsInf, DType::F32, f32(std::numeric_limits<float>::max())), 0u);
}

// ---- casts -------------------------------------------------------------------

TEST(ScalarOps, FloatToIntTruncatesSaturatesAndNanIsZero) {
  const DType ints[] = {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32, DType::U32, DType::I64, DType::U64};
  for (DType from : {DType::F32, DType::F64}) {
    auto fb = [&](double v) { return from == DType::F32 ? f32(static_cast<float>(v)) : f64(v); };
    for (DType to : ints) {
      SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)));
      Bits max = is_signed_int(to) ? in(to, max_of(to)) : normalize(to, ~Bits{0});
      Bits min = is_signed_int(to) ? in(to, min_of(to)) : 0;
      EXPECT_EQ(eval_cast(from, to, fb(NAN)), 0u);
      EXPECT_EQ(eval_cast(from, to, fb(-NAN)), 0u);
      EXPECT_EQ(eval_cast(from, to, fb(INFINITY)), max);
      EXPECT_EQ(eval_cast(from, to, fb(-INFINITY)), min);
      EXPECT_EQ(eval_cast(from, to, fb(1e30)), max);
      EXPECT_EQ(eval_cast(from, to, fb(-1e30)), min);
      EXPECT_EQ(eval_cast(from, to, fb(2.9)), 2u);
      EXPECT_EQ(eval_cast(from, to, fb(-0.9)), 0u);
      EXPECT_EQ(eval_cast(from, to, fb(-2.9)), is_signed_int(to) ? in(to, -2) : 0u);
      EXPECT_EQ(eval_cast(from, to, fb(-1.0)), is_signed_int(to) ? in(to, -1) : 0u);
    }
  }
  EXPECT_EQ(eval_cast(DType::F64, DType::I64, f64(9223372036854775808.0)), static_cast<Bits>(INT64_MAX));  // 2^63
  EXPECT_EQ(eval_cast(DType::F64, DType::I64, f64(-9223372036854775808.0)), static_cast<Bits>(INT64_MIN));
  EXPECT_EQ(eval_cast(DType::F64, DType::I64, f64(9223372036854774784.0)), static_cast<Bits>(9223372036854774784));
  EXPECT_EQ(eval_cast(DType::F64, DType::U64, f64(18446744073709551616.0)), ~Bits{0});  // 2^64
  EXPECT_EQ(eval_cast(DType::F64, DType::U64, f64(18446744073709549568.0)), Bits{18446744073709549568ull});
  EXPECT_EQ(eval_cast(DType::F64, DType::U64, f64(9223372036854775808.0)), Bits{1} << 63);
  EXPECT_EQ(eval_cast(DType::F32, DType::U64, f32(1.8446744e19f)), ~Bits{0});  // rounds to 2^64
  EXPECT_EQ(eval_cast(DType::F64, DType::U32, f64(-1.0)), 0u);
  EXPECT_EQ(eval_cast(DType::F64, DType::U32, f64(4294967295.0)), 0xffffffffu);
  EXPECT_EQ(eval_cast(DType::F64, DType::U32, f64(4294967296.0)), 0xffffffffu);
  EXPECT_EQ(eval_cast(DType::F32, DType::I32, f32(2147483648.0f)), in(DType::I32, INT32_MAX));
  EXPECT_EQ(eval_cast(DType::F32, DType::I32, f32(-2147483648.0f)), in(DType::I32, INT32_MIN));
  EXPECT_EQ(eval_cast(DType::F64, DType::I32, f64(-2147483648.9)), in(DType::I32, INT32_MIN));
  EXPECT_EQ(eval_cast(DType::F64, DType::I32, f64(-2147483649.0)), in(DType::I32, INT32_MIN));
  EXPECT_EQ(eval_cast(DType::F64, DType::I32, f64(2147483647.9)), in(DType::I32, INT32_MAX));
  EXPECT_EQ(eval_cast(DType::F64, DType::U8, f64(255.9)), 255u);
  EXPECT_EQ(eval_cast(DType::F64, DType::U8, f64(256.0)), 255u);
  EXPECT_EQ(eval_cast(DType::F64, DType::I8, f64(-128.5)), in(DType::I8, -128));
  EXPECT_EQ(eval_cast(DType::F64, DType::I8, f64(-129.0)), in(DType::I8, -128));
  EXPECT_EQ(eval_cast(DType::F32, DType::I16, f32(40000.0f)), in(DType::I16, 32767));
  EXPECT_EQ(eval_cast(DType::F32, DType::U16, f32(65535.5f)), 65535u);
}

TEST(ScalarOps, IntToFloatRoundsToNearestEven) {
  EXPECT_EQ(eval_cast(DType::I32, DType::F32, in(DType::I32, 16777217)), f32(16777216.0f));  // tie: even
  EXPECT_EQ(eval_cast(DType::I32, DType::F32, in(DType::I32, 16777219)), f32(16777220.0f));  // tie: even
  EXPECT_EQ(eval_cast(DType::I32, DType::F32, in(DType::I32, -16777217)), f32(-16777216.0f));
  EXPECT_EQ(eval_cast(DType::I64, DType::F64, in(DType::I64, (std::int64_t{1} << 53) + 1)), f64(9007199254740992.0));
  EXPECT_EQ(eval_cast(DType::I64, DType::F64, in(DType::I64, (std::int64_t{1} << 53) + 3)), f64(9007199254740996.0));
  EXPECT_EQ(eval_cast(DType::I64, DType::F32, static_cast<Bits>(INT64_MIN)), f32(-9223372036854775808.0f));
  EXPECT_EQ(eval_cast(DType::U64, DType::F64, ~Bits{0}), f64(18446744073709551616.0));
  EXPECT_EQ(eval_cast(DType::U64, DType::F32, ~Bits{0}), f32(18446744073709551616.0f));
  // u64 above 2^63: one rounding of the exact value, ties to even.
  Bits half = (Bits{1} << 63) | (Bits{1} << 39);  // 2^63 + half an f32 ulp
  EXPECT_EQ(eval_cast(DType::U64, DType::F32, half), f32(9223372036854775808.0f));
  EXPECT_EQ(eval_cast(DType::U64, DType::F32, half + 1), f32(9223373136366403584.0f));  // 2^63 + 2^40
  EXPECT_EQ(eval_cast(DType::U64, DType::F64, (Bits{1} << 63) | (Bits{1} << 10) | 1),
            f64(9223372036854777856.0));  // 2^63 + 2^11
  EXPECT_EQ(eval_cast(DType::U32, DType::F32, 0xffffffffu), f32(4294967296.0f));
  EXPECT_EQ(eval_cast(DType::I8, DType::F64, in(DType::I8, -128)), f64(-128.0));
  EXPECT_EQ(eval_cast(DType::U16, DType::F32, 65535), f32(65535.0f));
}

TEST(ScalarOps, F64ToF32RoundsToNearestEven) {
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(1.0 + std::ldexp(1.0, -24))), f32(1.0f));  // tie: even
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(1.0 + std::ldexp(3.0, -24))),
            f32(1.0f + std::ldexp(1.0f, -22)));  // tie: even, upward
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -50))),
            f32(1.0f + std::ldexp(1.0f, -23)));
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(1e300)), f32(INFINITY));
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(-1e300)), f32(-INFINITY));
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(INFINITY)), f32(INFINITY));
  // Around the top of f32's range: FLT_MAX + half an ulp (2^128 - 2^103) is a tie that rounds to infinity.
  const double flt_max = std::numeric_limits<float>::max();
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(flt_max + std::ldexp(1.0, 102))), f32(static_cast<float>(flt_max)));
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(-(flt_max + std::ldexp(1.0, 102)))),
            f32(-static_cast<float>(flt_max)));
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(std::ldexp(1.0, 128) - std::ldexp(1.0, 103))), f32(INFINITY));
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(std::nextafter(std::ldexp(1.0, 128) - std::ldexp(1.0, 103), 0.0))),
            f32(static_cast<float>(flt_max)));
  EXPECT_EQ(eval_cast(DType::F64, DType::F32, f64(0.1)), f32(0.1f));
  EXPECT_TRUE(std::isnan(as_f32(eval_cast(DType::F64, DType::F32, f64(NAN)))));
  EXPECT_EQ(eval_cast(DType::F32, DType::F64, f32(0.1f)), f64(static_cast<double>(0.1f)));
}

TEST(ScalarOps, IntToIntWraps) {
  EXPECT_EQ(eval_cast(DType::I32, DType::U8, in(DType::I32, 300)), 44u);
  EXPECT_EQ(eval_cast(DType::I32, DType::I8, in(DType::I32, 200)), in(DType::I8, -56));
  EXPECT_EQ(eval_cast(DType::I32, DType::U32, in(DType::I32, -1)), 0xffffffffu);
  EXPECT_EQ(eval_cast(DType::U32, DType::I64, 0xffffffffu), Bits{4294967295});
  EXPECT_EQ(eval_cast(DType::U32, DType::I32, 0xffffffffu), in(DType::I32, -1));
  EXPECT_EQ(eval_cast(DType::I64, DType::U64, in(DType::I64, -1)), ~Bits{0});
  EXPECT_EQ(eval_cast(DType::U64, DType::I64, ~Bits{0}), static_cast<Bits>(-1));
  EXPECT_EQ(eval_cast(DType::I8, DType::U16, in(DType::I8, -1)), 65535u);
  EXPECT_EQ(eval_cast(DType::U8, DType::I8, 255), in(DType::I8, -1));
  EXPECT_EQ(eval_cast(DType::I16, DType::I64, in(DType::I16, -32768)), in(DType::I64, -32768));
  EXPECT_EQ(eval_cast(DType::I64, DType::I32, in(DType::I64, 0x123456789)), in(DType::I32, 0x23456789));
}

TEST(ScalarOps, BoolConversions) {
  EXPECT_EQ(eval_cast(DType::I32, DType::Bool, in(DType::I32, 256)), 1u);  // "!= 0", not truncation
  EXPECT_EQ(eval_cast(DType::I32, DType::Bool, 0), 0u);
  EXPECT_EQ(eval_cast(DType::U64, DType::Bool, Bits{1} << 63), 1u);
  EXPECT_EQ(eval_cast(DType::F32, DType::Bool, f32(0.5f)), 1u);
  EXPECT_EQ(eval_cast(DType::F32, DType::Bool, f32(-0.0f)), 0u);
  EXPECT_EQ(eval_cast(DType::F64, DType::Bool, f64(0.0)), 0u);
  EXPECT_EQ(eval_cast(DType::F64, DType::Bool, f64(NAN)), 1u);
  EXPECT_EQ(eval_cast(DType::F64, DType::Bool, f64(std::numeric_limits<double>::denorm_min())), 1u);
  EXPECT_EQ(eval_cast(DType::Bool, DType::F32, 1), f32(1.0f));
  EXPECT_EQ(eval_cast(DType::Bool, DType::F64, 0), f64(0.0));
  EXPECT_EQ(eval_cast(DType::Bool, DType::I32, 1), 1u);
  EXPECT_EQ(eval_cast(DType::Bool, DType::I8, 1), 1u);
  EXPECT_EQ(eval_cast(DType::Bool, DType::U64, 1), 1u);
}

TEST(ScalarOps, SameTypeCastNormalizes) {
  EXPECT_EQ(eval_cast(DType::I8, DType::I8, 0xff), in(DType::I8, -1));
  EXPECT_EQ(eval_cast(DType::F32, DType::F32, f32(1.5f)), f32(1.5f));
}

}  // namespace
}  // namespace tack::ir
