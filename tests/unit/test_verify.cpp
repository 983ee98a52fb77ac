// The verifier accepts well-formed typed IR and names the node of every broken rule.
#include "ir/printer.hpp"
#include "ir/verify.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tack::ir {
namespace {

Type T(DType d) { return Type::strong(d); }
Expr i64(std::int64_t v) { return Const::make_int(T(DType::I64), v); }
Expr i32(std::int32_t v) { return Const::make_int(T(DType::I32), v); }
Expr f32(float v) { return Const::make_float(T(DType::F32), v); }
Expr f64(double v) { return Const::make_float(T(DType::F64), v); }
Expr tru() { return Const::make_bool(true); }
Expr index0() { return LoopIndex::make(0); }

// Result type by category: comparisons and classifications give bool, the rest the operand's type.
Expr op(OpCode o, Expr a, Expr b = {}, Expr c = {}) {
  OpCategory cat = op_category(o);
  Type t = cat == OpCategory::Compare || cat == OpCategory::Classify ? T(DType::Bool) : a->type;
  return Op::make(t, o, std::move(a), std::move(b), std::move(c));
}

constexpr ArrayRef kOut{ArrayRef::Space::Param, 0};   // f32[n]
constexpr ArrayRef kIn{ArrayRef::Space::Param, 1};    // f32[n]
constexpr ArrayRef kInts{ArrayRef::Space::Param, 4};  // i32[n]
constexpr ArrayRef kGrid{ArrayRef::Space::Param, 7};  // f32[n, m]
Expr a_f32() { return ScalarParam::make(T(DType::F32), 2); }
Expr n_i32() { return ScalarParam::make(T(DType::I32), 3); }

Kernel kernel(Stmt body, std::vector<Type> lets = {}, std::vector<Type> vars = {},
              LaunchKind launch = LaunchKind::Parallel) {
  Kernel k;
  k.name = "k";
  auto array = [](DType t, int rank) { return Param{ParamKind::Array, std::nullopt, t, rank}; };
  auto scalar = [](DType t) { return Param{ParamKind::Scalar, std::nullopt, t, -1}; };
  k.params = {array(DType::F32, 1), array(DType::F32, 1), scalar(DType::F32),
              scalar(DType::I32),   array(DType::I32, 1), Param{ParamKind::Texture, std::nullopt, DType::F32, -1},
              scalar(DType::F64),   array(DType::F32, 2)};
  k.launch = launch;
  k.dims = {ArrayDim::make(0, ArrayDim::kSize)};
  if (launch == LaunchKind::Workgroup) k.shared = {SharedArray{DType::F32, 64}};
  k.lets = std::move(lets);
  k.vars = std::move(vars);
  k.body = std::move(body);
  k.typed = true;
  return k;
}

// The verifier's message, or "" when the kernel verifies.
std::string why(const Kernel& k) {
  std::string w;
  return verify_ok(k, &w) ? "" : w;
}

#define EXPECT_BROKEN(k, text)                                 \
  do {                                                         \
    std::string w_ = why(k);                                   \
    EXPECT_NE(w_, "") << "expected a failure about: " << text; \
    EXPECT_NE(w_.find(text), std::string::npos) << w_;         \
  } while (0)

Stmt block(std::vector<Stmt> s) { return Block::make(std::move(s)); }
Expr load_in() { return Load::make(T(DType::F32), kIn, index0(), 0); }
Expr t(int id, DType d = DType::F32) { return LetRef::make(T(d), id); }
Expr v(int id, DType d = DType::F32) { return VarRef::make(T(d), id); }

TEST(Verify, AcceptsSaxpy) {
  Kernel k = kernel(block({Let::make(0, load_in()),
                           Store::make(kOut, index0(), 0, op(OpCode::Add, op(OpCode::Mul, a_f32(), t(0)), t(0)))}),
                    {T(DType::F32)});
  EXPECT_EQ(why(k), "");
  verify(k);  // does not abort
}

// Python's `/` exists only until inference, which lowers it to div.
TEST(Verify, RefusesATrueDivisionLeftByInference) {
  Kernel k = kernel(block({Store::make(kOut, index0(), 0, op(OpCode::TrueDiv, f32(1), f32(3)))}));
  EXPECT_BROKEN(k, "'truediv' needs lowering to div by infer_types");
}

TEST(Verify, AcceptsControlFlowVarsAndScopes) {
  // var v0 = 0; for t1 in [0, n) { let t2 = cast(t1); v0 = v0 + t2; if (v0 > 100) break }
  // loop { if !(v0 < 5) break; v0 = v0 + 1; continue }  store out[i] = v0
  Stmt for_body =
      block({Let::make(2, Cast::make(T(DType::F32), t(1, DType::I64))), Assign::make(0, op(OpCode::Add, v(0), t(2))),
             If::make(op(OpCode::Gt, v(0), f32(100)), block({Break::make()}), Stmt())});
  Stmt loop_body = block({If::make(op(OpCode::Not, op(OpCode::Lt, v(0), f32(5))), block({Break::make()}), Stmt()),
                          Assign::make(0, op(OpCode::Add, v(0), f32(1))), Continue::make()});
  Kernel k =
      kernel(block({DeclareVar::make(0, f32(0)), For::make(1, i64(0), Cast::make(T(DType::I64), n_i32()), for_body),
                    Loop::make(loop_body), Store::make(kOut, index0(), 0, v(0))}),
             {T(DType::F32), T(DType::I64), T(DType::F32)}, {T(DType::F32)});
  EXPECT_EQ(why(k), "");
}

TEST(Verify, AcceptsWorkgroupKernel) {
  ArrayRef shared{ArrayRef::Space::Shared, 0};
  Expr lid = GroupValue::make(GroupField::LocalId);
  Kernel k = kernel(
      block({Let::make(0, Load::make(T(DType::F32), kIn, lid, 0)), Store::make(shared, lid, 0, t(0)), Barrier::make(),
             Let::make(1, Load::make(T(DType::F32), shared, lid, 1)), GroupReduce::make(ReduceOp::Add, t(1), 2),
             Store::make(kOut, GroupValue::make(GroupField::GroupId), 0, t(2))}),
      {T(DType::F32), T(DType::F32), T(DType::F32)}, {}, LaunchKind::Workgroup);
  EXPECT_EQ(why(k), "");
}

TEST(Verify, AcceptsAtomicsTexturesAndSubscripts) {
  Expr u = Cast::make(T(DType::F32), index0());
  Kernel k = kernel(block({Atomic::make(AtomicOp::Add, kInts, index0(), 0, i32(1), {}, 0),
                           Atomic::make(AtomicOp::Cas, kInts, index0(), 0, i32(2), t(0, DType::I32), 1),
                           Atomic::make(AtomicOp::Xor, kInts, index0(), 0, t(1, DType::I32), {}, 2),
                           Store::make(kOut, index0(), 0, TexSample::make(T(DType::F32), 5, u, u, u)),
                           Store::make(kGrid, index0(), 2, op(OpCode::Sqrt, a_f32())),
                           Store::make(kOut, index0(), 1, Cast::make(T(DType::F32), ArrayDim::make(7, 1)))}),
                    {T(DType::I32), T(DType::I32), T(DType::I32)});
  EXPECT_EQ(why(k), "");
}

TEST(Verify, RejectsUntypedKernelsAndNonStrongTypes) {
  Kernel k = kernel(block({}));
  k.typed = false;
  EXPECT_BROKEN(k, "not typed");

  Expr weak = Const::make_float(Type::weak(DType::F32), 1);
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, weak)})), "not Strong");
}

