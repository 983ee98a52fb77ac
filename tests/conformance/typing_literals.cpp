// Typing rules, literals: C++ literals are weak, they take the other
// operand's type (`0.5f * x` stays f64 when x is f64; `x + 1` stays the
// array's dtype, so u8 255 + 1 wraps to 0; `i + 1` stays i64), except that a
// float literal meeting only integers gives f32. Observed through results that
// would differ under another type, stored to a wider output.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(TypingLiterals);

// An f32 literal meeting an f64 array computes in f64; a double literal meeting an f32 array, in f32.
TEST_P(TypingLiterals, FloatLiteralTakesTheArraysFloatType) {
  auto k = tack::kernel("float_literals", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      out[3 * i] = 0.5f * a[i];
      out[3 * i + 1] = a[i] * 3.0;
      out[3 * i + 2] = a[i] + 1;
    });
  });
  auto run = [&]<class A>(std::vector<A> a, std::vector<double> want, const char* what) {
    if (!has_dtype<A>() || !has_dtype<double>()) return;
    expect_exact(
        what,
        [&](const tack::Device& d) {
          tack::Array out = zeros<double>(d, 3 * static_cast<std::int64_t>(a.size()));
          k(out, d.from_host(a));
          return out.to_host<double>();
        },
        want,
        [](std::size_t i) {
          static const char* e[] = {"0.5f * a", "a * 3.0", "a + 1"};
          return std::string(e[i % 3]) + " at row " + std::to_string(i / 3);
        });
  };
  // f64 array: 0.5f * 0.1 is 0.05 in f64; 0.1 * 3.0 is 0.30000000000000004; 2^53 + 1 rounds to 2^53.
  run.operator()<double>({0.1, 9007199254740992.0},
                         {0.5 * 0.1, 0.1 * 3.0, 0.1 + 1.0, 4503599627370496.0, 27021597764222976.0, 9007199254740992.0},
                         "literals with an f64 array");
  // f32 array: every result is an f32: 0.1f * 3 rounds in f32, 16777216 + 1 rounds to 16777216.
  run.operator()<float>({0.1f, 16777216.0f},
                        {static_cast<double>(0.5f * 0.1f), static_cast<double>(0.1f * 3.0f),
                         static_cast<double>(0.1f + 1.0f), 8388608.0, 50331648.0, 16777216.0},
                        "literals with an f32 array");
}

// `x + 1`, `1 + x`, `x - 1`, `x * 2` stay in the array's integer dtype (and wrap there).
TEST_P(TypingLiterals, IntegerLiteralTakesTheArraysType) {
  auto k = tack::kernel("int_literals", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      out[4 * i] = a[i] + 1;
      out[4 * i + 1] = 1 + a[i];
      out[4 * i + 2] = a[i] - 1;
      out[4 * i + 3] = a[i] * 2;
    });
  });
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    // The output is i64 for the narrower types (so a wider computation would
    // show), the array's own type for the 64-bit ones.
    using O = std::conditional_t<(sizeof(T) < 8), std::int64_t, T>;
    if (!has_dtype<O>()) return;
    const T mn = lowest<T>(), mx = highest<T>();
    std::vector<T> a = {mx, mn};
    std::vector<O> want = {static_cast<O>(mn),
                           static_cast<O>(mn),
                           static_cast<O>(static_cast<T>(mx - 1)),
                           static_cast<O>(static_cast<T>(-2)),  // MAX * 2 wraps to -2 (2^w - 2 for unsigned)
                           static_cast<O>(static_cast<T>(mn + 1)),
                           static_cast<O>(static_cast<T>(mn + 1)),
                           static_cast<O>(mx),  // MIN - 1 wraps to MAX
                           static_cast<O>(0)};  // MIN * 2 wraps to 0
    expect_exact(
        "a + 1, 1 + a, a - 1, a * 2",
        [&](const tack::Device& d) {
          tack::Array out = zeros<O>(d, 4 * static_cast<std::int64_t>(a.size()));
          k(out, d.from_host(a));
          return out.to_host<O>();
        },
        want,
        [](std::size_t i) {
          static const char* e[] = {"a + 1", "1 + a", "a - 1", "a * 2"};
          return std::string(e[i % 4]) + (i < 4 ? " with a = MAX" : " with a = MIN");
        });
  });
}

// The u8 case spelled out: 255 + 1 is 0 and 0 - 1 is 255, not 256 and -1.
TEST_P(TypingLiterals, U8PlusOneWrapsAt256) {
  auto k = tack::kernel("u8_plus_one", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      out[2 * i] = a[i] + 1;
      out[2 * i + 1] = a[i] - 1;
    });
  });
  if (!has_dtype<std::uint8_t>()) return;
  expect_exact(
      "u8 + 1, u8 - 1, stored to i32",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, 4);
        k(out, d.from_host(std::vector<std::uint8_t>{255, 0}));
        return out.to_host<std::int32_t>();
      },
      std::vector<std::int32_t>{0, 254, 1, 255});
}

// The loop index is i64: i + 2147483647 and i * 4294967296 do not wrap in 32 bits.
TEST_P(TypingLiterals, IndexPlusLiteralStaysI64) {
  auto k = tack::kernel("index_literals", [](Array out) {
    parallel_for(out.size() / 2, [&](Index i) {
      out[2 * i] = i + 2147483647;
      out[2 * i + 1] = i * 4294967296;
    });
  });
  expect_exact(
      "i + 2147483647, i * 4294967296",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int64_t>(d, 6);
        k(out);
        return out.to_host<std::int64_t>();
      },
      std::vector<std::int64_t>{2147483647LL, 0, 2147483648LL, 4294967296LL, 2147483649LL, 8589934592LL});
}

// A float literal meeting only integers gives f32 (not f64, not the integer type).
TEST_P(TypingLiterals, FloatLiteralWithIntegersGivesF32) {
  auto k = tack::kernel("int_times_float_literal", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      out[3 * i] = a[i] + 1.0;
      out[3 * i + 1] = a[i] * 0.1;
      out[3 * i + 2] = i * 0.5 + a[i];
    });
  });
  auto run = [&]<class A>(std::vector<A> a, std::vector<double> want, const char* what) {
    if (!has_dtype<A>() || !has_dtype<double>()) return;
    expect_exact(
        what,
        [&](const tack::Device& d) {
          tack::Array out = zeros<double>(d, 3 * static_cast<std::int64_t>(a.size()));
          k(out, d.from_host(a));
          return out.to_host<double>();
        },
        want,
        [](std::size_t i) {
          static const char* e[] = {"a + 1.0", "a * 0.1", "i * 0.5 + a"};
          return std::string(e[i % 3]) + " at row " + std::to_string(i / 3);
        });
  };
  auto f = [](float x) { return static_cast<double>(x); };
  // i32 16777216 + 1.0 is 16777217 in f64 but 16777216 in f32; 3 * 0.1 is 0.3f's value.
  run.operator()<std::int32_t>(
      {16777216, 3},
      {16777216.0, f(16777216.0f * 0.1f), f(0.0f * 0.5f + 16777216.0f), 4.0, f(3.0f * 0.1f), f(1.0f * 0.5f + 3.0f)},
      "i32 array with float literals");
  run.operator()<std::uint8_t>({255}, {256.0, f(255.0f * 0.1f), 255.0}, "u8 array with float literals");
  run.operator()<std::int64_t>({16777217}, {16777216.0, f(16777216.0f * 0.1f), 16777216.0},
                               "i64 array with float literals");
}

}  // namespace
