// DESIGN §4, transcendental functions: each backend uses its library; results
// must be within a few ulp of the host's libm (computed in the same dtype), and
// of the interpreter's. The bounds follow the OpenCL full-profile limits, the
// loosest of the backends' libraries.
#include "conformance/backend_param.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Transcendentals);

struct Unary {
  const char* name;
  tack::Kernel kernel;
  std::function<double(double)> host_f64;
  std::function<float(float)> host_f32;
  std::vector<double> inputs;
  std::uint64_t max_ulp;
};

#define TACK_UNARY_KERNEL(fn) \
  tack::kernel("tr_" #fn,     \
               [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = tack::lang::fn(a[i]); }); })

std::vector<Unary> unary_functions() {
  const std::vector<double> general = {-3.0, -1.25, -0.5, -0.1, 0.0, 1e-5, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 6.0, 10.0};
  const std::vector<double> unit = {-1.0, -0.9, -0.5, -0.1, 0.0, 1e-4, 0.3, 0.7, 0.99, 1.0};
  const std::vector<double> positive = {1e-6, 0.01, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 10.0, 1234.5, 1e10, 1e30};
  const std::vector<double> exps = {-20.0, -5.0, -1.0, -0.5, 0.0, 1e-4, 0.5, 1.0, 2.0, 10.0, 30.0, 80.0};
  auto f = [](auto d, auto s) { return std::pair{std::function<double(double)>(d), std::function<float(float)>(s)}; };
  std::vector<Unary> v;
  auto add = [&](const char* n, tack::Kernel k, auto fns, std::vector<double> in, std::uint64_t ulp) {
    v.push_back({n, std::move(k), fns.first, fns.second, std::move(in), ulp});
  };
  add("sin", TACK_UNARY_KERNEL(sin), f([](double x) { return std::sin(x); }, [](float x) { return std::sin(x); }),
      general, 4);
  add("cos", TACK_UNARY_KERNEL(cos), f([](double x) { return std::cos(x); }, [](float x) { return std::cos(x); }),
      general, 4);
  add("tan", TACK_UNARY_KERNEL(tan), f([](double x) { return std::tan(x); }, [](float x) { return std::tan(x); }),
      general, 6);
  add("asin", TACK_UNARY_KERNEL(asin), f([](double x) { return std::asin(x); }, [](float x) { return std::asin(x); }),
      unit, 4);
  add("acos", TACK_UNARY_KERNEL(acos), f([](double x) { return std::acos(x); }, [](float x) { return std::acos(x); }),
      unit, 4);
  add("atan", TACK_UNARY_KERNEL(atan), f([](double x) { return std::atan(x); }, [](float x) { return std::atan(x); }),
      general, 6);
  add("sinh", TACK_UNARY_KERNEL(sinh), f([](double x) { return std::sinh(x); }, [](float x) { return std::sinh(x); }),
      general, 4);
  add("cosh", TACK_UNARY_KERNEL(cosh), f([](double x) { return std::cosh(x); }, [](float x) { return std::cosh(x); }),
      general, 4);
  add("tanh", TACK_UNARY_KERNEL(tanh), f([](double x) { return std::tanh(x); }, [](float x) { return std::tanh(x); }),
      general, 6);
  add("exp", TACK_UNARY_KERNEL(exp), f([](double x) { return std::exp(x); }, [](float x) { return std::exp(x); }), exps,
      4);
  add("exp2", TACK_UNARY_KERNEL(exp2), f([](double x) { return std::exp2(x); }, [](float x) { return std::exp2(x); }),
      exps, 4);
  add("log", TACK_UNARY_KERNEL(log), f([](double x) { return std::log(x); }, [](float x) { return std::log(x); }),
      positive, 4);
  add("log2", TACK_UNARY_KERNEL(log2), f([](double x) { return std::log2(x); }, [](float x) { return std::log2(x); }),
      positive, 4);
  add("log10", TACK_UNARY_KERNEL(log10),
      f([](double x) { return std::log10(x); }, [](float x) { return std::log10(x); }), positive, 4);
  add("rsqrt", TACK_UNARY_KERNEL(rsqrt),
      f([](double x) { return 1.0 / std::sqrt(x); }, [](float x) { return 1.0f / std::sqrt(x); }), positive, 3);
  return v;
}

