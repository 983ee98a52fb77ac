// DESIGN §4, float + - * / sqrt: IEEE 754 in the operands' dtype, rounded to
// nearest even, correctly rounded, denormals kept (not flushed to zero, and
// rounded correctly themselves), and no extra precision carried between
// operations (an f32 expression is rounded to f32 at every step).
#include "conformance/backend_param.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(FloatArithmetic);

tack::Kernel add_kernel() {
  return tack::kernel(
      "f_add", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] + b[i]; }); });
}
tack::Kernel sub_kernel() {
  return tack::kernel(
      "f_sub", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] - b[i]; }); });
}
tack::Kernel mul_kernel() {
  return tack::kernel(
      "f_mul", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] * b[i]; }); });
}
tack::Kernel div_kernel() {
  return tack::kernel(
      "f_div", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] / b[i]; }); });
}
tack::Kernel sqrt_kernel() {
  return tack::kernel("f_sqrt",
                      [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = sqrt(a[i]); }); });
}

template <class T>
std::vector<T> sample_values() {
  using L = std::numeric_limits<T>;
  return {T(1),          T(3),           T(0.1),   T(-2.5),         T(1) / T(3),   T(7e-3),
          T(123456.789), T(-1e10),       L::min(), L::denorm_min(), T(-0.0),       T(0),
          L::infinity(), L::quiet_NaN(), L::max(), T(1e-30),        T(16777217.0), T(0.7)};
}

// Every pair of the sample values, each result computed by the host in T
// (x86-64 SSE arithmetic: IEEE, round to nearest even, denormals kept).
TEST_P(FloatArithmetic, BasicOperationsMatchTheHostBitForBit) {
  auto add = add_kernel(), sub = sub_kernel(), mul = mul_kernel(), dvd = div_kernel();
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    auto v = sample_values<T>();
    std::vector<T> a, b, s, df, p, q;
    for (T x : v)
      for (T y : v) {
        a.push_back(x), b.push_back(y);
        s.push_back(x + y), df.push_back(x - y), p.push_back(x * y), q.push_back(x / y);
      }
    RowText rows = rows_of(a, b);
    expect_exact(
        "a + b", [&](const tack::Device& d) { return run_binary<T>(add, d, a, b); }, s, rows);
    expect_exact(
        "a - b", [&](const tack::Device& d) { return run_binary<T>(sub, d, a, b); }, df, rows);
    expect_exact(
        "a * b", [&](const tack::Device& d) { return run_binary<T>(mul, d, a, b); }, p, rows);
    expect_exact(
        "a / b", [&](const tack::Device& d) { return run_binary<T>(dvd, d, a, b); }, q, rows);
  });
}

TEST_P(FloatArithmetic, SqrtIsCorrectlyRounded) {
  auto k = sqrt_kernel();
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    using L = std::numeric_limits<T>;
    std::vector<T> a = {T(2),     T(3),     T(0.5),         T(1e-3),       T(123456.789),   T(4),
                        T(0),     T(-0.0),  T(-1),          L::infinity(), L::denorm_min(), L::min(),
                        L::max(), T(1e-40), L::quiet_NaN(), T(10)};
    std::vector<T> want;
    for (T x : a) want.push_back(std::sqrt(x));
    // Rows written out: exact squares, signed zero, domain errors.
    EXPECT_EQ(want[5], T(2));
    EXPECT_TRUE(std::signbit(want[7]) && want[7] == 0);  // sqrt(-0) is -0
    EXPECT_TRUE(std::isnan(want[8]));                    // sqrt(-1) is NaN
    expect_exact(
        "sqrt(a)", [&](const tack::Device& d) { return run_unary<T>(k, d, a); }, want, rows_of(a));
  });
}

// Rows whose results are written out: signed zeros, infinities, NaN.
TEST_P(FloatArithmetic, SpecialValues) {
  auto add = add_kernel(), mul = mul_kernel(), dvd = div_kernel(), sub = sub_kernel();
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    using L = std::numeric_limits<T>;
    const T inf = L::infinity(), nan = L::quiet_NaN();
    {
      std::vector<T> a = {T(-0.0), T(0), T(-0.0), inf, inf, nan, L::max()};
      std::vector<T> b = {T(-0.0), T(-0.0), T(0), -inf, T(1), T(1), L::max()};
      std::vector<T> want = {T(-0.0), T(0), T(0), nan, inf, nan, inf};
      expect_exact(
          "a + b", [&](const tack::Device& d) { return run_binary<T>(add, d, a, b); }, want,
          rows_from({"-0 + -0", "0 + -0", "-0 + 0", "inf + -inf", "inf + 1", "NaN + 1", "MAX + MAX"}));
    }
    {
      std::vector<T> a = {T(1), T(0), inf};
      std::vector<T> b = {T(1), T(0), inf};
      std::vector<T> want = {T(0), T(0), nan};  // x - x is +0 in round to nearest
      expect_exact(
          "a - b", [&](const tack::Device& d) { return run_binary<T>(sub, d, a, b); }, want,
          rows_from({"1 - 1", "0 - 0", "inf - inf"}));
    }
    {
      std::vector<T> a = {T(0), T(-0.0), T(0), inf, T(-2), L::max()};
      std::vector<T> b = {T(-1), T(-0.0), inf, T(-1), T(0.5), T(-2)};
      std::vector<T> want = {T(-0.0), T(0), nan, -inf, T(-1), -inf};
      expect_exact(
          "a * b", [&](const tack::Device& d) { return run_binary<T>(mul, d, a, b); }, want,
          rows_from({"0 * -1", "-0 * -0", "0 * inf", "inf * -1", "-2 * 0.5", "MAX * -2"}));
    }
    {
      std::vector<T> a = {T(1), T(-1), T(0), T(1), T(-1), inf, T(1)};
      std::vector<T> b = {T(0), T(0), T(0), T(-0.0), inf, inf, T(4)};
      std::vector<T> want = {inf, -inf, nan, -inf, T(-0.0), nan, T(0.25)};
      expect_exact(
          "a / b", [&](const tack::Device& d) { return run_binary<T>(dvd, d, a, b); }, want,
          rows_from({"1 / 0", "-1 / 0", "0 / 0", "1 / -0", "-1 / inf", "inf / inf", "1 / 4"}));
    }
  });
}