TEST(Verify, RejectsNonCanonicalConstants) {
  Expr big = Const::make_int(T(DType::I8), 300);
  EXPECT_BROKEN(kernel(block({Let::make(0, big)}), {T(DType::I8)}), "not canonical");
  Expr neg_unsigned = Const::make_int(T(DType::U8), -1);
  EXPECT_BROKEN(kernel(block({Let::make(0, neg_unsigned)}), {T(DType::U8)}), "not canonical");
  Expr not_an_f32 = Const::make_float(T(DType::F32), 0.1);  // the double 0.1 has no f32 spelling
  EXPECT_BROKEN(kernel(block({Let::make(0, not_an_f32)}), {T(DType::F32)}), "not canonical");
  EXPECT_EQ(why(kernel(block({Let::make(0, Const::make_int(T(DType::U8), 255))}), {T(DType::U8)})), "");
}

TEST(Verify, RejectsALoadThatIsNotAWholeLetValue) {
  Expr nested = op(OpCode::Add, load_in(), f32(1));
  Kernel k = kernel(block({Store::make(kOut, index0(), 0, nested)}));
  std::string w = why(k);
  EXPECT_NE(w.find("whole value of a Let"), std::string::npos) << w;
  EXPECT_NE(w.find("load.f32 %1[index0]"), std::string::npos) << w;  // prints the node
  EXPECT_NE(w.find("store %0[index0]"), std::string::npos) << w;     // and its statement

  EXPECT_BROKEN(kernel(block({Let::make(0, nested)}), {T(DType::F32)}), "whole value of a Let");
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, load_in())})), "whole value of a Let");
  Expr load_index = Load::make(T(DType::I32), kInts, index0(), 0);
  Expr indirect = Load::make(T(DType::F32), kIn, Cast::make(T(DType::I64), load_index), 0);
  EXPECT_BROKEN(kernel(block({Let::make(0, indirect)}), {T(DType::F32)}), "whole value of a Let");
}

