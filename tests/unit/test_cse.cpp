// CSE shares structurally equal subtrees inside one statement, and nothing more.
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "passes/cse.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>

namespace tack::passes {
namespace {

using namespace tack::ir;

Type T(DType d) { return Type::strong(d); }
Expr i64(std::int64_t v) { return Const::make_int(T(DType::I64), v); }
Expr i32(std::int32_t v) { return Const::make_int(T(DType::I32), v); }
Expr f32(float v) { return Const::make_float(T(DType::F32), v); }
Expr f64(double v) { return Const::make_float(T(DType::F64), v); }
Expr index0() { return LoopIndex::make(0); }

Expr op(OpCode o, Expr a, Expr b = {}, Expr c = {}) {
  OpCategory cat = op_category(o);
  Type t = cat == OpCategory::Compare || cat == OpCategory::Classify ? T(DType::Bool) : a->type;
  return Op::make(t, o, std::move(a), std::move(b), std::move(c));
}

// Every call makes a new node, as a front end reading a parameter twice would.
Expr a() { return ScalarParam::make(T(DType::F32), 2); }
Expr b() { return ScalarParam::make(T(DType::F32), 3); }
Expr ab() { return op(OpCode::Mul, a(), b()); }

constexpr ArrayRef kOut{ArrayRef::Space::Param, 0};  // f32[n]
constexpr ArrayRef kIn{ArrayRef::Space::Param, 1};   // f32[n]

Kernel kernel(Stmt body, std::vector<Type> lets = {}) {
  Kernel k;
  k.name = "k";
  auto array = [](DType t) { return Param{ParamKind::Array, std::nullopt, t, 1}; };
  auto scalar = [](DType t) { return Param{ParamKind::Scalar, std::nullopt, t, -1}; };
  k.params = {array(DType::F32), array(DType::F32), scalar(DType::F32), scalar(DType::F32)};
  k.dims = {ArrayDim::make(0, ArrayDim::kSize)};
  k.lets = std::move(lets);
  k.body = std::move(body);
  k.typed = true;
  return k;
}

Stmt block(std::vector<Stmt> s) { return Block::make(std::move(s)); }

Kernel run(const Kernel& k) {
  std::string why;
  EXPECT_TRUE(verify_ok(k, &why)) << "input: " << why;
  Kernel out = cse(k);
  EXPECT_TRUE(verify_ok(out, &why)) << "output: " << why;
  EXPECT_EQ(to_string(out), to_string(k));  // sharing never changes what the IR says
  return out;
}

const Stmt& stmt(const Kernel& k, std::size_t i) { return k.body.as<Block>()->stmts.at(i); }
const Op* stored_op(const Kernel& k, std::size_t i) { return stmt(k, i).as<Store>()->value.as<Op>(); }

TEST(Cse, EqualSubtreesOfOneStatementBecomeOneNode) {
  // a*b - a*b, built as two separate products: one node afterwards, so the product
  // has two uses and may not contract (p - p is then exactly 0).
  Kernel out = run(kernel(block({Store::make(kOut, index0(), 0, op(OpCode::Sub, ab(), ab()))})));
  const Op* sub = stored_op(out, 0);
  EXPECT_TRUE(sub->args[0].same_as(sub->args[1]));
  // Leaves are shared too: both products read the same %2 node.
  const Op* mul = sub->args[0].as<Op>();
  EXPECT_EQ(mul->args[0]->kind, ExprKind::ScalarParam);
}

TEST(Cse, SharesBetweenAStatementsExpressions) {
  // A Store's index and value are one statement's expressions.
  Expr k1 = op(OpCode::Add, index0(), i64(1));
  Expr k2 = op(OpCode::Add, index0(), i64(1));
  Kernel out = run(kernel(block({Store::make(kOut, k1, 0, Cast::make(T(DType::F32), k2))})));
  auto st = stmt(out, 0).as<Store>();
  EXPECT_TRUE(st->index.same_as(st->value.as<Cast>()->value));
}

TEST(Cse, NeverMergesAcrossStatements) {
  Expr p1 = ab(), p2 = ab();
  Kernel out = run(kernel(block({Store::make(kOut, index0(), 0, p1), Store::make(kOut, index0(), 0, p2)})));
  EXPECT_TRUE(stored_op(out, 0) == p1.get());
  EXPECT_TRUE(stored_op(out, 1) == p2.get());
  // Nor between an If's condition and its branches.
  Expr c1 = op(OpCode::Gt, ab(), f32(0));
  Stmt inner = Store::make(kOut, index0(), 0, ab());
  Kernel k = kernel(block({If::make(c1, block({inner}), Stmt())}));
  EXPECT_TRUE(run(k).body.same_as(k.body));
}

TEST(Cse, NeverMergesLoads) {
  // Two reads of the same element are two reads: the array may change in between.
  Expr l1 = Load::make(T(DType::F32), kIn, index0(), 0);
  Expr l2 = Load::make(T(DType::F32), kIn, index0(), 0);
  Kernel k =
      kernel(block({Let::make(0, l1), Store::make(kIn, index0(), 0, f32(3)), Let::make(1, l2),
                    Store::make(kOut, index0(), 0,
                                op(OpCode::Add, LetRef::make(T(DType::F32), 0), LetRef::make(T(DType::F32), 1)))}),
             {T(DType::F32), T(DType::F32)});
  Kernel out = run(k);
  EXPECT_TRUE(stmt(out, 0).same_as(stmt(k, 0)));
  EXPECT_TRUE(stmt(out, 2).same_as(stmt(k, 2)));
}

TEST(Cse, ConstantsAreComparedByTheirBits) {
  // +0.0 and -0.0 compare equal as doubles but are different values.
  Kernel zeros = run(kernel(block({Store::make(kOut, index0(), 0, op(OpCode::Sub, f32(0.0f), f32(-0.0f)))})));
  const Op* z = stored_op(zeros, 0);
  EXPECT_FALSE(z->args[0].same_as(z->args[1]));
  // NaNs with different payloads are different constants; equal payloads are one.
  double q1 = std::bit_cast<double>(0x7ff8000000000001ULL), q2 = std::bit_cast<double>(0x7ff8000000000002ULL);
  Kernel nans = run(kernel(block({Store::make(
      kOut, index0(), 0, Cast::make(T(DType::F32), op(OpCode::Add, op(OpCode::Add, f64(q1), f64(q2)), f64(q1))))})));
  const Op* outer = stmt(nans, 0).as<Store>()->value.as<Cast>()->value.as<Op>();
  const Op* inner = outer->args[0].as<Op>();
  EXPECT_FALSE(inner->args[0].same_as(inner->args[1]));
  EXPECT_TRUE(inner->args[0].same_as(outer->args[1]));
  // Equal values of different types are different.
  Expr one_i32 = i32(1), one_i64 = i64(1);
  Kernel types = run(kernel(
      block({Store::make(kOut, op(OpCode::Add, index0(), one_i64), 0,
                         Cast::make(T(DType::F32), op(OpCode::Add, Cast::make(T(DType::I32), index0()), one_i32)))})));
  auto st = stmt(types, 0).as<Store>();
  EXPECT_TRUE(st->index.as<Op>()->args[1].same_as(one_i64));
  EXPECT_TRUE(st->value.as<Cast>()->value.as<Op>()->args[1].same_as(one_i32));
}

TEST(Cse, DistinguishesEveryField) {
  // Same shape, different operator, parameter or dim: nothing to share.
  Expr s1 = op(OpCode::Add, a(), b()), s2 = op(OpCode::Sub, a(), b()), s3 = op(OpCode::Add, b(), a());
  Kernel k = kernel(block({Store::make(kOut, index0(), 0, op(OpCode::Mul, op(OpCode::Mul, s1, s2), s3))}));
  Kernel out = run(k);
  const Op* top = stored_op(out, 0);
  const Op* left = top->args[0].as<Op>();
  EXPECT_FALSE(left->args[0].same_as(left->args[1]));
  EXPECT_FALSE(left->args[0].same_as(top->args[1]));
  Expr d0 = ArrayDim::make(0, ArrayDim::kSize), d1 = ArrayDim::make(1, ArrayDim::kSize);
  Kernel dims = run(kernel(block({Store::make(kOut, op(OpCode::Add, d0, d1), 0, f32(0))})));
  auto idx = stmt(dims, 0).as<Store>()->index.as<Op>();
  EXPECT_FALSE(idx->args[0].same_as(idx->args[1]));
}

TEST(Cse, UnchangedIrIsTheSameNode) {
  Expr p = ab();  // already shared by the front end
  Kernel k = kernel(
      block({Let::make(0, Load::make(T(DType::F32), kIn, index0(), 0)),
             Store::make(kOut, index0(), 0, op(OpCode::Add, p, op(OpCode::Mul, p, LetRef::make(T(DType::F32), 0))))}),
      {T(DType::F32)});
  Kernel out = run(k);
  EXPECT_TRUE(out.body.same_as(k.body));
  EXPECT_TRUE(out.dims[0].same_as(k.dims[0]));
}

TEST(Cse, HandlesDeepDags) {
  // Two structurally equal chains of 2^60 paths each: one node per level afterwards.
  auto chain = [] {
    Expr e = a();
    for (int i = 0; i < 60; ++i) e = op(OpCode::Add, e, e);
    return e;
  };
  Kernel out = cse(kernel(block({Store::make(kOut, index0(), 0, op(OpCode::Sub, chain(), chain()))})));
  const Op* sub = stored_op(out, 0);
  EXPECT_TRUE(sub->args[0].same_as(sub->args[1]));
}

}  // namespace
}  // namespace tack::passes
