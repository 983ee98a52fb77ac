// Typing rules, Var inference: a Var's dtype is the promotion of everything
// assigned to it, weak literals adapting (`Var acc = 0.0; acc += a[j] * b[j];`
// accumulates in f32 for f32 arrays and in f64 for f64 arrays); a Var given
// only literals takes the literal's C++ type (`Var x = 0;` is i32, `Var y =
// 0.0;` is f64); an assignment converts to the Var's dtype as cast does.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(TypingVarInference);

// 1e8 + 1 is 1e8 in f32: the f32 accumulation of {1e8, 1, -1e8, 1} gives 1,
// the f64 one gives 2.
TEST_P(TypingVarInference, AccumulatorTakesTheArraysFloatType) {
  auto dot = tack::kernel("dot_var_acc", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index) {
      Var acc = 0.0;
      for_range(0, a.size(), [&](Index j) { acc += a[j] * b[j]; });
      out[0] = acc;
    });
  });
  auto run = [&]<class T>(double want) {
    if (!has_dtype<T>() || !has_dtype<double>()) return;
    std::vector<T> a = {T(1e8), T(1), T(-1e8), T(1)}, b = {T(1), T(1), T(1), T(1)};
    expect_exact(
        "Var acc = 0.0; acc += a[j] * b[j] over " + type_name<T>() + " arrays",
        [&](const tack::Device& d) {
          tack::Array out = zeros<double>(d, 1);
          dot(out, d.from_host(a), d.from_host(b));
          return out.to_host<double>();
        },
        std::vector<double>{want});
  };
  run.operator()<float>(1.0);
  run.operator()<double>(2.0);
}

// Var x = 1 is i32: doubled 31 times it wraps to INT_MIN, 32 times to 0.
// Var y = 0.0 is f64 and Var z = 0.0f is f32: y + 1e-10 keeps the 1e-10.
TEST_P(TypingVarInference, LiteralOnlyVarsTakeTheCppType) {
  auto k = tack::kernel("literal_vars", [](Array ints, Array floats) {
    parallel_for(ints.size() / 2, [&](Index) {
      Var x = 1;
      for_range(0, 31, [&](Index) { x = x * 2; });
      ints[0] = x;
      x = x * 2;
      ints[1] = x;
      Var y = 0.0;
      y += 1;
      y += 1e-10;
      floats[0] = y;
      Var z = 0.0f;
      z += 1.0f;
      z += 1e-10f;
      floats[1] = z;
      Var w = 16777216;  // i32 and f64 literals: f64
      w += 1.5;
      floats[2] = w;
    });
  });
  if (!has_dtype<double>()) return;
  auto run = [&](const tack::Device& d) {
    tack::Array ints = zeros<std::int64_t>(d, 2), floats = zeros<double>(d, 3);
    k(ints, floats);
    std::vector<double> r = floats.to_host<double>();
    for (std::int64_t v : ints.to_host<std::int64_t>()) r.push_back(static_cast<double>(v));
    return r;
  };
  expect_exact(
      "Var y = 0.0 (f64), Var z = 0.0f (f32), Var w = 16777216 then += 1.5 (f64), Var x = 1 doubled 31 "
      "and 32 times (i32)",
      run, std::vector<double>{1.0 + 1e-10, 1.0, 16777217.5, -2147483648.0, 0.0});
}

// A Var initialized by a literal takes the type of the arrays assigned to it.
TEST_P(TypingVarInference, ArrayAssignmentsDecideTheType) {
  auto k = tack::kernel("var_from_array", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      Var v = 0;
      v = a[i];
      v += 1;  // the literal adapts: wraps in the array's type
      out[i] = v;
    });
  });
  auto run = [&]<class A, class O>(std::vector<A> a, std::vector<O> want, const char* what) {
    if (!has_dtype<A>() || !has_dtype<O>()) return;
    expect_exact(
        what, [&](const tack::Device& d) { return run_unary<O>(k, d, a); }, want, rows_of(a));
  };
  run.operator()<std::uint8_t, std::int32_t>({255, 7}, {0, 8}, "Var v = 0; v = u8; v += 1 (u8: wraps)");
  run.operator()<std::int64_t, std::int64_t>({5000000000LL}, {5000000001LL}, "Var v = 0; v = i64; v += 1 (i64)");
  run.operator()<float, double>({16777216.0f}, {16777216.0}, "Var v = 0; v = f32; v += 1 (f32: rounds)");
  run.operator()<double, double>({16777216.0}, {16777217.0}, "Var v = 0; v = f64; v += 1 (f64)");
}