TEST(Verify, RejectsLetsUsedOutsideTheirScope) {
  // Defined in an If branch, used after the If.
  Kernel in_if =
      kernel(block({If::make(tru(), block({Let::make(0, f32(1))}), Stmt()), Store::make(kOut, index0(), 0, t(0))}),
             {T(DType::F32)});
  EXPECT_BROKEN(in_if, "t0 is used where it is not defined on every path");
  // Defined in the else branch, used in the then branch.
  Kernel across =
      kernel(block({If::make(tru(), block({Store::make(kOut, index0(), 0, t(0))}), block({Let::make(0, f32(1))}))}),
             {T(DType::F32)});
  EXPECT_BROKEN(across, "not defined on every path");
  // Defined in a loop body, used after the loop; and the loop's own index after it.
  Kernel in_loop =
      kernel(block({Loop::make(block({Let::make(0, f32(1)), Break::make()})), Store::make(kOut, index0(), 0, t(0))}),
             {T(DType::F32)});
  EXPECT_BROKEN(in_loop, "not defined on every path");
  Kernel for_index =
      kernel(block({For::make(0, i64(0), i64(4), block({})), Store::make(kOut, t(0, DType::I64), 0, f32(0))}),
             {T(DType::I64)});
  EXPECT_BROKEN(for_index, "not defined on every path");
  // Used before its definition.
  Kernel early = kernel(block({Store::make(kOut, index0(), 0, t(0)), Let::make(0, f32(1))}), {T(DType::F32)});
  EXPECT_BROKEN(early, "not defined on every path");
}

