// Typing rules, conversions at a store: a value stored to an array converts
// to the array's dtype as cast() does (storing 3.7 to an i32 array gives 3,
// storing a computed i32 300 to a u8 array gives 44). Integer to integer
// conversions are modulo 2^bits (sign-extending from signed types), for every
// pair of integer dtypes, through cast<T>() and through a store.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(TypingStoreConversion);

TEST_P(TypingStoreConversion, FloatStoredToIntTruncates) {
  auto k = tack::kernel("store_f64_to_int",
                        [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i]; }); });
  auto lit =
      tack::kernel("store_literal_3_7", [](Array out) { parallel_for(out.size(), [&](Index i) { out[i] = 3.7; }); });
  if (!has_dtype<double>()) return;
  std::vector<double> a = {3.7, -3.7, 0.5, 2147483647.5};
  expect_exact(
      "i32_array[i] = f64 value", [&](const tack::Device& d) { return run_unary<std::int32_t>(k, d, a); },
      std::vector<std::int32_t>{3, -3, 0, 2147483647}, rows_of(a));
  expect_exact(
      "i32_array[i] = 3.7 (a literal)",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, 2);
        lit(out);
        return out.to_host<std::int32_t>();
      },
      std::vector<std::int32_t>{3, 3});
}

TEST_P(TypingStoreConversion, ComputedIntStoredToNarrowerWraps) {
  auto k = tack::kernel("store_sum_narrow",
                        [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] + a[i]; }); });
  if (!has_dtype<std::uint8_t>()) return;
  std::vector<std::int32_t> a = {150, 128, -1, 100};
  // 300 -> 44, 256 -> 0, -2 -> 254, 200 -> 200.
  expect_exact(
      "u8_array[i] = i32 a + a", [&](const tack::Device& d) { return run_unary<std::uint8_t>(k, d, a); },
      std::vector<std::uint8_t>{44, 0, 254, 200}, rows_of(a));
  if (has_dtype<std::int8_t>() && has_dtype<std::int64_t>()) {
    std::vector<std::int64_t> b = {0x1234567890LL / 2, -129, 64};
    expect_exact(
        "i8_array[i] = i64 a + a", [&](const tack::Device& d) { return run_unary<std::int8_t>(k, d, b); },
        std::vector<std::int8_t>{-112, -2, -128}, rows_of(b));
  }
}

template <class From>
std::vector<From> samples() {
  return {From(0),
          From(1),
          static_cast<From>(-1),
          lowest<From>(),
          highest<From>(),
          static_cast<From>(0x80),
          static_cast<From>(0x7FFF),
          static_cast<From>(0x89ABCDEF),
          static_cast<From>(0x123456789ABCDEF0ull),
          static_cast<From>(-300)};
}

TEST_P(TypingStoreConversion, EveryIntegerPairConvertsModulo) {
  auto store = tack::kernel("store_int_to_int",
                            [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i]; }); });
  for_each_type(IntTypes{}, [&]<class To>() {
    auto explicit_cast = tack::kernel("cast_int_to_int", [](Array out, Array a) {
      parallel_for(out.size(), [&](Index i) { out[i] = cast<To>(a[i]) + 0; });
    });
    for_each_type(IntTypes{}, [&]<class From>() {
      SCOPED_TRACE(type_name<From>() + " -> " + type_name<To>());
      if (!has_dtype<From>() || !has_dtype<To>()) return;
      std::vector<From> a = samples<From>();
      std::vector<To> want;
      for (From x : a) want.push_back(static_cast<To>(x));  // C++20: modulo 2^bits
      expect_exact(
          "store", [&](const tack::Device& d) { return run_unary<To>(store, d, a); }, want, rows_of(a));
      expect_exact(
          "cast<To>(a) + 0", [&](const tack::Device& d) { return run_unary<To>(explicit_cast, d, a); }, want,
          rows_of(a));
    });
  });
}

// A few written out: -1 -> u64 MAX, 0x1234567890 -> i8 -112, u64 MAX -> i32 -1, 65535 -> i16 -1.
TEST_P(TypingStoreConversion, KnownIntegerConversions) {
  auto store = tack::kernel("store_int_to_int",
                            [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i]; }); });
  auto one = [&]<class To, class From>(From x, To want, const char* what) {
    if (!has_dtype<From>() || !has_dtype<To>()) return;
    expect_exact(
        what, [&](const tack::Device& d) { return run_unary<To>(store, d, std::vector<From>{x}); },
        std::vector<To>{want});
  };
  one.operator()<std::uint64_t>(std::int8_t{-1}, std::uint64_t{18446744073709551615ULL}, "i8 -1 -> u64");
  one.operator()<std::int8_t>(std::int64_t{0x1234567890LL}, std::int8_t{-112}, "i64 0x1234567890 -> i8");
  one.operator()<std::int32_t>(std::uint64_t{18446744073709551615ULL}, std::int32_t{-1}, "u64 MAX -> i32");
  one.operator()<std::int16_t>(std::uint16_t{65535}, std::int16_t{-1}, "u16 65535 -> i16");
  one.operator()<std::uint32_t>(std::int16_t{-32768}, std::uint32_t{4294934528u}, "i16 MIN -> u32");
  one.operator()<std::int64_t>(std::uint32_t{4294967295u}, std::int64_t{4294967295LL}, "u32 MAX -> i64 (no sign)");
}

}  // namespace
