// DESIGN §4, int -> float and f64 -> f32: round to nearest even, rounded once
// (16777217 -> f32 16777216, 2^53 + 1 -> f64 2^53, u64 MAX -> 2^64), through
// cast<T>() and through a store to a float array.
#include "conformance/backend_param.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(IntToFloat);

tack::Kernel store_kernel() {
  return tack::kernel("store_convert",
                      [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i]; }); });
}

// Values of I that probe rounding: the extremes, around 2^24 and 2^53, bit patterns.
template <class I>
std::vector<I> int_samples() {
  std::vector<I> v = {I(0),
                      I(1),
                      I(3),
                      highest<I>(),
                      static_cast<I>(highest<I>() - 1),
                      lowest<I>(),
                      static_cast<I>(lowest<I>() + 1),
                      static_cast<I>(-1),
                      static_cast<I>(-100)};
  for (std::uint64_t base :
       {std::uint64_t{1} << 24, std::uint64_t{1} << 25, std::uint64_t{1} << 31, std::uint64_t{1} << 53,
        std::uint64_t{1} << 54, std::uint64_t{1} << 62, std::uint64_t{1} << 63})
    for (std::uint64_t off : {1, 2, 3, 5, 1025})
      if (base + off <= static_cast<std::uint64_t>(highest<I>())) {
        v.push_back(static_cast<I>(base + off));
        if constexpr (std::is_signed_v<I>) v.push_back(static_cast<I>(-static_cast<I>(base + off)));
      }
  v.push_back(static_cast<I>(0x5555555555555555ull));
  v.push_back(static_cast<I>(0xFEDCBA9876543210ull));
  return v;
}

// Every integer dtype to f32 and f64, against the host's conversion (x86-64:
// correctly rounded, nearest even), through a store and through cast<F>().
TEST_P(IntToFloat, EveryIntegerTypeMatchesTheHost) {
  auto store = store_kernel();
  for_each_type(FloatTypes{}, [&]<class F>() {
    auto explicit_cast = tack::kernel("cast_to_float", [](Array out, Array a) {
      parallel_for(out.size(), [&](Index i) { out[i] = cast<F>(a[i]); });
    });
    for_each_type(IntTypes{}, [&]<class I>() {
      SCOPED_TRACE(type_name<I>() + " -> " + type_name<F>());
      if (!has_dtype<F>() || !has_dtype<I>()) return;
      std::vector<I> a = int_samples<I>();
      std::vector<F> want;
      for (I x : a) want.push_back(static_cast<F>(x));
      expect_exact(
          "float_array[i] = int_value", [&](const tack::Device& d) { return run_unary<F>(store, d, a); }, want,
          rows_of(a));
      expect_exact(
          "cast<F>(int_value)", [&](const tack::Device& d) { return run_unary<F>(explicit_cast, d, a); }, want,
          rows_of(a));
    });
  });
}