TEST(Verify, RejectsBadLetIdsAndTypes) {
  EXPECT_BROKEN(kernel(block({Let::make(0, f32(1)), Let::make(0, f32(2))}), {T(DType::F32)}), "bound twice");
  EXPECT_BROKEN(kernel(block({Let::make(1, f32(1))}), {T(DType::F32)}), "outside Kernel::lets");
  EXPECT_BROKEN(kernel(block({Let::make(0, f32(1))}), {T(DType::F64)}), "Kernel::lets says f64");
  Kernel ref =
      kernel(block({Let::make(0, f32(1)), Store::make(kOut, index0(), 0, Cast::make(T(DType::F32), t(0, DType::F64)))}),
             {T(DType::F32)});
  EXPECT_BROKEN(ref, "t0 is read as a f64");
  // A For index is an i64 Let; an atomic's result has the array's dtype.
  EXPECT_BROKEN(kernel(block({For::make(0, i64(0), i64(1), block({}))}), {T(DType::I32)}), "Kernel::lets says i32");
  EXPECT_BROKEN(kernel(block({Atomic::make(AtomicOp::Add, kInts, index0(), 0, i32(1), {}, 0)}), {T(DType::I64)}),
                "Kernel::lets says i64");
}

TEST(Verify, RejectsBadVars) {
  EXPECT_BROKEN(kernel(block({Assign::make(0, f32(1))}), {}, {T(DType::F32)}), "DeclareVar is not in scope");
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, v(0))}), {}, {T(DType::F32)}), "not in scope");
  EXPECT_BROKEN(kernel(block({DeclareVar::make(0, f32(1)), Assign::make(0, f64(1))}), {}, {T(DType::F32)}),
                "v0 is used as a f64");
  EXPECT_BROKEN(kernel(block({DeclareVar::make(0, f64(1))}), {}, {T(DType::F32)}), "Kernel::vars says f32");
  EXPECT_BROKEN(kernel(block({DeclareVar::make(0, f32(1)), DeclareVar::make(0, f32(1))}), {}, {T(DType::F32)}),
                "declared twice");
  EXPECT_BROKEN(kernel(block({If::make(tru(), block({DeclareVar::make(0, f32(1))}), Stmt()), Assign::make(0, f32(2))}),
                       {}, {T(DType::F32)}),
                "not in scope");
}

TEST(Verify, RejectsOperandsOfDifferentDtypes) {
  Expr mixed = Op::make(T(DType::F32), OpCode::Add, a_f32(), f64(1));
  std::string w = why(kernel(block({Store::make(kOut, index0(), 0, mixed)})));
  EXPECT_NE(w.find("one dtype"), std::string::npos) << w;
  EXPECT_NE(w.find(to_string(mixed)), std::string::npos) << w;
  Expr shift = Op::make(T(DType::I32), OpCode::Shl, n_i32(), i64(1));  // shift counts too
  EXPECT_BROKEN(kernel(block({Let::make(0, shift)}), {T(DType::I32)}), "one dtype");
}

TEST(Verify, RejectsOperatorsOutsideTheirCategory) {
  auto let_of = [](Expr e) { return kernel(block({Let::make(0, e)}), {e->type}); };
  EXPECT_EQ(why(let_of(Op::make(T(DType::F32), OpCode::Add, a_f32(), a_f32()))), "");
  // Arith: result of the operands' dtype, never bool.
  EXPECT_BROKEN(let_of(Op::make(T(DType::F64), OpCode::Mul, a_f32(), a_f32())), "'mul' needs numeric operands");
  EXPECT_BROKEN(let_of(Op::make(T(DType::Bool), OpCode::Add, tru(), tru())), "'add' needs numeric operands");
  // Compare: bool result.
  EXPECT_BROKEN(let_of(Op::make(T(DType::F32), OpCode::Lt, a_f32(), a_f32())), "'lt' needs a bool result");
  // Logic: bool operands.
  EXPECT_BROKEN(let_of(Op::make(T(DType::Bool), OpCode::And, n_i32(), n_i32())), "'and' needs bool operands");
  EXPECT_BROKEN(let_of(Op::make(T(DType::I32), OpCode::Not, n_i32())), "'not' needs bool operands");
  // Bits and Shift: integers (Bits also bool).
  EXPECT_BROKEN(let_of(Op::make(T(DType::F32), OpCode::BitAnd, a_f32(), a_f32())), "'bitand' needs integer or bool");
  EXPECT_EQ(why(let_of(Op::make(T(DType::Bool), OpCode::BitXor, tru(), tru()))), "");
  EXPECT_BROKEN(let_of(Op::make(T(DType::Bool), OpCode::Shl, tru(), tru())), "'shl' needs integer operands");
  // Signed: numeric.
  EXPECT_BROKEN(let_of(Op::make(T(DType::Bool), OpCode::Neg, tru())), "'neg' needs numeric");
  // Float: float operand, same dtype.
  EXPECT_BROKEN(let_of(Op::make(T(DType::I32), OpCode::Sqrt, n_i32())), "'sqrt' needs float operands");
  EXPECT_BROKEN(let_of(Op::make(T(DType::F64), OpCode::Exp, a_f32())), "'exp' needs float operands");
  // Classify: float operand, bool result.
  EXPECT_BROKEN(let_of(Op::make(T(DType::Bool), OpCode::IsNan, n_i32())), "'isnan' needs a float operand");
  EXPECT_BROKEN(let_of(Op::make(T(DType::F32), OpCode::IsInf, a_f32())), "'isinf' needs a float operand");
}