// Denormals are kept as operands and as results, and rounded to nearest even.
TEST_P(FloatArithmetic, DenormalsAreKeptAndRoundedToEven) {
  auto mul = mul_kernel(), dvd = div_kernel(), add = add_kernel(), sub = sub_kernel();
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    using L = std::numeric_limits<T>;
    const T dm = L::denorm_min(), mn = L::min();
    // A denormal well inside the range: 1e-40 (f32) or 1e-310 (f64).
    const T tiny = std::is_same_v<T, float> ? T(1e-40f) : T(1e-310);
    ASSERT_TRUE(std::fpclassify(tiny) == FP_SUBNORMAL);
    {
      std::vector<T> a = {tiny, dm, T(3) * dm, mn, dm, T(5) * dm};
      std::vector<T> b = {T(1), T(2), T(2), T(2), T(4), T(2)};
      // dm / 2 is halfway between 0 and dm: even is 0. 3dm / 2 = 1.5 dm: even is 2 dm.
      // 5dm / 2 = 2.5 dm: even is 2 dm. MIN / 2 is an exact denormal.
      std::vector<T> want = {tiny, T(0), T(2) * dm, mn / T(2), T(0), T(2) * dm};
      expect_exact(
          "a / b (denormal results)", [&](const tack::Device& d) { return run_binary<T>(dvd, d, a, b); }, want,
          rows_from({"tiny / 1", "dm / 2", "3dm / 2", "MIN / 2", "dm / 4", "5dm / 2"}));
    }
    {
      std::vector<T> a = {tiny, dm, T(3) * dm, T(0.5), tiny};
      std::vector<T> b = {T(1), T(0.5), T(0.5), dm, T(-1)};
      std::vector<T> want = {tiny, T(0), T(2) * dm, T(0), -tiny};
      expect_exact(
          "a * b (denormal operands)", [&](const tack::Device& d) { return run_binary<T>(mul, d, a, b); }, want,
          rows_from({"tiny * 1", "dm * 0.5", "3dm * 0.5", "0.5 * dm", "tiny * -1"}));
    }
    {
      std::vector<T> a = {dm, mn, tiny, tiny};
      std::vector<T> b = {dm, -dm, tiny, -tiny};
      std::vector<T> want = {T(2) * dm, mn - dm, tiny + tiny, T(0)};
      EXPECT_EQ(std::fpclassify(want[1]), FP_SUBNORMAL);  // the largest denormal
      expect_exact(
          "a + b (denormals)", [&](const tack::Device& d) { return run_binary<T>(add, d, a, b); }, want,
          rows_from({"dm + dm", "MIN + -dm", "tiny + tiny", "tiny + -tiny"}));
      std::vector<T> want_sub = {T(0), mn + dm, T(0), tiny + tiny};
      expect_exact(
          "a - b (denormals)", [&](const tack::Device& d) { return run_binary<T>(sub, d, a, b); }, want_sub,
          rows_from({"dm - dm", "MIN - -dm", "tiny - tiny", "tiny - -tiny"}));
    }
  });
}

// Each operation rounds to the dtype: (a + b) - a in f32 is not computed in f64.
TEST_P(FloatArithmetic, EveryStepRoundsToTheDtype) {
  auto k = tack::kernel("f_round_each_step", [](Array out, Array a, Array b) {
    parallel_for(a.size(), [&](Index i) {
      Value s = a[i] + b[i];
      out[3 * i] = s - a[i];
      out[3 * i + 1] = (a[i] * b[i]) / b[i];
      Var v = a[i];
      v = v + b[i];
      v = v - a[i];
      out[3 * i + 2] = v;
    });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    using L = std::numeric_limits<T>;
    std::vector<T> a = {T(1e8), T(1e17), T(1), L::max(), T(0.1)};
    std::vector<T> b = {T(1), T(1), T(1e-9), T(2), T(3)};
    std::vector<T> want;
    for (std::size_t i = 0; i < a.size(); ++i) {
      T s = a[i] + b[i];
      want.push_back(s - a[i]);
      T p = a[i] * b[i];
      want.push_back(p / b[i]);
      want.push_back(s - a[i]);
    }
    // Written out: 1e8f + 1 rounds to 1e8f, and 1e17 + 1 to 1e17 in f64; MAX * 2 overflows to inf.
    if constexpr (std::is_same_v<T, float>)
      EXPECT_EQ(want[0], 0.0f);
    else
      EXPECT_EQ(want[0], 1.0);
    EXPECT_EQ(want[3], T(0));
    EXPECT_EQ(want[10], L::infinity());
    expect_exact(
        "(a + b) - a, (a * b) / b, through a Value and a Var",
        [&](const tack::Device& d) {
          tack::Array out = zeros<T>(d, 3 * static_cast<std::int64_t>(a.size()));
          k(out, d.from_host(a), d.from_host(b));
          return out.to_host<T>();
        },
        want, [](std::size_t i) { return "row " + std::to_string(i / 3) + ", output " + std::to_string(i % 3); });
  });
}

}  // namespace
