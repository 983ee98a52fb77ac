// DCE removes exactly what cannot be observed, and keeps ids and unchanged nodes.
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "passes/dce.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tack::passes {
namespace {

using namespace tack::ir;

Type T(DType d) { return Type::strong(d); }
Expr i64(std::int64_t v) { return Const::make_int(T(DType::I64), v); }
Expr i32(std::int32_t v) { return Const::make_int(T(DType::I32), v); }
Expr f32(float v) { return Const::make_float(T(DType::F32), v); }
Expr index0() { return LoopIndex::make(0); }

Expr op(OpCode o, Expr a, Expr b = {}, Expr c = {}) {
  OpCategory cat = op_category(o);
  Type t = cat == OpCategory::Compare || cat == OpCategory::Classify ? T(DType::Bool) : a->type;
  return Op::make(t, o, std::move(a), std::move(b), std::move(c));
}

constexpr ArrayRef kOut{ArrayRef::Space::Param, 0};   // f32[n]
constexpr ArrayRef kIn{ArrayRef::Space::Param, 1};    // f32[n]
constexpr ArrayRef kInts{ArrayRef::Space::Param, 3};  // i32[n]
Expr a() { return ScalarParam::make(T(DType::F32), 2); }
Expr t(int id, DType d = DType::F32) { return LetRef::make(T(d), id); }
Expr v(int id, DType d = DType::F32) { return VarRef::make(T(d), id); }
Expr load_in() { return Load::make(T(DType::F32), kIn, index0(), 0); }
Expr cond() { return op(OpCode::Gt, a(), f32(0)); }
Stmt store(Expr value) { return Store::make(kOut, index0(), 0, std::move(value)); }
Stmt block(std::vector<Stmt> s) { return Block::make(std::move(s)); }

Kernel kernel(Stmt body, std::vector<Type> lets = {}, std::vector<Type> vars = {},
              LaunchKind launch = LaunchKind::Parallel) {
  Kernel k;
  k.name = "k";
  auto array = [](DType t) { return Param{ParamKind::Array, std::nullopt, t, 1}; };
  k.params = {array(DType::F32), array(DType::F32), Param{ParamKind::Scalar, std::nullopt, DType::F32, -1},
              array(DType::I32)};
  k.launch = launch;
  k.dims = {ArrayDim::make(0, ArrayDim::kSize)};
  k.lets = std::move(lets);
  k.vars = std::move(vars);
  k.body = std::move(body);
  k.typed = true;
  return k;
}

Kernel run(const Kernel& k) {
  std::string why;
  EXPECT_TRUE(verify_ok(k, &why)) << "input: " << why;
  Kernel out = dce(k);
  EXPECT_TRUE(verify_ok(out, &why)) << "output: " << why;
  EXPECT_EQ(out.lets, k.lets);  // ids are never renumbered
  EXPECT_EQ(out.vars, k.vars);
  return out;
}

std::string text(const Kernel& k) { return to_string(run(k).body); }

TEST(Dce, RemovesUnreferencedLetsInOneSweep) {
  // t2 uses t1 uses t0, and nothing uses t2: the whole chain goes. The unused load too.
  Kernel k = kernel(
      block({Let::make(0, a()), Let::make(1, op(OpCode::Mul, t(0), t(0))), Let::make(2, op(OpCode::Add, t(1), f32(1))),
             Let::make(3, load_in()), Let::make(4, load_in()), store(t(4))}),
      std::vector<Type>(5, T(DType::F32)));
  EXPECT_EQ(text(k), "let t4 = load.f32 %1[index0]\nstore %0[index0] = t4\n");
}

TEST(Dce, KeepsEffectsWhateverTheirResults) {
  // Atomics, barriers and group reductions stay even when nothing reads their result.
  ArrayRef shared{ArrayRef::Space::Shared, 0};
  Kernel k = kernel(block({Atomic::make(AtomicOp::Add, kInts, index0(), 0, i32(1), {}, 0),
                           Store::make(shared, GroupValue::make(GroupField::LocalId), 0, a()), Barrier::make(),
                           GroupReduce::make(ReduceOp::Add, a(), 1)}),
                    {T(DType::I32), T(DType::F32)}, {}, LaunchKind::Workgroup);
  k.shared = {SharedArray{DType::F32, 32}};
  Kernel out = run(k);
  EXPECT_TRUE(out.body.same_as(k.body));
}

TEST(Dce, RemovesVarsNeverRead) {
  // v0 is only assigned; v1 only feeds itself; v2 is read by the store; v3 is read only
  // by v0's assignments, so it dies one sweep after v0.
  Stmt loop_body = block({Assign::make(0, op(OpCode::Add, v(0), v(3))), Assign::make(1, op(OpCode::Mul, v(1), a())),
                          Assign::make(2, op(OpCode::Add, v(2), f32(1))), Assign::make(3, a()),
                          If::make(op(OpCode::Gt, v(2), f32(9)), block({Break::make()}), Stmt())});
  Kernel k = kernel(block({DeclareVar::make(0, f32(0)), DeclareVar::make(1, f32(1)), DeclareVar::make(2, f32(0)),
                           DeclareVar::make(3, f32(0)), Loop::make(loop_body), store(v(2))}),
                    {}, std::vector<Type>(4, T(DType::F32)));
  EXPECT_EQ(text(k),
            "var v2 = f32(0)\n"
            "loop {\n"
            "  v2 = add.f32(v2, f32(1))\n"
            "  if gt.bool(v2, f32(9)) {\n"
            "    break\n"
            "  }\n"
            "}\n"
            "store %0[index0] = v2\n");
}

TEST(Dce, LetsReadOnlyByDeadVarsDieToo) {
  Kernel k =
      kernel(block({Let::make(0, load_in()), DeclareVar::make(0, t(0)), Assign::make(0, op(OpCode::Add, v(0), t(0)))}),
             {T(DType::F32)}, {T(DType::F32)});
  EXPECT_EQ(text(k), "");
}

TEST(Dce, RemovesIfsAndForsWithNothingToDo) {
  Kernel k = kernel(block({If::make(cond(), block({Let::make(0, a())}), block({})),
                           For::make(1, i64(0), i64(10), block({Let::make(2, a())})),
                           If::make(cond(), block({}), Stmt()), store(a())}),
                    {T(DType::F32), T(DType::I64), T(DType::F32)});
  EXPECT_EQ(text(k), "store %0[index0] = %2\n");
}

TEST(Dce, AnEmptyThenBranchBecomesANegatedCondition) {
  Stmt s = store(a());
  Kernel k = kernel(block({If::make(cond(), block({}), block({s}))}));
  EXPECT_EQ(text(k), "if not.bool(gt.bool(%2, f32(0))) {\n  store %0[index0] = %2\n}\n");
  // !c with an empty branch gives back c itself.
  Expr c = cond();
  Kernel negated =
      kernel(block({If::make(op(OpCode::Not, c), block({Let::make(0, a())}), block({s}))}), {T(DType::F32)});
  Kernel out = run(negated);
  EXPECT_TRUE(out.body.as<Block>()->stmts[0].as<If>()->cond.same_as(c));
  // An empty else branch is dropped.
  Kernel else_empty = kernel(block({If::make(cond(), block({s}), block({Let::make(0, a())}))}), {T(DType::F32)});
  EXPECT_EQ(text(else_empty), "if gt.bool(%2, f32(0)) {\n  store %0[index0] = %2\n}\n");
}

TEST(Dce, KeepsLoopsEvenWhenEmpty) {
  // A Loop with nothing in it never ends; removing it would turn a hang into a return.
  Kernel empty = kernel(block({Loop::make(block({}))}));
  EXPECT_TRUE(run(empty).body.same_as(empty.body));
  Kernel dead_body = kernel(block({Loop::make(block({Let::make(0, a())}))}), {T(DType::F32)});
  EXPECT_EQ(text(dead_body), "loop {\n}\n");
}

TEST(Dce, RemovesStatementsAfterBreakOrContinue) {
  Stmt body = block({Let::make(1, load_in()), If::make(cond(), block({Break::make(), store(f32(1))}), Stmt()),
                     store(t(1)), Continue::make(), store(f32(2)), Let::make(2, a())});
  Kernel k = kernel(block({For::make(0, i64(0), i64(4), body)}), {T(DType::I64), T(DType::F32), T(DType::F32)});
  EXPECT_EQ(text(k),
            "for t0 in [i64(0), i64(4)) {\n"
            "  let t1 = load.f32 %1[index0]\n"
            "  if gt.bool(%2, f32(0)) {\n"
            "    break\n"
            "  }\n"
            "  store %0[index0] = t1\n"
            "  continue\n"
            "}\n");
}

TEST(Dce, SplicesNestedBlocks) {
  Kernel k = kernel(block({block({store(f32(1)), block({store(f32(2))})}), block({}), store(f32(3))}));
  EXPECT_EQ(text(k), "store %0[index0] = f32(1)\nstore %0[index0] = f32(2)\nstore %0[index0] = f32(3)\n");
}

TEST(Dce, KeepsWhatIsUsedInsideLoopsAndBranches) {
  // t1 is defined in the loop body and used later in the same body; the For index and
  // the Lets a condition or a bound reads are kept.
  Stmt body = block({Let::make(1, Cast::make(T(DType::F32), t(0, DType::I64))),
                     If::make(op(OpCode::Gt, t(1), t(2)), block({store(t(1))}), Stmt())});
  Kernel k = kernel(block({Let::make(2, a()), Let::make(3, i64(8)), For::make(0, i64(0), t(3, DType::I64), body)}),
                    {T(DType::I64), T(DType::F32), T(DType::F32), T(DType::I64)});
  Kernel out = run(k);
  EXPECT_TRUE(out.body.same_as(k.body));
}

TEST(Dce, UnchangedIrIsTheSameNode) {
  Kernel k =
      kernel(block({Let::make(0, load_in()), DeclareVar::make(0, t(0)),
                    If::make(cond(), block({Assign::make(0, op(OpCode::Mul, v(0), a()))}), block({store(f32(0))})),
                    store(v(0))}),
             {T(DType::F32)}, {T(DType::F32)});
  EXPECT_TRUE(run(k).body.same_as(k.body));
}

TEST(Dce, AnEmptiedKernelHasAnEmptyBody) {
  Kernel k = kernel(block({Let::make(0, a())}), {T(DType::F32)});
  Kernel out = run(k);
  ASSERT_TRUE(out.body);
  EXPECT_EQ(to_string(out), to_string(kernel(block({}), {T(DType::F32)})));
}

}  // namespace
}  // namespace tack::passes
