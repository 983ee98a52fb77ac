// Typing rules, refusals: what has no type is refused at the call with
// tack::TypeError, before anything runs (the output is untouched), with a
// message naming the kernel: a literal that does not fit the other operand's
// integer type (u8 array + 300), u64 with a signed integer (asking for a
// cast), sqrt of an integer, a fixed dtype (ArrayOf<float>, ScalarOf<float>)
// called with another, bit operations on floats.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <string>
#include <typeinfo>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(TypingRefusals);

// Calls `call`, which must throw E whose message contains each of `words`;
// then checks that `out` still holds zeros (nothing ran).
template <class E, class Call>
void expect_refused(const char* what, Call&& call, const tack::Array& out, std::vector<std::string> words) {
  try {
    call();
    ADD_FAILURE() << what << ": the call was accepted, expected " << typeid(E).name();
    return;
  } catch (const E& e) {
    std::string msg = e.what();
    for (const auto& w : words) EXPECT_NE(msg.find(w), std::string::npos) << what << ": '" << w << "' not in: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": threw the wrong exception: " << e.what();
    return;
  }
  tack::sync();
  if (out.valid() && out.dtype() == tack::DType::F32) {
    for (float v : out.to_host<float>()) EXPECT_EQ(v, 0.0f) << what << ": the kernel ran";
  } else if (out.valid() && out.dtype() == tack::DType::I32) {
    for (std::int32_t v : out.to_host<std::int32_t>()) EXPECT_EQ(v, 0) << what << ": the kernel ran";
  }
}

TEST_P(TypingRefusals, LiteralThatDoesNotFitIsRefused) {
  auto plus300 = tack::kernel(
      "u8_plus_300", [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] + 300; }); });
  auto plus128 = tack::kernel(
      "i8_plus_128", [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] + 128; }); });
  auto minus1 = tack::kernel(
      "u32_times_minus_1", [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] * -1; }); });
  auto big = tack::kernel("i32_plus_2pow40", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) { out[i] = a[i] + 1099511627776; });
  });
  const tack::Device& d = dev();
  tack::Array out = zeros<std::int32_t>(d, 2);
  if (has_dtype<std::uint8_t>())
    expect_refused<tack::TypeError>("u8 array + 300",
                                    [&] {
                                      plus300(out, d.from_host(std::vector<std::uint8_t>{1, 2}));
                                    },
                                    out, {"u8_plus_300", "300"});
  if (has_dtype<std::int8_t>())
    expect_refused<tack::TypeError>("i8 array + 128",
                                    [&] {
                                      plus128(out, d.from_host(std::vector<std::int8_t>{1, 2}));
                                    },
                                    out, {"i8_plus_128", "128"});
  expect_refused<tack::TypeError>("u32 array * -1",
                                  [&] {
                                    minus1(out, d.from_host(std::vector<std::uint32_t>{1, 2}));
                                  },
                                  out, {"u32_times_minus_1"});
  expect_refused<tack::TypeError>("i32 array + 2^40",
                                  [&] {
                                    big(out, d.from_host(std::vector<std::int32_t>{1, 2}));
                                  },
                                  out, {"i32_plus_2pow40"});
  // The same kernels accept a dtype the literal fits.
  plus300(out, d.from_host(std::vector<std::int16_t>{1, 2}));
  EXPECT_EQ(out.to_host<std::int32_t>(), (std::vector<std::int32_t>{301, 302}));
}

