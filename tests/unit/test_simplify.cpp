// Simplify folds constants as eval_op does, applies only identities exact under DESIGN §4,
// and leaves everything else, shared nodes included, as it was.
#include "ir/printer.hpp"
#include "ir/scalar_ops.hpp"
#include "ir/verify.hpp"
#include "passes/pipeline.hpp"
#include "passes/simplify.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace tack::passes {
namespace {

using namespace tack::ir;

Type T(DType d) { return Type::strong(d); }
Expr i64(std::int64_t v) { return Const::make_int(T(DType::I64), v); }
Expr i32(std::int32_t v) { return Const::make_int(T(DType::I32), v); }
Expr i8(std::int8_t v) { return Const::make_int(T(DType::I8), v); }
Expr u8(std::uint8_t v) { return Const::make_int(T(DType::U8), v); }
Expr f32(float v) { return Const::make_float(T(DType::F32), v); }
Expr f64(double v) { return Const::make_float(T(DType::F64), v); }
Expr boolean(bool v) { return Const::make_bool(v); }
Expr index0() { return LoopIndex::make(0); }

Expr op(OpCode o, Expr a, Expr b = {}, Expr c = {}) {
  OpCategory cat = op_category(o);
  Type t = cat == OpCategory::Compare || cat == OpCategory::Classify ? T(DType::Bool) : a->type;
  return Op::make(t, o, std::move(a), std::move(b), std::move(c));
}

// Run-time values of each dtype, so identities have something to keep.
Expr x_f32() { return ScalarParam::make(T(DType::F32), 2); }
Expr x_i32() { return ScalarParam::make(T(DType::I32), 3); }
Expr x_f64() { return ScalarParam::make(T(DType::F64), 4); }
Expr x_u8() { return ScalarParam::make(T(DType::U8), 5); }
Expr x_bool() { return op(OpCode::Lt, x_i32(), i32(7)); }

constexpr ArrayRef kOut{ArrayRef::Space::Param, 0};  // f32[n]
constexpr ArrayRef kIn{ArrayRef::Space::Param, 1};   // f32[n]

Kernel kernel(Stmt body, std::vector<Type> lets = {}, std::vector<Type> vars = {}) {
  Kernel k;
  k.name = "k";
  auto array = [](DType t) { return Param{ParamKind::Array, std::nullopt, t, 1}; };
  auto scalar = [](DType t) { return Param{ParamKind::Scalar, std::nullopt, t, -1}; };
  k.params = {array(DType::F32),  array(DType::F32),  scalar(DType::F32),
              scalar(DType::I32), scalar(DType::F64), scalar(DType::U8)};
  k.dims = {ArrayDim::make(0, ArrayDim::kSize)};
  k.lets = std::move(lets);
  k.vars = std::move(vars);
  k.body = std::move(body);
  k.typed = true;
  return k;
}

Stmt block(std::vector<Stmt> s) { return Block::make(std::move(s)); }

Kernel run(const Kernel& k) {
  std::string why;
  EXPECT_TRUE(verify_ok(k, &why)) << "input: " << why;
  Kernel out = simplify(k);
  EXPECT_TRUE(verify_ok(out, &why)) << "output: " << why;
  return out;
}

// Simplifies e as the value of `let t0 = e` and returns the new value.
Expr simplified(const Expr& e) {
  Kernel out = run(kernel(block({Let::make(0, e)}), {e->type}));
  return out.body.as<Block>()->stmts.at(0).as<Let>()->value;
}
std::string text(const Expr& e) { return to_string(simplified(e)); }

// e comes back as the very node given: no rule applied to it.
void expect_kept(const Expr& e) { EXPECT_TRUE(simplified(e).same_as(e)) << to_string(e) << " became " << text(e); }

// ---- constant folding -------------------------------------------------------

TEST(SimplifyFold, IntegersFoldAsTheInterpreterComputes) {
  EXPECT_EQ(text(op(OpCode::Add, i32(2), op(OpCode::Mul, i32(3), i32(4)))), "i32(14)");
  EXPECT_EQ(text(op(OpCode::Add, i8(127), i8(1))), "i8(-128)");  // wraps
  EXPECT_EQ(text(op(OpCode::Sub, u8(0), u8(1))), "u8(255)");
  EXPECT_EQ(text(op(OpCode::Div, i32(7), i32(0))), "i32(0)");  // by zero gives 0
  EXPECT_EQ(text(op(OpCode::Div, i32(std::numeric_limits<int32_t>::min()), i32(-1))), "i32(-2147483648)");
  EXPECT_EQ(text(op(OpCode::Mod, i32(-7), i32(2))), "i32(-1)");
  EXPECT_EQ(text(op(OpCode::FloorMod, i32(-7), i32(2))), "i32(1)");
  EXPECT_EQ(text(op(OpCode::FloorDiv, i32(-7), i32(2))), "i32(-4)");
  EXPECT_EQ(text(op(OpCode::Shl, i32(1), i32(33))), "i32(2)");  // count modulo the width
  EXPECT_EQ(text(op(OpCode::Shr, i8(-128), i8(7))), "i8(-1)");  // arithmetic for signed
}

TEST(SimplifyFold, ComparisonsAndLogicFoldToBool) {
  EXPECT_EQ(text(op(OpCode::Lt, i32(2), i32(3))), "true");
  EXPECT_EQ(text(op(OpCode::Ge, u8(200), u8(201))), "false");
  EXPECT_EQ(text(op(OpCode::Eq, f32(NAN), f32(NAN))), "false");
  EXPECT_EQ(text(op(OpCode::And, boolean(true), op(OpCode::Not, boolean(true)))), "false");
  EXPECT_EQ(text(op(OpCode::IsNan, f64(NAN))), "true");
}

TEST(SimplifyFold, FloatsFoldCorrectlyRoundedInTheirOwnDtype) {
  // 0.1f + 0.2f in f32, not in double.
  Expr sum = simplified(op(OpCode::Add, f32(0.1f), f32(0.2f)));
  ASSERT_TRUE(sum.as<Const>());
  EXPECT_EQ(sum.as<Const>()->f, static_cast<double>(0.1f + 0.2f));
  EXPECT_EQ(text(op(OpCode::Sqrt, f64(2))), to_string(f64(std::sqrt(2.0))));
  EXPECT_EQ(text(op(OpCode::Min, f32(NAN), f32(3))), "f32(3)");  // a NaN operand yields the other
  EXPECT_EQ(text(op(OpCode::Round, f32(2.5f))), "f32(2)");       // half to even
  EXPECT_EQ(text(op(OpCode::Fma, f64(2), f64(3), f64(1))), "f64(7)");
  Expr neg_zero = simplified(op(OpCode::Mul, f32(-1), f32(0)));
  EXPECT_EQ(const_bits(neg_zero.as<Const>()), bits_from_double(DType::F32, -0.0));
}

TEST(SimplifyFold, CastsFoldWithSaturationAndRounding) {
  EXPECT_EQ(text(Cast::make(T(DType::I32), f64(1e10))), "i32(2147483647)");
  EXPECT_EQ(text(Cast::make(T(DType::I32), f64(-1e10))), "i32(-2147483648)");
  EXPECT_EQ(text(Cast::make(T(DType::I32), f64(NAN))), "i32(0)");
  EXPECT_EQ(text(Cast::make(T(DType::I32), f32(-2.9f))), "i32(-2)");
  EXPECT_EQ(text(Cast::make(T(DType::U8), i32(300))), "u8(44)");
  EXPECT_EQ(text(Cast::make(T(DType::Bool), f32(-0.0f))), "false");
  EXPECT_EQ(text(Cast::make(T(DType::F32), f64(0.1))), to_string(f32(0.1f)));
}

TEST(SimplifyFold, LibraryFunctionsAreLeftToTheBackend) {
  // Each backend's math library computes these (§4: a few ulp); folding with the host's
  // libm would tie results to the compiling machine.
  for (OpCode o :
       {OpCode::Exp, OpCode::Exp2, OpCode::Log, OpCode::Log2, OpCode::Log10, OpCode::Sin, OpCode::Cos, OpCode::Tan,
        OpCode::Asin, OpCode::Acos, OpCode::Atan, OpCode::Sinh, OpCode::Cosh, OpCode::Tanh, OpCode::Rsqrt}) {
    expect_kept(op(o, f32(0.5f)));
  }
  expect_kept(op(OpCode::Pow, f64(2), f64(0.5)));
  expect_kept(op(OpCode::Atan2, f64(1), f64(2)));
  // Their operands still fold.
  EXPECT_EQ(text(op(OpCode::Exp, op(OpCode::Add, f32(1), f32(1)))), "exp.f32(f32(2))");
}

// ---- integer identities -----------------------------------------------------

TEST(SimplifyIdentity, IntegerArithmetic) {
  Expr x = x_i32();
  auto same = [&](const Expr& e) { EXPECT_TRUE(simplified(e).same_as(x)) << to_string(e); };
  same(op(OpCode::Add, x, i32(0)));
  same(op(OpCode::Add, i32(0), x));
  same(op(OpCode::Sub, x, i32(0)));
  same(op(OpCode::Mul, x, i32(1)));
  same(op(OpCode::Mul, i32(1), x));
  same(op(OpCode::Div, x, i32(1)));
  same(op(OpCode::FloorDiv, x, i32(1)));
  same(op(OpCode::Min, x, x));
  same(op(OpCode::Max, x, x));
  same(op(OpCode::Shl, x, i32(0)));
  same(op(OpCode::Shr, x, i32(32)));  // count modulo 32 is 0
  same(op(OpCode::Neg, op(OpCode::Neg, x)));
  same(op(OpCode::BitNot, op(OpCode::BitNot, x)));
  EXPECT_EQ(text(op(OpCode::Mul, x, i32(0))), "i32(0)");
  EXPECT_EQ(text(op(OpCode::Mul, i32(0), x)), "i32(0)");
  EXPECT_EQ(text(op(OpCode::Sub, x, x)), "i32(0)");
  EXPECT_EQ(text(op(OpCode::Div, x, i32(0))), "i32(0)");  // §4: by zero gives 0
  EXPECT_EQ(text(op(OpCode::Mod, x, i32(1))), "i32(0)");
  EXPECT_EQ(text(op(OpCode::Mod, x, i32(-1))), "i32(0)");  // MIN % -1 is 0 too
  EXPECT_EQ(text(op(OpCode::FloorMod, x, i32(0))), "i32(0)");
  EXPECT_EQ(text(op(OpCode::Abs, op(OpCode::Abs, x))), "abs.i32(%3)");
  // u8: -1 is 255, and x % 255 is not 0.
  expect_kept(op(OpCode::Mod, x_u8(), u8(255)));
  // Not identities: a shift by 1, a division by -1 for unsigned, x - 1.
  expect_kept(op(OpCode::Shl, x, i32(1)));
  expect_kept(op(OpCode::Div, x_u8(), u8(255)));
  expect_kept(op(OpCode::Sub, x, i32(1)));
}

TEST(SimplifyIdentity, BitsAndLogic) {
  Expr x = x_i32();
  auto same = [&](const Expr& e, const Expr& want) {
    EXPECT_TRUE(simplified(e).same_as(want)) << to_string(e) << " became " << text(e);
  };
  same(op(OpCode::BitAnd, x, x), x);
  same(op(OpCode::BitOr, x, x), x);
  same(op(OpCode::BitOr, x, i32(0)), x);
  same(op(OpCode::BitAnd, x, i32(-1)), x);
  same(op(OpCode::BitXor, i32(0), x), x);
  EXPECT_EQ(text(op(OpCode::BitAnd, x, i32(0))), "i32(0)");
  EXPECT_EQ(text(op(OpCode::BitOr, x, i32(-1))), "i32(-1)");
  EXPECT_EQ(text(op(OpCode::BitXor, x, x)), "i32(0)");
  Expr u = x_u8();
  same(op(OpCode::BitAnd, u, u8(255)), u);  // all ones for u8
  expect_kept(op(OpCode::BitAnd, u, u8(127)));

  Expr c = x_bool();
  same(op(OpCode::And, c, boolean(true)), c);
  same(op(OpCode::Or, boolean(false), c), c);
  same(op(OpCode::And, c, c), c);
  same(op(OpCode::Not, op(OpCode::Not, c)), c);
  EXPECT_EQ(text(op(OpCode::And, c, boolean(false))), "false");
  EXPECT_EQ(text(op(OpCode::Or, c, boolean(true))), "true");
  same(op(OpCode::BitAnd, c, boolean(true)), c);  // bool bits: true is all ones
}

TEST(SimplifyIdentity, ComparisonsOfEqualOperandsOnlyForIntegers) {
  Expr x = x_i32();
  EXPECT_EQ(text(op(OpCode::Eq, x, x)), "true");
  EXPECT_EQ(text(op(OpCode::Le, x, x)), "true");
  EXPECT_EQ(text(op(OpCode::Lt, x, x)), "false");
  EXPECT_EQ(text(op(OpCode::Ne, x, x)), "false");
  // NaN == NaN is false, NaN != NaN true: nothing to fold for floats.
  Expr y = x_f32();
  expect_kept(op(OpCode::Eq, y, y));
  expect_kept(op(OpCode::Ne, y, y));
  expect_kept(op(OpCode::Le, y, y));
}

// ---- float identities: only those exact for -0.0, inf and NaN ---------------

TEST(SimplifyIdentity, ExactFloatIdentitiesApply) {
  for (Expr x : {x_f32(), x_f64()}) {
    DType t = x->type.dtype;
    auto c = [&](double v) { return Const::make_float(T(t), v); };
    auto same = [&](const Expr& e) { EXPECT_TRUE(simplified(e).same_as(x)) << to_string(e) << " became " << text(e); };
    same(op(OpCode::Mul, x, c(1)));  // x * 1 == x, -0.0 and NaN included
    same(op(OpCode::Mul, c(1), x));
    same(op(OpCode::Div, x, c(1)));     // x / 1 == x
    same(op(OpCode::Add, x, c(-0.0)));  // -0.0 is the additive identity
    same(op(OpCode::Add, c(-0.0), x));
    same(op(OpCode::Sub, x, c(0.0)));  // x - 0.0 == x + -0.0
    same(op(OpCode::Neg, op(OpCode::Neg, x)));
    same(op(OpCode::Min, x, x));
    same(op(OpCode::Max, x, x));
  }
}

TEST(SimplifyIdentity, InexactFloatIdentitiesAreRefused) {
  for (Expr x : {x_f32(), x_f64()}) {
    DType t = x->type.dtype;
    auto c = [&](double v) { return Const::make_float(T(t), v); };
    expect_kept(op(OpCode::Add, x, c(0.0)));  // -0.0 + 0.0 is +0.0
    expect_kept(op(OpCode::Add, c(0.0), x));
    expect_kept(op(OpCode::Sub, x, c(-0.0)));  // that is x + 0.0
    expect_kept(op(OpCode::Sub, c(0.0), x));   // 0 - 0 is +0.0, -x is -0.0
    expect_kept(op(OpCode::Mul, x, c(0.0)));   // NaN, inf, and -0.0 for negative x
    expect_kept(op(OpCode::Mul, c(0.0), x));
    expect_kept(op(OpCode::Mul, x, c(-1.0)));  // would be -x up to a NaN's sign
    expect_kept(op(OpCode::Sub, x, x));        // inf - inf is NaN
    expect_kept(op(OpCode::Div, x, x));        // 0/0 is NaN
    expect_kept(op(OpCode::Div, x, c(0.0)));   // inf or NaN, not 0 as for integers
    expect_kept(op(OpCode::Div, c(0.0), x));   // 0/0 is NaN
    expect_kept(op(OpCode::Mul, x, c(2.0)));
  }
}

TEST(SimplifyIdentity, PowOfAConstantExponent) {
  for (Expr x : {x_f32(), x_f64()}) {
    DType t = x->type.dtype;
    auto c = [&](double v) { return Const::make_float(T(t), v); };
    const std::string name = to_string(x), type = t == DType::F32 ? "f32" : "f64";
    EXPECT_EQ(text(op(OpCode::Pow, x, c(2.0))), "mul." + type + "(" + name + ", " + name + ")");
    EXPECT_EQ(text(op(OpCode::Pow, x, c(-1.0))), "div." + type + "(" + type + "(1), " + name + ")");
    EXPECT_TRUE(simplified(op(OpCode::Pow, x, c(1.0))).same_as(x));
    EXPECT_EQ(text(op(OpCode::Pow, x, c(0.0))), type + "(1)");
    EXPECT_EQ(text(op(OpCode::Pow, x, c(-0.0))), type + "(1)");
    EXPECT_EQ(text(op(OpCode::Pow, x, c(0.5))), "select." + type + "(eq.bool(" + name + ", " + type + "(-inf)), " +
                                                    type + "(inf), abs." + type + "(sqrt." + type + "(" + name + ")))");
    // Any other integer exponent: pow of |x|, with x's sign where it is odd (a vector pow is slow on negative bases).
    EXPECT_EQ(text(op(OpCode::Pow, x, c(3.0))),
              "copysign." + type + "(pow." + type + "(abs." + type + "(" + name + "), " + type + "(3)), " + name + ")");
    EXPECT_EQ(text(op(OpCode::Pow, x, c(-2.0))), "pow." + type + "(abs." + type + "(" + name + "), " + type + "(-2))");
    expect_kept(op(OpCode::Pow, op(OpCode::Abs, x), c(3.0)));
    // Any other exponent, and a constant base, stay pow.
    expect_kept(op(OpCode::Pow, x, c(1.5)));
    expect_kept(op(OpCode::Pow, x, c(std::numeric_limits<double>::infinity())));
    expect_kept(op(OpCode::Pow, x, x));
    expect_kept(op(OpCode::Pow, c(3.0), c(2.0)));
  }
}

// ---- selects and casts ------------------------------------------------------

TEST(SimplifySelect, ConstantConditionsAndEqualBranches) {
  Expr a = x_f32(), b = op(OpCode::Neg, x_f32());
  EXPECT_TRUE(simplified(Select::make(T(DType::F32), boolean(true), a, b)).same_as(a));
  EXPECT_TRUE(simplified(Select::make(T(DType::F32), boolean(false), a, b)).same_as(b));
  EXPECT_TRUE(simplified(Select::make(T(DType::F32), x_bool(), a, a)).same_as(a));
  Expr c = x_bool();
  EXPECT_TRUE(simplified(Select::make(T(DType::Bool), c, boolean(true), boolean(false))).same_as(c));
  expect_kept(Select::make(T(DType::F32), x_bool(), a, b));
  // A condition that folds.
  EXPECT_EQ(text(Select::make(T(DType::I32), op(OpCode::Lt, i32(1), i32(2)), x_i32(), i32(9))), "%3");
}

TEST(SimplifyCast, ToTheSameDtypeIsTheValue) {
  Expr x = x_f32();
  EXPECT_TRUE(simplified(Cast::make(T(DType::F32), x)).same_as(x));
  expect_kept(Cast::make(T(DType::F64), x));
  expect_kept(Cast::make(T(DType::F32), Cast::make(T(DType::F64), x)));  // not folded: not an identity in general
}

// ---- statements -------------------------------------------------------------

TEST(SimplifyStmt, IfWithAConstantConditionBecomesItsBranch) {
  Stmt then_store = Store::make(kOut, index0(), 0, f32(1));
  Stmt else_store = Store::make(kOut, index0(), 0, f32(2));
  Stmt after = Store::make(kOut, index0(), 0, f32(3));
  Kernel taken =
      run(kernel(block({If::make(op(OpCode::Lt, i32(1), i32(2)), block({then_store}), block({else_store})), after})));
  EXPECT_EQ(to_string(taken.body), "store %0[index0] = f32(1)\nstore %0[index0] = f32(3)\n");
  Kernel other = run(kernel(block({If::make(boolean(false), block({then_store}), block({else_store})), after})));
  EXPECT_EQ(to_string(other.body), "store %0[index0] = f32(2)\nstore %0[index0] = f32(3)\n");
  Kernel none = run(kernel(block({If::make(boolean(false), block({then_store}), Stmt()), after})));
  EXPECT_EQ(to_string(none.body), "store %0[index0] = f32(3)\n");
  // The branch's own statements come back as the same nodes.
  EXPECT_TRUE(taken.body.as<Block>()->stmts[0].same_as(then_store));
}

TEST(SimplifyStmt, ForWithAConstantEmptyRangeIsRemoved) {
  Stmt body = block({Store::make(kOut, LetRef::make(T(DType::I64), 0), 0, f32(1))});
  for (auto [lo, hi] : {std::pair{5, 5}, std::pair{5, 2}}) {
    Kernel out = run(kernel(block({For::make(0, i64(lo), i64(hi), body)}), {T(DType::I64)}));
    EXPECT_EQ(to_string(out.body), "");
  }
  Expr n = ArrayDim::make(0, ArrayDim::kSize);
  Kernel same_bounds = run(kernel(block({For::make(0, n, n, body)}), {T(DType::I64)}));
  EXPECT_EQ(to_string(same_bounds.body), "");
  Kernel kept = kernel(block({For::make(0, i64(0), i64(1), body)}), {T(DType::I64)});
  EXPECT_TRUE(run(kept).body.same_as(kept.body));
  Kernel unknown = kernel(block({For::make(0, i64(0), n, body)}), {T(DType::I64)});
  EXPECT_TRUE(run(unknown).body.same_as(unknown.body));
}

TEST(SimplifyStmt, ConstantLetsPropagateIntoTheirUses) {
  Expr t0 = LetRef::make(T(DType::I32), 0);
  Expr t1 = LetRef::make(T(DType::F32), 1);
  Kernel out = run(kernel(
      block({Let::make(0, op(OpCode::Add, i32(2), i32(3))), Let::make(1, Load::make(T(DType::F32), kIn, index0(), 0)),
             Store::make(kOut, index0(), 0, op(OpCode::Mul, t1, Cast::make(T(DType::F32), op(OpCode::Mul, t0, t0))))}),
      {T(DType::I32), T(DType::F32)}));
  // The constant Let stays for dce to remove; the load's Let is not forwarded.
  EXPECT_EQ(to_string(out.body),
            "let t0 = i32(5)\n"
            "let t1 = load.f32 %1[index0]\n"
            "store %0[index0] = mul.f32(t1, f32(25))\n");
}

TEST(SimplifyStmt, NonConstantLetsAndVarsAreNotForwarded) {
  Expr t0 = LetRef::make(T(DType::I32), 0);
  Kernel k =
      kernel(block({Let::make(0, op(OpCode::Add, x_i32(), i32(1))), DeclareVar::make(0, i32(4)),
                    Store::make(kOut, index0(), 0,
                                Cast::make(T(DType::F32), op(OpCode::Add, t0, VarRef::make(T(DType::I32), 0))))}),
             {T(DType::I32)}, {T(DType::I32)});
  EXPECT_TRUE(run(k).body.same_as(k.body));
}

TEST(SimplifyStmt, UnchangedKernelsComeBackAsTheSameNodes) {
  Expr t0 = LetRef::make(T(DType::F32), 0);
  Kernel k =
      kernel(block({Let::make(0, Load::make(T(DType::F32), kIn, index0(), 0)),
                    If::make(op(OpCode::Gt, t0, f32(0)),
                             block({Store::make(kOut, index0(), 0, op(OpCode::Add, op(OpCode::Mul, t0, t0), x_f32()))}),
                             Stmt())}),
             {T(DType::F32)});
  Kernel out = run(k);
  EXPECT_TRUE(out.body.same_as(k.body));
  EXPECT_TRUE(out.dims[0].same_as(k.dims[0]));
}

TEST(SimplifyStmt, SharedSubtreesStayShared) {
  // p = (x * y) * 1 is used twice; after simplification both uses are one node, so a
  // code generator still sees a product with two uses (§4: no contraction).
  Expr y = op(OpCode::Neg, x_f32());
  Expr p = op(OpCode::Mul, op(OpCode::Mul, x_f32(), y), f32(1));
  Kernel out = run(kernel(block({Store::make(kOut, index0(), 0, op(OpCode::Sub, p, p))})));
  auto sub = out.body.as<Block>()->stmts[0].as<Store>()->value.as<Op>();
  ASSERT_TRUE(sub);
  EXPECT_TRUE(sub->args[0].same_as(sub->args[1]));
  EXPECT_EQ(to_string(sub->args[0]), "mul.f32(%2, neg.f32(%2))");
}

TEST(SimplifyStmt, DeepSharingStaysLinear) {
  Expr e = op(OpCode::Mul, x_i32(), i32(1));
  for (int i = 0; i < 60; ++i) e = op(OpCode::Add, e, op(OpCode::Mul, e, i32(1)));
  Expr out = simplified(e);
  auto top = out.as<Op>();
  ASSERT_TRUE(top);
  EXPECT_TRUE(top->args[0].same_as(top->args[1]));
}

// ---- the pipeline -----------------------------------------------------------

TEST(Optimize, RunsThePassesAndVerifies) {
  // let t0 = 2; let t1 = load in[i]; let t2 = t1 * t0 (unused)
  // var v0 = 0 (never read); if (t0 > 1) { out[i] = (t1 + -0.0) * 1 - (t1 + -0.0) * 1 }
  Expr t0 = LetRef::make(T(DType::F32), 0);
  Expr t1 = LetRef::make(T(DType::F32), 1);
  Expr q1 = op(OpCode::Mul, op(OpCode::Add, t1, f32(-0.0f)), f32(1));
  Expr q2 = op(OpCode::Mul, op(OpCode::Add, t1, f32(-0.0f)), f32(1));
  Kernel k =
      kernel(block({Let::make(0, f32(2)), Let::make(1, Load::make(T(DType::F32), kIn, index0(), 0)),
                    Let::make(2, op(OpCode::Mul, t1, t0)), DeclareVar::make(0, f32(0)),
                    If::make(op(OpCode::Gt, t0, f32(1)),
                             block({Store::make(kOut, index0(), 0,
                                                op(OpCode::Sub, op(OpCode::Mul, q1, t0), op(OpCode::Mul, q2, t0)))}),
                             Stmt())}),
             {T(DType::F32), T(DType::F32), T(DType::F32)}, {T(DType::F32)});
  Kernel out = optimize(k);
  EXPECT_EQ(to_string(out.body),
            "let t1 = load.f32 %1[index0]\n"
            "store %0[index0] = sub.f32(mul.f32(t1, f32(2)), mul.f32(t1, f32(2)))\n");
  auto sub = out.body.as<Block>()->stmts[1].as<Store>()->value.as<Op>();
  EXPECT_TRUE(sub->args[0].same_as(sub->args[1]));  // one product with two uses
  EXPECT_EQ(out.lets.size(), k.lets.size());        // ids stay
  verify(out);
}

}  // namespace
}  // namespace tack::passes