TEST(Verify, RejectsAnOperandCountThatIsNotTheArity) {
  // The factory refuses this; a node built by hand must still be caught.
  auto bad = Expr(std::make_shared<const Op>(T(DType::F32), OpCode::Add, std::array<Expr, 3>{a_f32(), {}, {}}));
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, bad)})), "arity");
}

TEST(Verify, RejectsBadSelects) {
  Expr c = op(OpCode::Lt, a_f32(), f32(0));
  EXPECT_EQ(why(kernel(block({Store::make(kOut, index0(), 0, Select::make(T(DType::F32), c, a_f32(), f32(1)))}))), "");
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, Select::make(T(DType::F32), a_f32(), a_f32(), f32(1)))})),
                "select condition must be bool");
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, Select::make(T(DType::F32), c, a_f32(), f64(1)))})),
                "branches must have the select's type");
}

TEST(Verify, RejectsBadArrayAccesses) {
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, f64(1))})), "the array holds f32");
  EXPECT_BROKEN(kernel(block({Store::make(ArrayRef{ArrayRef::Space::Param, 2}, index0(), 0, f32(1))})),
                "%2 is a Scalar, not an Array");
  EXPECT_BROKEN(kernel(block({Store::make(ArrayRef{ArrayRef::Space::Param, 5}, index0(), 0, f32(1))})),
                "%5 is a Texture3D, not an Array");
  EXPECT_BROKEN(kernel(block({Store::make(ArrayRef{ArrayRef::Space::Param, 9}, index0(), 0, f32(1))})),
                "does not exist");
  EXPECT_BROKEN(kernel(block({Store::make(kOut, Cast::make(T(DType::I32), index0()), 0, f32(1))})),
                "array index must be i64");
  EXPECT_BROKEN(kernel(block({Store::make(kGrid, index0(), 1, f32(1))})), "1 subscripts for an array of rank 2");
  EXPECT_BROKEN(kernel(block({Let::make(0, Load::make(T(DType::F64), kIn, index0(), 0))}), {T(DType::F64)}),
                "load's dtype differs");
  EXPECT_BROKEN(kernel(block({Atomic::make(AtomicOp::Add, kInts, index0(), 0, f32(1), {}, 0)}), {T(DType::I32)}),
                "the array holds i32");
  EXPECT_BROKEN(kernel(block({Atomic::make(AtomicOp::Cas, kInts, index0(), 0, i32(1), f32(0), 0)}), {T(DType::I32)}),
                "compares with a value of another dtype");
  EXPECT_BROKEN(kernel(block({Atomic::make(AtomicOp::Or, kOut, index0(), 0, f32(1), {}, 0)}), {T(DType::F32)}),
                "bitwise atomic needs an integer array");
}