// Rows written out, including ones a conversion through f64 would round twice.
TEST_P(IntToFloat, KnownRows) {
  auto store = store_kernel();
  auto check = [&]<class F, class I>(const char* what, std::vector<I> a, std::vector<F> want) {
    if (!has_dtype<F>() || !has_dtype<I>()) return;
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(static_cast<F>(a[i]), want[i]) << what << ": the host disagrees at row " << i;
    expect_exact(
        what, [&](const tack::Device& d) { return run_unary<F>(store, d, a); }, want, rows_of(a));
  };
  check.operator()<float, std::int32_t>(
      "i32 -> f32", {16777217, 16777219, 16777218, -16777217, 33554434, 33554435, 2147483647, -2147483647 - 1},
      {16777216.0f, 16777220.0f, 16777218.0f, -16777216.0f, 33554432.0f, 33554436.0f, 2147483648.0f, -2147483648.0f});
  check.operator()<float, std::uint32_t>("u32 -> f32", {4294967295u, 4294967167u, 16777217u},
                                         {4294967296.0f, 4294967040.0f, 16777216.0f});
  check.operator()<double, std::int64_t>(
      "i64 -> f64",
      {9007199254740993LL, 9007199254740995LL, -9007199254740993LL, 9223372036854775807LL, -9223372036854775807LL - 1},
      {9007199254740992.0, 9007199254740996.0, -9007199254740992.0, 9223372036854775808.0, -9223372036854775808.0});
  // 2^64 - 1025 is nearer 2^64 - 2048; 2^64 - 1024 is a tie, and 2^64 has the even mantissa.
  check.operator()<double, std::uint64_t>(
      "u64 -> f64", {18446744073709551615ULL, 18446744073709550591ULL, 18446744073709550592ULL, 9223372036854775809ULL},
      {18446744073709551616.0, 18446744073709549568.0, 18446744073709551616.0, 9223372036854775808.0});
  // 2^62 + 2^38 + 1 is just above the midpoint between f32 neighbours 2^62 and
  // 2^62 + 2^39; through f64 it would first become the midpoint, then 2^62.
  check.operator()<float, std::int64_t>("i64 -> f32", {4611686293305294849LL, 16777217LL, -4611686293305294849LL},
                                        {4611686568183201792.0f, 16777216.0f, -4611686568183201792.0f});
  check.operator()<float, std::uint64_t>("u64 -> f32", {18446744073709551615ULL, 9223372586610589697ULL},
                                         {18446744073709551616.0f, 9223373136366403584.0f});
  check.operator()<float, std::int16_t>("i16 -> f32", {-32768, 32767}, {-32768.0f, 32767.0f});
  check.operator()<double, std::uint8_t>("u8 -> f64", {255, 0}, {255.0, 0.0});
}

// f64 -> f32 rounds to nearest even, with denormal results, overflow to inf and signed zeros.
TEST_P(IntToFloat, DoubleToFloatRoundsToNearestEven) {
  auto store = store_kernel();
  auto explicit_cast = tack::kernel("cast_f64_to_f32", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) { out[i] = cast<float>(a[i]); });
  });
  if (!has_dtype<double>()) return;
  const double e24 = std::ldexp(1.0, -24);
  std::vector<double> a = {1.0 + e24,
                           1.0 + 3 * e24,
                           1.0 + e24 + std::ldexp(1.0, -40),
                           1.0 - std::ldexp(1.0, -25),
                           1e39,
                           -1e39,
                           1.5 * std::ldexp(1.0, -149),
                           std::ldexp(1.0, -150),
                           std::ldexp(1.0, -150) + std::ldexp(1.0, -200),
                           1e-50,
                           -1e-50,
                           -0.0,
                           std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(),
                           0.1,
                           16777217.0};
  const float dm = std::numeric_limits<float>::denorm_min();
  std::vector<float> want = {1.0f,
                             1.0f + std::ldexp(1.0f, -22),
                             1.0f + std::ldexp(1.0f, -23),
                             1.0f,  // a tie between 1 - 2^-24 and 1: 1 is even
                             std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity(),
                             2 * dm,
                             0.0f,
                             dm,
                             0.0f,
                             -0.0f,
                             -0.0f,
                             std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN(),
                             0.1f,
                             16777216.0f};
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(same_value(static_cast<float>(a[i]), want[i])) << "the host disagrees at row " << i;
  expect_exact(
      "f32_array[i] = f64_value", [&](const tack::Device& d) { return run_unary<float>(store, d, a); }, want,
      rows_of(a));
  expect_exact(
      "cast<float>(f64_value)", [&](const tack::Device& d) { return run_unary<float>(explicit_cast, d, a); }, want,
      rows_of(a));
  // f32 -> f64 is exact: the round trip keeps every value.
  if (has_dtype<float>()) {
    std::vector<float> b = {0.1f, -3.5f, dm, std::numeric_limits<float>::max(), -0.0f, 16777216.0f};
    std::vector<double> wide;
    for (float x : b) wide.push_back(x);
    expect_exact(
        "f64_array[i] = f32_value", [&](const tack::Device& d) { return run_unary<double>(store, d, b); }, wide,
        rows_of(b));
  }
}

}  // namespace