TEST_P(Transcendentals, UnaryFunctionsWithinAFewUlp) {
  for (const Unary& fn : unary_functions()) {
    for_each_type(FloatTypes{}, [&]<class T>() {
      SCOPED_TRACE(std::string(fn.name) + " " + type_name<T>());
      if (!has_dtype<T>()) return;
      std::vector<T> x, host;
      for (double in : fn.inputs) {
        T xi = static_cast<T>(in);
        if constexpr (std::is_same_v<T, float>) {
          if (!std::isfinite(fn.host_f32(xi))) continue;  // e.g. exp(80) overflows f32
          x.push_back(xi), host.push_back(fn.host_f32(xi));
        } else {
          x.push_back(xi), host.push_back(fn.host_f64(xi));
        }
      }
      expect_near_ulp(
          fn.name, [&](const tack::Device& d) { return run_unary<T>(fn.kernel, d, x); }, host, fn.max_ulp, rows_of(x));
    });
  }
}

// Kernel k's `rows` rows out[r * n + i] for the n inputs a, on device d.
template <class T>
std::vector<T> run_rows(const tack::Kernel& k, const tack::Device& d, const std::vector<T>& a, int rows) {
  tack::Array out = zeros<T>(d, rows * static_cast<std::int64_t>(a.size()));
  k(out, d.from_host(a));
  return out.to_host<T>();
}

// out[m * n + i] = pow(a[i], exponents[m]), each exponent a constant of the kernel.
tack::Kernel pow_rows(const char* name, std::vector<double> exponents) {
  return tack::kernel(name, [exponents](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      Value n = a.size();
      for (std::size_t m = 0; m < exponents.size(); ++m)
        out[static_cast<std::int64_t>(m) * n + i] = pow(a[i], exponents[m]);
    });
  });
}

TEST_P(Transcendentals, BinaryFunctionsWithinAFewUlp) {
  auto atan2k = tack::kernel("tr_atan2", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = atan2(a[i], b[i]); });
  });
  auto powk = tack::kernel("tr_pow", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = pow(a[i], b[i]); });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    std::vector<T> y = {T(1), T(-1), T(1), T(-1), T(0.5), T(3), T(-2.5), T(1e-3), T(0)};
    std::vector<T> x = {T(1), T(1), T(-1), T(-1), T(2), T(-0.25), T(0.1), T(-5), T(1)};
    std::vector<T> h;
    for (std::size_t i = 0; i < y.size(); ++i) h.push_back(std::atan2(y[i], x[i]));
    expect_near_ulp(
        "atan2(y, x)", [&](const tack::Device& d) { return run_binary<T>(atan2k, d, y, x); }, h, 6, rows_of(y, x));
    std::vector<T> base = {T(2), T(2), T(10), T(0.5), T(1.5), T(3), T(7.25), T(2), T(100)};
    std::vector<T> e = {T(10), T(-3), T(-2), T(0.5), T(2.5), T(0.3333), T(1.75), T(0.5), T(3.5)};
    std::vector<T> hp;
    for (std::size_t i = 0; i < base.size(); ++i) hp.push_back(std::pow(base[i], e[i]));
    expect_near_ulp(
        "pow(x, y)", [&](const tack::Device& d) { return run_binary<T>(powk, d, base, e); }, hp, 16, rows_of(base, e));
  });
}

// pow with an exponent of 0, 1, 2, -1 or 0.5 is one correctly rounded operation on every backend (passes/simplify):
// 1, x, x * x, 1 / x, and the square root with pow's +0 at -0 and +inf at -inf; bit for bit, specials included.
TEST_P(Transcendentals, PowOfAConstantExponentIsCorrectlyRounded) {
  const tack::Kernel k = pow_rows("tr_pow_constant", {2.0, -1.0, 0.5, 1.0, 0.0});
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    using L = std::numeric_limits<T>;
    const T inf = L::infinity(), nan = L::quiet_NaN();
    const std::vector<T> a = {
        T(0),    T(-0.0),         inf,      -inf,     nan,   T(1), T(-1), T(3), T(-3), T(0.1), T(2),
        T(1e20), L::denorm_min(), T(-0.75), L::max(), T(7.3)};
    std::vector<T> want;
    for (T x : a) want.push_back(x * x);
    for (T x : a) want.push_back(T(1) / x);
    for (T x : a) want.push_back(x == -inf ? inf : std::abs(std::sqrt(x)));
    for (T x : a) want.push_back(x);
    for (std::size_t i = 0; i < a.size(); ++i) want.push_back(T(1));
    expect_exact(
        "pow(x, 2), pow(x, -1), pow(x, 0.5), pow(x, 1), pow(x, 0)",
        [&](const tack::Device& d) { return run_rows(k, d, a, 5); }, want);
  });
}