TEST_P(TypingRefusals, U64WithSignedIsRefusedAskingForACast) {
  auto add = tack::kernel("u64_plus_signed", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = a[i] + b[i]; });
  });
  auto add_scalar = tack::kernel("u64_plus_scalar", [](Array out, Array a, Scalar s) {
    parallel_for(out.size(), [&](Index i) { out[i] = a[i] + s; });
  });
  auto casted = tack::kernel("u64_plus_cast_signed", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = a[i] + cast<std::uint64_t>(b[i]); });
  });
  if (!has_dtype<std::uint64_t>()) return;
  const tack::Device& d = dev();
  tack::Array out = zeros<std::int32_t>(d, 2);
  tack::Array u = d.from_host(std::vector<std::uint64_t>{1, 2});
  for_each_type(SignedTypes{}, [&]<class S>() {
    SCOPED_TRACE(type_name<S>());
    if (!has_dtype<S>()) return;
    tack::Array s = d.from_host(std::vector<S>{1, 2});
    expect_refused<tack::TypeError>("u64 + signed array", [&] { add(out, u, s); }, out, {"u64_plus_signed", "cast"});
    expect_refused<tack::TypeError>("signed + u64 array", [&] { add(out, s, u); }, out, {"u64_plus_signed", "cast"});
    expect_refused<tack::TypeError>("u64 array + signed scalar", [&] { add_scalar(out, u, S{1}); }, out,
                                    {"u64_plus_scalar", "cast"});
    // With the cast asked for, it runs: 1 + 1, 2 + 2.
    casted(out, u, s);
    EXPECT_EQ(out.to_host<std::int32_t>(), (std::vector<std::int32_t>{2, 4}));
    out.fill(0);
  });
  // Unsigned with unsigned is fine: u64 + u32 is u64.
  add(out, u, d.from_host(std::vector<std::uint32_t>{10, 20}));
  EXPECT_EQ(out.to_host<std::int32_t>(), (std::vector<std::int32_t>{11, 22}));
}

TEST_P(TypingRefusals, FloatFunctionOfAnIntegerIsRefused) {
  auto k = tack::kernel("sqrt_of_int",
                        [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = sqrt(a[i]); }); });
  auto ok = tack::kernel("sqrt_of_cast_int", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) { out[i] = sqrt(cast<float>(a[i])); });
  });
  const tack::Device& d = dev();
  tack::Array out = zeros<float>(d, 2);
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    expect_refused<tack::TypeError>("sqrt(integer element)",
                                    [&] {
                                      k(out, d.from_host(std::vector<T>{4, 9}));
                                    },
                                    out, {"sqrt_of_int"});
  });
  ok(out, d.from_host(std::vector<std::int32_t>{4, 9}));
  EXPECT_EQ(out.to_host<float>(), (std::vector<float>{2.0f, 3.0f}));
}

TEST_P(TypingRefusals, FixedDtypeParametersRefuseOthers) {
  auto k = tack::kernel("fixed_f32", [](ArrayOf<float> out, ArrayOf<float> a, ScalarOf<float> s) {
    parallel_for(out.size(), [&](Index i) { out[i] = a[i] * s; });
  });
  const tack::Device& d = dev();
  tack::Array out = zeros<float>(d, 2);
  tack::Array f32 = d.from_host(std::vector<float>{1.0f, 2.0f});
  if (has_dtype<double>()) {
    tack::Array f64 = d.from_host(std::vector<double>{1.0, 2.0});
    expect_refused<tack::TypeError>("ArrayOf<float> given an f64 array", [&] { k(out, f64, 2.0f); }, out,
                                    {"fixed_f32"});
  }
  tack::Array i32 = d.from_host(std::vector<std::int32_t>{1, 2});
  expect_refused<tack::TypeError>("ArrayOf<float> given an i32 array", [&] { k(out, i32, 2.0f); }, out, {"fixed_f32"});
  expect_refused<tack::TypeError>("ScalarOf<float> given a double", [&] { k(out, f32, 2.0); }, out, {"fixed_f32"});
  expect_refused<tack::TypeError>("ScalarOf<float> given an int", [&] { k(out, f32, 2); }, out, {"fixed_f32"});
  k(out, f32, 2.0f);
  EXPECT_EQ(out.to_host<float>(), (std::vector<float>{2.0f, 4.0f}));
}

TEST_P(TypingRefusals, BitOperationsOnFloatsAreRefused) {
  auto band = tack::kernel("float_bitand",
                           [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] & 1; }); });
  auto shl = tack::kernel("float_shift",
                          [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] << 1; }); });
  auto atomic_or_f = tack::kernel(
      "float_atomic_or", [](Array out, Array a) { parallel_for(a.size(), [&](Index i) { atomic_or(out, 0, a[i]); }); });
  const tack::Device& d = dev();
  tack::Array out = zeros<float>(d, 2);
  tack::Array a = d.from_host(std::vector<float>{1.0f, 2.0f});
  expect_refused<tack::TypeError>("f32 & 1", [&] { band(out, a); }, out, {"float_bitand"});
  expect_refused<tack::TypeError>("f32 << 1", [&] { shl(out, a); }, out, {"float_shift"});
  expect_refused<tack::TypeError>("atomic_or on f32", [&] { atomic_or_f(out, a); }, out, {"float_atomic_or"});
}

}  // namespace
