// Typing rules, promotion between array and scalar dtypes (NumPy-like):
// i8 + u8 -> i16, u32 + i32 -> i64, i32 + f32 -> f32 (unlike NumPy, which
// gives f64), f32 + f64 -> f64, bool promotes to the other operand's type, and
// a Scalar's dtype comes from the C++ argument (float -> f32, double -> f64,
// int -> i32, int64_t -> i64). Each rule is observed through a result that
// would differ under another type (a wrap, a rounding), stored to an output
// wide enough to show it.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(TypingPromotion);

tack::Kernel add_kernel() {
  return tack::kernel("promote_add", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = a[i] + b[i]; });
  });
}

TEST_P(TypingPromotion, IntegerMixes) {
  auto k = add_kernel();
  auto run = [&]<class O, class A, class B>(std::vector<A> a, std::vector<B> b, std::vector<O> want) {
    if (!has_dtype<A>() || !has_dtype<B>() || !has_dtype<O>()) return;
    std::string what = type_name<A>() + " + " + type_name<B>() + ", stored to " + type_name<O>();
    expect_exact(
        what, [&](const tack::Device& d) { return run_binary<O>(k, d, a, b); }, want, rows_of(a, b));
  };
  // i8 + u8 -> i16: 100 + 200 is 300, -1 + 255 is 254 (i8 or u8 would wrap to 44 and 254 / -2).
  run.operator()<std::int32_t, std::int8_t, std::uint8_t>({100, -1, -128}, {200, 255, 0}, {300, 254, -128});
  // i16 + u16 -> i32: 30000 + 60000 is 90000.
  run.operator()<std::int64_t, std::int16_t, std::uint16_t>({30000, -32768}, {60000, 65535}, {90000, 32767});
  // u32 + i32 -> i64: 4000000000 + 1 is 4000000001; -1 + 0 is -1 (u32 would give 4294967295).
  run.operator()<std::int64_t, std::uint32_t, std::int32_t>({4000000000u, 0, 4294967295u}, {1, -1, 2147483647},
                                                            {4000000001LL, -1, 6442450942LL});
  // u8 + u16 -> u16: 255 + 65535 wraps to 254 in u16 (an i32 would give 65790).
  run.operator()<std::int64_t, std::uint8_t, std::uint16_t>({255, 1}, {65535, 65535}, {254, 0});
  // u8 + i32 -> i32: 255 + 1 is 256.
  run.operator()<std::int64_t, std::uint8_t, std::int32_t>({255, 0}, {1, -1}, {256, -1});
  // i8 + i64 -> i64: 127 + 9223372036854775680 stays exact.
  run.operator()<std::int64_t, std::int8_t, std::int64_t>({127, -128}, {9223372036854775680LL, 0},
                                                          {9223372036854775807LL, -128});
  // u32 + i64 -> i64: 4294967295 + 1 is 4294967296 (u32 would wrap to 0).
  run.operator()<std::int64_t, std::uint32_t, std::int64_t>({4294967295u}, {1}, {4294967296LL});
  // i16 + u8 -> i16: the signed type is wider, so it holds both: 32767 + 1 wraps to -32768 in i16.
  run.operator()<std::int32_t, std::int16_t, std::uint8_t>({32767, -5}, {1, 255}, {-32768, 250});
  // u64 + u8 -> u64.
  run.operator()<std::uint64_t, std::uint64_t, std::uint8_t>({18446744073709551615ULL}, {1}, {0});
}

TEST_P(TypingPromotion, FloatMixes) {
  auto k = add_kernel();
  auto run = [&]<class O, class A, class B>(std::vector<A> a, std::vector<B> b, std::vector<O> want) {
    if (!has_dtype<A>() || !has_dtype<B>() || !has_dtype<O>()) return;
    std::string what = type_name<A>() + " + " + type_name<B>() + ", stored to " + type_name<O>();
    expect_exact(
        what, [&](const tack::Device& d) { return run_binary<O>(k, d, a, b); }, want, rows_of(a, b));
  };
  // i32 + f32 -> f32 (not f64): 16777217 + 0 rounds to 16777216 in f32; 16777216 + 1 too.
  run.operator()<double, std::int32_t, float>({16777217, 16777216}, {0.0f, 1.0f}, {16777216.0, 16777216.0});
  // i64 + f32 -> f32, u64 + f32 -> f32, u8 + f32 -> f32.
  run.operator()<double, std::int64_t, float>({16777217}, {0.0f}, {16777216.0});
  run.operator()<double, std::uint64_t, float>({18446744073709551615ULL}, {0.0f}, {18446744073709551616.0});
  run.operator()<double, std::uint8_t, float>({255}, {0.1f}, {static_cast<double>(255.1f)});
  // f32 + f64 -> f64: 1 + 1e-10 keeps the 1e-10 (f32 would give exactly 1).
  run.operator()<double, float, double>({1.0f}, {1e-10}, {1.0 + 1e-10});
  // i64 + f64 -> f64: 2^53 + 1 rounds to 2^53 in f64, and 2^53 + 2 is exact.
  run.operator()<double, std::int64_t, double>({9007199254740993LL, 9007199254740994LL}, {0.0, 0.0},
                                               {9007199254740992.0, 9007199254740994.0});
  // i32 + f64 -> f64: exact.
  run.operator()<double, std::int32_t, double>({16777217}, {0.5}, {16777217.5});
}