// Mixed strong types promote: an i8 Var that is also given a u8 becomes i16;
// an i32 Var that meets a float literal becomes f32, and its initial value is converted.
TEST_P(TypingVarInference, PromotionOfEverythingAssigned) {
  auto mixed = tack::kernel("var_i8_u8", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) {
      Var v = a[i];
      v += b[i];
      out[i] = v;
    });
  });
  auto later_float = tack::kernel("var_int_then_float", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) {
      Var v = a[i];
      v = v + 0.5;
      out[i] = v;
    });
  });
  if (has_dtype<std::int8_t>() && has_dtype<std::uint8_t>()) {
    std::vector<std::int8_t> a = {100, -128};
    std::vector<std::uint8_t> b = {200, 255};
    expect_exact(
        "Var v = i8; v += u8 (i16)", [&](const tack::Device& d) { return run_binary<std::int32_t>(mixed, d, a, b); },
        std::vector<std::int32_t>{300, 127}, rows_of(a, b));
  }
  if (has_dtype<double>()) {
    // f32: 16777217 becomes 16777216, + 0.5 rounds back to 16777216 (f64 would give 16777217.5).
    std::vector<std::int32_t> a = {16777217, 3};
    expect_exact(
        "Var v = i32; v = v + 0.5 (f32)", [&](const tack::Device& d) { return run_unary<double>(later_float, d, a); },
        std::vector<double>{16777216.0, 3.5}, rows_of(a));
  }
}

// An assignment converts to the Var's dtype as cast does: an i64 assigned to
// an f64 Var rounds to nearest even; an i32 assigned to an f32 Var too; a
// cast<u8>() Var wraps at 256.
TEST_P(TypingVarInference, AssignmentConvertsAsCastDoes) {
  auto k = tack::kernel("var_assign_converts", [](Array out, Array f, Array n) {
    parallel_for(out.size(), [&](Index i) {
      Var v = f[i];
      v = n[i];
      out[i] = v;
    });
  });
  auto count = tack::kernel("var_u8_counter", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      Var c = cast<std::uint8_t>(0);
      for_range(0, 300, [&](Index) { c += 1; });
      out[i] = c;
    });
  });
  if (has_dtype<double>()) {
    std::vector<double> f = {0.5};
    std::vector<std::int64_t> n = {9007199254740993LL};
    expect_exact(
        "Var v = f64; v = i64 2^53 + 1; stored to i64",
        [&](const tack::Device& d) { return run_binary<std::int64_t>(k, d, f, n); },
        std::vector<std::int64_t>{9007199254740992LL});
  }
  {
    std::vector<float> f = {0.5f};
    std::vector<std::int32_t> n = {16777217};
    expect_exact(
        "Var v = f32; v = i32 16777217; stored to i32",
        [&](const tack::Device& d) { return run_binary<std::int32_t>(k, d, f, n); },
        std::vector<std::int32_t>{16777216});
  }
  expect_exact(
      "Var c = cast<u8>(0); 300 times c += 1",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, 2);
        count(out);
        return out.to_host<std::int32_t>();
      },
      std::vector<std::int32_t>{44, 44});
}

// Assignments inside control flow count too: the Var's type is the same on every path.
TEST_P(TypingVarInference, AssignmentsInsideControlFlowCount) {
  auto k = tack::kernel("var_branches", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) {
      Var v = 0;
      if_(
          a[i] > 0, [&] { v = a[i]; }, [&] { v = b[i]; });
      out[i] = v / 2;
    });
  });
  if (!has_dtype<double>()) return;
  // a is i32, b is f64: v is f64 on both paths, so v / 2 is a float division.
  std::vector<std::int32_t> a = {7, -1};
  std::vector<double> b = {0.0, 5.0};
  expect_exact(
      "Var v = 0; if_(a > 0, v = i32, v = f64); out = v / 2",
      [&](const tack::Device& d) { return run_binary<double>(k, d, a, b); }, std::vector<double>{3.5, 2.5},
      rows_of(a, b));
}

}  // namespace
