// Type errors found when a kernel is specialized for a call: each names the
// kernel, the line and the fix.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <cstdint>

using namespace tack::lang;

namespace {

TEST(Typing, VarAssignedUnsignedAndSigned64) {
  auto k = tack::kernel("var_mix", [](Array out, Array u, Array s) {
    parallel_for(out.size(), [&](Index i) {
      Var v = u[i];
      v = s[i];
      out[i] = v;
    });
  });
  auto dev = tack::device("interp");
  auto u = dev.zeros(tack::DType::U64, {2});
  auto s = dev.zeros(tack::DType::I32, {2});
  EXPECT_TACK_ERROR(k(u, u, s), tack::TypeError, "kernel 'var_mix'", "a Var of type u64 is assigned i32", "cast");
}

TEST(Typing, AtomicsOnBoolArrays) {
  auto k = tack::kernel("bool_atomic",
                        [](Array flags) { parallel_for(flags.size(), [&](Index i) { atomic_or(flags, i, true); }); });
  auto flags = tack::device("interp").zeros(tack::DType::Bool, {2});
  EXPECT_TACK_ERROR(k(flags), tack::TypeError, "kernel 'bool_atomic'", "atomic_or on a bool array",
                    "use a u8 or i32 array for flags");
}

TEST(Typing, NonBoolCondition) {
  auto k = tack::kernel(
      "cond", [](Array out) { parallel_for(out.size(), [&](Index i) { if_(out[i], [&] { out[i] = 0; }); }); });
  auto out = tack::device("interp").zeros(tack::DType::F32, {2});
  EXPECT_TACK_ERROR(k(out), tack::TypeError, "the condition of if_ or while_ must be a bool", "got f32");
}

TEST(Typing, NonBoolWhileCondition) {
  auto k = tack::kernel("wcond", [](Array out) {
    parallel_for(out.size(), [&](Index i) { while_([&] { return out[i]; }, [&] { out[i] = 0; }); });
  });
  auto out = tack::device("interp").zeros(tack::DType::F32, {2});
  EXPECT_TACK_ERROR(k(out), tack::TypeError, "the condition of if_ or while_ must be a bool");
}

TEST(Typing, LiteralThatDoesNotFit) {
  auto k = tack::kernel("fit", [](Array out) { parallel_for(out.size(), [&](Index i) { out[i] = out[i] + 300; }); });
  auto out = tack::device("interp").zeros(tack::DType::U8, {2});
  EXPECT_TACK_ERROR(k(out), tack::TypeError, "the literal 300 does not fit u8");
}

TEST(Typing, FloatGroupCount) {
  auto k = tack::kernel("groups", [](Array out, Scalar n) { workgroup_for(n, [&](Group g) { out[0] = 1; }); });
  auto out = tack::device("interp").zeros(tack::DType::F32, {2});
  EXPECT_TACK_ERROR(k(out, 1.5f), tack::TypeError, "the number of groups of workgroup_for must be an integer");
}

TEST(Typing, BitwiseAtomicOnFloats) {
  auto k = tack::kernel("fatomic", [](Array out) { parallel_for(out.size(), [&](Index i) { atomic_or(out, 0, 1); }); });
  auto out = tack::device("interp").zeros(tack::DType::F32, {2});
  EXPECT_TACK_ERROR(k(out), tack::TypeError, "atomic_or needs an integer array, got f32");
}

}  // namespace
