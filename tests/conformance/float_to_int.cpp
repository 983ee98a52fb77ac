// DESIGN §4, float -> int: truncate toward zero, saturate at the type's range
// (1e30 -> MAX, -1e30 -> MIN, -1.0 -> 0 for unsigned, +-inf saturate), NaN
// gives 0; for every integer dtype, from f32 and from f64, through cast<T>()
// and through a store to an integer array (which converts as cast does).
#include "conformance/backend_param.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(FloatToInt);

// The contract on the host: truncate, then clamp to [MIN, MAX]; NaN is 0.
template <class I, class F>
I saturating(F x) {
  if (std::isnan(x)) return 0;
  const long double t = std::trunc(static_cast<long double>(x));
  if (t <= static_cast<long double>(lowest<I>())) return lowest<I>();
  if (t >= static_cast<long double>(highest<I>())) return highest<I>();
  return static_cast<I>(t);
}

// Values on both sides of I's bounds that F can represent: MAX, MAX + 1 and
// the neighbours of each in F, and likewise at MIN.
template <class I, class F>
std::vector<F> boundary_values() {
  std::vector<F> v;
  for (long double edge : {static_cast<long double>(highest<I>()), static_cast<long double>(highest<I>()) + 1,
                           static_cast<long double>(lowest<I>()), static_cast<long double>(lowest<I>()) - 1}) {
    F e = static_cast<F>(edge);
    v.push_back(e);
    v.push_back(std::nextafter(e, std::numeric_limits<F>::infinity()));
    v.push_back(std::nextafter(e, -std::numeric_limits<F>::infinity()));
  }
  v.push_back(static_cast<F>(static_cast<long double>(highest<I>()) + 0.5L));
  v.push_back(static_cast<F>(static_cast<long double>(lowest<I>()) - 0.5L));
  return v;
}

template <class I, class F>
void check_rows(std::vector<F>& a, std::vector<I>& want) {
  using L = std::numeric_limits<F>;
  constexpr bool s = std::is_signed_v<I>;
  const I mn = lowest<I>(), mx = highest<I>();
  // clang-format off
  a = {F(0), F(-0.0), F(0.99), F(-0.99), F(3.7), F(-3.7), F(1e30), F(-1e30), L::infinity(), -L::infinity(),
       L::quiet_NaN(), F(-1), F(100.5), F(-100.5), F(127.9), L::denorm_min(), -L::denorm_min(), L::max(), -L::max()};
  want = {0, 0, 0, 0, 3, s ? I(-3) : I(0), mx, mn, mx, mn,
          0, s ? static_cast<I>(-1) : I(0), 100, s ? I(-100) : I(0), 127, 0, 0, mx, mn};
  // clang-format on
}

TEST_P(FloatToInt, RowsWrittenOut) {
  auto store = tack::kernel("store_float_to_int",
                            [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i]; }); });
  for_each_type(FloatTypes{}, [&]<class F>() {
    for_each_type(IntTypes{}, [&]<class I>() {
      SCOPED_TRACE(type_name<F>() + " -> " + type_name<I>());
      if (!has_dtype<F>() || !has_dtype<I>()) return;
      std::vector<F> a;
      std::vector<I> want;
      check_rows<I, F>(a, want);
      for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(want[i], (saturating<I, F>(a[i]))) << "the host reference disagrees at row " << i;
      auto explicit_cast = tack::kernel("cast_float_to_int", [](Array out, Array a) {
        parallel_for(out.size(), [&](Index i) { out[i] = cast<I>(a[i]); });
      });
      expect_exact(
          "out = cast<I>(a)", [&](const tack::Device& d) { return run_unary<I>(explicit_cast, d, a); }, want,
          rows_of(a));
      expect_exact(
          "int_array[i] = float_value", [&](const tack::Device& d) { return run_unary<I>(store, d, a); }, want,
          rows_of(a));
    });
  });
}

TEST_P(FloatToInt, AtTheBoundsOfEachType) {
  auto store = tack::kernel("store_float_to_int",
                            [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i]; }); });
  for_each_type(FloatTypes{}, [&]<class F>() {
    for_each_type(IntTypes{}, [&]<class I>() {
      SCOPED_TRACE(type_name<F>() + " -> " + type_name<I>());
      if (!has_dtype<F>() || !has_dtype<I>()) return;
      std::vector<F> a = boundary_values<I, F>();
      std::vector<I> want;
      for (F x : a) want.push_back(saturating<I, F>(x));
      expect_exact(
          "int_array[i] = float_value near the bounds",
          [&](const tack::Device& d) { return run_unary<I>(store, d, a); }, want, rows_of(a));
    });
  });
}

// A few bounds written out, so the host reference itself is checked.
TEST_P(FloatToInt, KnownBoundRows) {
  auto store = tack::kernel("store_float_to_int",
                            [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i]; }); });
  auto run = [&](auto out_type, const auto& a) {
    using I = decltype(out_type);
    return [&, a](const tack::Device& d) { return run_unary<I>(store, d, a); };
  };
  if (has_dtype<float>()) {
    std::vector<float> a = {2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 4294967040.0f, 4294967296.0f,
                            127.99f,       128.0f,        -128.5f,        -129.0f,        255.9f,        256.0f};
    expect_exact("f32 -> i32", run(std::int32_t{}, a),
                 std::vector<std::int32_t>{2147483520, 2147483647, -2147483647 - 1, -2147483647 - 1, 2147483647,
                                           2147483647, 127, 128, -128, -129, 255, 256},
                 rows_of(a));
    expect_exact(
        "f32 -> u32", run(std::uint32_t{}, a),
        std::vector<std::uint32_t>{2147483520u, 2147483648u, 0, 0, 4294967040u, 4294967295u, 127, 128, 0, 0, 255, 256},
        rows_of(a));
    expect_exact("f32 -> i8", run(std::int8_t{}, a),
                 std::vector<std::int8_t>{127, 127, -128, -128, 127, 127, 127, 127, -128, -128, 127, 127}, rows_of(a));
    expect_exact("f32 -> u8", run(std::uint8_t{}, a),
                 std::vector<std::uint8_t>{255, 255, 0, 0, 255, 255, 127, 128, 0, 0, 255, 255}, rows_of(a));
  }
  if (has_dtype<double>()) {
    const double two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
    std::vector<double> a = {
        9223372036854774784.0, two63,         -two63, -9223372036854777856.0, 18446744073709549568.0, two64,
        2147483647.9,          -2147483648.9, -0.5};
    expect_exact("f64 -> i64", run(std::int64_t{}, a),
                 std::vector<std::int64_t>{9223372036854774784LL, 9223372036854775807LL, -9223372036854775807LL - 1,
                                           -9223372036854775807LL - 1, 9223372036854775807LL, 9223372036854775807LL,
                                           2147483647, -2147483648LL, 0},
                 rows_of(a));
    expect_exact("f64 -> u64", run(std::uint64_t{}, a),
                 std::vector<std::uint64_t>{9223372036854774784ULL, 9223372036854775808ULL, 0, 0,
                                            18446744073709549568ULL, 18446744073709551615ULL, 2147483647, 0, 0},
                 rows_of(a));
    expect_exact("f64 -> i32", run(std::int32_t{}, a),
                 std::vector<std::int32_t>{2147483647, 2147483647, -2147483647 - 1, -2147483647 - 1, 2147483647,
                                           2147483647, 2147483647, -2147483647 - 1, 0},
                 rows_of(a));
  }
}

}  // namespace