TEST(Verify, RejectsBadParametersReads) {
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, ScalarParam::make(T(DType::F32), 6))})),
                "another dtype than its own");
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, ScalarParam::make(T(DType::F32), 0))})),
                "%0 is a Array, not a Scalar");
  Expr extent = Cast::make(T(DType::F32), ArrayDim::make(0, 1));
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, extent)})), "beyond the array's rank");
  Expr u = f32(0.5f);
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, TexSample::make(T(DType::F32), 1, u, u, u))})),
                "%1 is a Array, not a Texture3D");
  EXPECT_BROKEN(kernel(block({Store::make(kOut, index0(), 0, TexSample::make(T(DType::F32), 5, u, f64(0.5), u))})),
                "texture coordinates must be f32");
  EXPECT_BROKEN(kernel(block({Store::make(kOut, LoopIndex::make(1), 0, f32(0))})), "beyond the launch dims");
}

TEST(Verify, RejectsBreakAndContinueOutsideLoops) {
  EXPECT_BROKEN(kernel(block({Break::make()})), "outside a For or Loop");
  EXPECT_BROKEN(kernel(block({If::make(tru(), block({Continue::make()}), Stmt())})), "outside a For or Loop");
  EXPECT_EQ(
      why(kernel(block({For::make(0, i64(0), i64(3), block({If::make(tru(), block({Continue::make()}), Stmt())}))}),
                 {T(DType::I64)})),
      "");
}

TEST(Verify, RejectsWorkgroupFeaturesInParallelKernels) {
  EXPECT_BROKEN(kernel(block({Barrier::make()})), "barrier outside a workgroup kernel");
  EXPECT_BROKEN(kernel(block({GroupReduce::make(ReduceOp::Max, a_f32(), 0)}), {T(DType::F32)}),
                "group reduction outside a workgroup kernel");
  EXPECT_BROKEN(kernel(block({Store::make(kOut, GroupValue::make(GroupField::LocalId), 0, f32(0))})),
                "workgroup value outside a workgroup kernel");
  Kernel shared = kernel(block({Store::make(ArrayRef{ArrayRef::Space::Shared, 0}, index0(), 0, f32(0))}));
  shared.shared = {SharedArray{DType::F32, 4}};
  EXPECT_BROKEN(shared, "shared array outside a workgroup kernel");
}

TEST(Verify, RejectsNonI64DimsBoundsAndNonBoolConditions) {
  Kernel dims = kernel(block({}));
  dims.dims = {n_i32()};
  EXPECT_BROKEN(dims, "launch dim must be i64");
  Kernel index_dim = kernel(block({}));
  index_dim.dims = {index0()};
  EXPECT_BROKEN(index_dim, "cannot depend on the loop index");
  EXPECT_BROKEN(kernel(block({For::make(0, i64(0), Cast::make(T(DType::I32), i64(3)), block({}))}), {T(DType::I64)}),
                "For bound must be i64");
  EXPECT_BROKEN(kernel(block({If::make(n_i32(), block({}), Stmt())})), "If condition must be bool");
}

TEST(Verify, WalksSharedSubtreesOnce) {
  // 2^60 paths through 60 nodes: a walk that does not remember checked nodes never ends.
  Expr e = a_f32();
  for (int i = 0; i < 60; ++i) e = op(OpCode::Add, e, e);
  EXPECT_EQ(why(kernel(block({Store::make(kOut, index0(), 0, e)}))), "");
}

TEST(VerifyDeathTest, AbortsPrintingTheOffendingNode) {
  Kernel k = kernel(block({Store::make(kOut, index0(), 0, op(OpCode::Add, load_in(), f32(1)))}));
  EXPECT_DEATH(verify(k), "internal error.*whole value of a Let(.|\n)*load.f32 %1\\[index0\\]");
}

}  // namespace
}  // namespace tack::ir