// pow with any other integer exponent is pow of |x| with x's sign where the exponent is odd (passes/simplify): within
// the library's bound of the host's pow for negative bases too, and pow's special cases exactly.
TEST_P(Transcendentals, PowOfAnIntegerExponentKeepsPowsSigns) {
  const tack::Kernel k = pow_rows("tr_pow_integer", {3.0, -3.0, 4.0, -2.0});
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    using L = std::numeric_limits<T>;
    const T inf = L::infinity(), nan = L::quiet_NaN();
    const std::vector<T> a = {T(0), T(-0.0), inf, -inf, nan, T(1.5), T(-1.5), T(-7.25), T(0.3), T(-0.3), T(-2)};
    std::vector<T> want;
    for (T e : {T(3), T(-3), T(4), T(-2)})
      for (T x : a) want.push_back(std::pow(x, e));
    const std::vector<T> got = run_rows(k, dev(), a, 4);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const T x = a[i % a.size()];
      if (std::isfinite(x) && x != 0)
        EXPECT_LE(ulp_distance(got[i], want[i]), 16u)
            << "row " << i << ": got " << show(got[i]) << ", want " << show(want[i]);
      else
        EXPECT_TRUE(same_value(got[i], want[i]) || (std::isnan(got[i]) && std::isnan(want[i])))
            << "row " << i << " (x = " << show(x) << "): got " << show(got[i]) << ", want " << show(want[i]);
    }
  });
}

// Values the functions must give exactly: the special cases IEEE and C fix.
TEST_P(Transcendentals, ExactSpecialCases) {
  auto k = tack::kernel("tr_specials", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      Value n = a.size();
      out[i] = exp(a[i]);
      out[n + i] = log(a[i]);
      out[2 * n + i] = sin(a[i]);
      out[3 * n + i] = exp2(a[i]);
      out[4 * n + i] = sqrt(a[i]);
      out[5 * n + i] = copysign(a[i], -1);
    });
  });
  auto classify = tack::kernel("tr_classify", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) { out[i] = select(isnan(a[i]), 1, 0) + select(isinf(a[i]), 2, 0); });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    using L = std::numeric_limits<T>;
    const T inf = L::infinity(), nan = L::quiet_NaN();
    std::vector<T> a = {T(0), T(-0.0), inf, -inf, nan, T(1), T(4)};
    // clang-format off
    std::vector<T> want = {
        T(1), T(1), inf, T(0), nan, std::exp(T(1)), std::exp(T(4)),  // exp
        -inf, -inf, inf, nan, nan, T(0), std::log(T(4)),             // log
        T(0), T(-0.0), nan, nan, nan, std::sin(T(1)), std::sin(T(4)),  // sin
        T(1), T(1), inf, T(0), nan, T(2), T(16),                      // exp2
        T(0), T(-0.0), inf, nan, nan, T(1), T(2),                     // sqrt
        T(-0.0), T(-0.0), -inf, -inf, nan, T(-1), T(-4)};             // copysign(x, -1)
    // clang-format on
    std::vector<T> got = run_rows(k, dev(), a, 6);
    // The special values are exact; exp(1), log(4), sin(1), sin(4), exp(4) only within a few ulp.
    const std::size_t n = a.size();
    for (std::size_t i = 0; i < got.size(); ++i) {
      bool approx = (i % n >= 5) && (i / n <= 2);
      if (approx) {
        EXPECT_LE(ulp_distance(got[i], want[i]), 4u)
            << "row " << i << ": got " << show(got[i]) << ", want " << show(want[i]);
      } else {
        EXPECT_TRUE(same_value(got[i], want[i])) << "function " << i / n << " of x = " << show(a[i % n]) << ": got "
                                                 << show(got[i]) << ", want " << show(want[i]);
      }
    }
    std::vector<std::int32_t> want_class = {0, 0, 2, 2, 1, 0, 0};
    expect_exact(
        "isnan(x) + 2 * isinf(x)", [&](const tack::Device& d) { return run_unary<std::int32_t>(classify, d, a); },
        want_class, rows_of(a));
  });
}

}  // namespace