// bool promotes to the other operand's type: a comparison plus a u8 stays u8
// (so true + 255 wraps to 0), a comparison plus an f32 is an f32.
TEST_P(TypingPromotion, BoolPromotesToTheOtherType) {
  auto k = tack::kernel("bool_plus", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = (a[i] > 0) + b[i]; });
  });
  auto run = [&]<class O, class A, class B>(std::vector<A> a, std::vector<B> b, std::vector<O> want) {
    if (!has_dtype<A>() || !has_dtype<B>() || !has_dtype<O>()) return;
    std::string what = "(a > 0) + b for " + type_name<A>() + ", " + type_name<B>() + ", stored to " + type_name<O>();
    expect_exact(
        what, [&](const tack::Device& d) { return run_binary<O>(k, d, a, b); }, want, rows_of(a, b));
  };
  run.operator()<std::int32_t, std::int32_t, std::uint8_t>({1, 0, 5}, {255, 255, 7}, {0, 255, 8});
  run.operator()<std::int32_t, std::int32_t, std::int8_t>({1, 1}, {127, -1}, {-128, 0});
  run.operator()<double, std::int32_t, float>({1, 0}, {16777216.0f, 0.5f}, {16777216.0, 0.5});
  run.operator()<double, std::int32_t, double>({1}, {16777216.0}, {16777217.0});
}

// A Scalar's dtype comes from the C++ argument: the same kernel gives f32
// results for a float and f64 results for a double, i32 for int, i64 for int64_t.
TEST_P(TypingPromotion, ScalarDtypeFromTheCppArgument) {
  auto k = tack::kernel("array_plus_scalar", [](Array out, Array a, Scalar s) {
    parallel_for(out.size(), [&](Index i) { out[i] = a[i] + s; });
  });
  auto run = [&]<class O, class A, class S>(std::vector<A> a, S s, std::vector<O> want, const char* what) {
    if (!has_dtype<A>() || !has_dtype<O>() || !has_dtype<S>()) return;
    expect_exact(
        what,
        [&](const tack::Device& d) {
          tack::Array out = zeros<O>(d, static_cast<std::int64_t>(a.size()));
          k(out, d.from_host(a), s);
          return out.to_host<O>();
        },
        want, rows_of(a));
  };
  // f32 array + float: f32, so 1 + 1e-10 is 1. f32 array + double: f64, 1.0000000001.
  run.operator()<double, float, float>({1.0f}, 1e-10f, {1.0}, "f32 array + float scalar -> f32");
  run.operator()<double, float, double>({1.0f}, 1e-10, {1.0 + 1e-10}, "f32 array + double scalar -> f64");
  // i32 array + int: i32 wraps; + int64_t: i64 does not.
  run.operator()<std::int64_t, std::int32_t, int>({2147483647}, 1, {-2147483648LL}, "i32 array + int scalar -> i32");
  run.operator()<std::int64_t, std::int32_t, std::int64_t>({2147483647}, std::int64_t{1}, {2147483648LL},
                                                           "i32 array + int64_t scalar -> i64");
  // u8 array + int scalar: i32 (the scalar is strong, unlike a literal): 255 + 1 is 256.
  run.operator()<std::int32_t, std::uint8_t, int>({255}, 1, {256}, "u8 array + int scalar -> i32");
  // i32 array + float scalar: f32, 16777217 + 0 rounds.
  run.operator()<double, std::int32_t, float>({16777217}, 0.0f, {16777216.0}, "i32 array + float scalar -> f32");
  // i32 array + double scalar: f64, exact.
  run.operator()<double, std::int32_t, double>({16777217}, 0.0, {16777217.0}, "i32 array + double scalar -> f64");
  // u16 array + unsigned scalar (u32): u32, 65535 + 4294901761 wraps to 0.
  run.operator()<std::int64_t, std::uint16_t, std::uint32_t>({65535}, 4294901761u, {0}, "u16 + u32 scalar -> u32");
}

// Scalar-only arithmetic: two Scalars promote like two arrays.
TEST_P(TypingPromotion, ScalarWithScalar) {
  auto k = tack::kernel("scalar_plus_scalar", [](Array out, Scalar s, Scalar t) {
    parallel_for(out.size(), [&](Index i) { out[i] = s + t; });
  });
  auto run = [&]<class O, class S, class T>(S s, T t, O want, const char* what) {
    if (!has_dtype<O>()) return;
    expect_exact(
        what,
        [&](const tack::Device& d) {
          tack::Array out = zeros<O>(d, 1);
          k(out, s, t);
          return out.to_host<O>();
        },
        std::vector<O>{want});
  };
  run.operator()<double>(1.0f, 1e-10f, 1.0, "float + float -> f32");
  run.operator()<double>(1.0f, 1e-10, 1.0 + 1e-10, "float + double -> f64");
  run.operator()<std::int64_t>(2147483647, 1, -2147483648LL, "int + int -> i32");
  run.operator()<std::int64_t>(2147483647, std::int64_t{1}, 2147483648LL, "int + int64_t -> i64");
  run.operator()<std::int64_t>(std::uint32_t{4294967295u}, 1, 4294967296LL, "u32 + int -> i64");
}

}  // namespace
