// DESIGN §4, contraction: a*b+c inside one expression may fuse; never across
// statements, and never a product that has another use (with p = a*b, p - p
// is exactly 0); fma() always fuses. Fast-math never: x - x is not folded to 0.
#include "conformance/backend_param.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Contraction);

// Operands whose products are inexact: 1 + k * 2^-12 in f32 (2^-27 in f64)
// squares to 1 + 2k * 2^-12 + k^2 * 2^-24, below f32's ulp of 2^-23 at 1.
template <class T>
struct Rows {
  std::vector<T> a, b, c;
};
template <class T>
Rows<T> rows() {
  const T e = std::ldexp(T(1), std::is_same_v<T, float> ? -12 : -27);
  Rows<T> r;
  r.a = {T(1) + e, T(1) + T(3) * e, T(1) - e, T(0.1), T(1) / T(3), T(1.7), T(-2.3), T(1) + T(5) * e};
  r.b = {T(1) + e, T(1) + T(5) * e, T(1) + T(3) * e, T(0.3), T(3), T(1.9), T(0.7), T(1) - T(7) * e};
  r.c = {T(-1), T(-1), T(-1), T(-0.03), T(-1), T(-3.23), T(1.61), T(-1)};
  return r;
}

template <class T>
std::vector<T> host_unfused(const Rows<T>& r) {
  std::vector<T> out;
  for (std::size_t i = 0; i < r.a.size(); ++i) {
    volatile T p = r.a[i] * r.b[i];  // rounded to T, whatever the host compiler's contraction setting
    out.push_back(p + r.c[i]);
  }
  return out;
}
template <class T>
std::vector<T> host_fused(const Rows<T>& r) {
  std::vector<T> out;
  for (std::size_t i = 0; i < r.a.size(); ++i) out.push_back(std::fma(r.a[i], r.b[i], r.c[i]));
  return out;
}

template <class T>
std::vector<T> run3(const tack::Kernel& k, const tack::Device& d, const Rows<T>& r, int outputs) {
  const auto n = static_cast<std::int64_t>(r.a.size());
  tack::Array out = zeros<T>(d, outputs * n);
  k(out, d.from_host(r.a), d.from_host(r.b), d.from_host(r.c));
  return out.to_host<T>();
}

// The rows are meaningful only where fusing changes the result; check that here.
template <class T>
void expect_fusing_matters(const Rows<T>& r) {
  auto f = host_fused(r), u = host_unfused(r);
  int differ = 0;
  for (std::size_t i = 0; i < f.size(); ++i) differ += !same_value(f[i], u[i]);
  EXPECT_GE(differ, 4) << "the test rows should make fused and unfused results differ";
}

TEST_P(Contraction, ProductMinusItselfIsExactlyZero) {
  auto k = tack::kernel("p_minus_p", [](Array out, Array a, Array b, Array c) {
    parallel_for(a.size(), [&](Index i) {
      Value p = a[i] * b[i];
      out[i] = p - p;
    });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    Rows<T> r = rows<T>();
    expect_fusing_matters(r);
    // Two more rows: an overflowing product (inf - inf is NaN) and a NaN, so
    // p - p must really be computed, not folded to 0.
    const T big = std::is_same_v<T, float> ? T(1e30f) : T(1e300);
    r.a.push_back(big), r.b.push_back(big), r.c.push_back(T(0));
    r.a.push_back(std::numeric_limits<T>::quiet_NaN()), r.b.push_back(T(1)), r.c.push_back(T(0));
    std::vector<T> want(r.a.size() - 2, T(0));
    want.push_back(std::numeric_limits<T>::quiet_NaN());
    want.push_back(std::numeric_limits<T>::quiet_NaN());
    expect_exact(
        "p = a*b; p - p", [&](const tack::Device& d) { return run3(k, d, r, 1); }, want, rows_of(r.a, r.b));
  });
}

TEST_P(Contraction, ProductWithAnotherUseIsNeverFused) {
  auto k = tack::kernel("product_two_uses", [](Array out, Array a, Array b, Array c) {
    parallel_for(a.size(), [&](Index i) {
      Value p = a[i] * b[i];
      out[i] = p + c[i];
      out[a.size() + i] = p;
    });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    Rows<T> r = rows<T>();
    expect_fusing_matters(r);
    std::vector<T> want = host_unfused(r);
    for (std::size_t i = 0; i < r.a.size(); ++i) want.push_back(r.a[i] * r.b[i]);
    expect_exact(
        "p = a*b; out = p + c; out2 = p", [&](const tack::Device& d) { return run3(k, d, r, 2); }, want);
  });
}

TEST_P(Contraction, NeverAcrossStatements) {
  auto k = tack::kernel("product_across_statements", [](Array out, Array a, Array b, Array c) {
    parallel_for(a.size(), [&](Index i) {
      Var t = a[i] * b[i];
      out[i] = t + c[i];  // through a Var
      out[a.size() + i] = a[i] * b[i];
      Value stored = out[a.size() + i];
      out[2 * a.size() + i] = stored + c[i];  // through an array element
    });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    Rows<T> r = rows<T>();
    std::vector<T> u = host_unfused(r);
    std::vector<T> want = u;
    for (std::size_t i = 0; i < r.a.size(); ++i) want.push_back(r.a[i] * r.b[i]);
    want.insert(want.end(), u.begin(), u.end());
    expect_exact(
        "Var t = a*b; out = t + c (and through an element)", [&](const tack::Device& d) { return run3(k, d, r, 3); },
        want);
  });
}

TEST_P(Contraction, FmaAlwaysFuses) {
  auto k = tack::kernel("fma", [](Array out, Array a, Array b, Array c) {
    parallel_for(a.size(), [&](Index i) { out[i] = fma(a[i], b[i], c[i]); });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    Rows<T> r = rows<T>();
    expect_fusing_matters(r);
    using L = std::numeric_limits<T>;
    // Special rows: an infinite addend, an intermediate product beyond MAX that
    // the addend brings back, an exact zero with its sign, NaN.
    r.a.insert(r.a.end(), {L::max(), L::max(), T(1), T(0), L::quiet_NaN(), L::infinity(), T(-1)});
    r.b.insert(r.b.end(), {T(2), T(1), T(1), T(5), T(1), T(0), T(0)});
    r.c.insert(r.c.end(), {-L::max(), -L::infinity(), T(-1), T(-0.0), T(1), T(1), T(-0.0)});
    std::vector<T> want = host_fused(r);
    // Written out: MAX * 2 - MAX is MAX exactly when fused (inf when not).
    EXPECT_EQ(want[r.a.size() - 7], L::max());
    EXPECT_TRUE(std::isnan(want[r.a.size() - 2]));    // inf * 0 + 1
    EXPECT_TRUE(std::signbit(want[r.a.size() - 1]));  // -1 * 0 + -0 is -0
    expect_exact(
        "fma(a, b, c)", [&](const tack::Device& d) { return run3(k, d, r, 1); }, want,
        [r](std::size_t i) { return "a = " + show(r.a[i]) + ", b = " + show(r.b[i]) + ", c = " + show(r.c[i]); });
  });
}

// Inside one expression the contract lets a*b+c fuse or not; either result is
// accepted, but nothing else (no reassociation, no extra precision).
TEST_P(Contraction, OneExpressionMayFuse) {
  auto k = tack::kernel("axpy_one_expression", [](Array out, Array a, Array b, Array c) {
    parallel_for(a.size(), [&](Index i) {
      out[i] = a[i] * b[i] + c[i];
      out[a.size() + i] = c[i] - a[i] * b[i];
    });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    Rows<T> r = rows<T>();
    std::vector<T> fused = host_fused(r), unfused = host_unfused(r);
    for (std::size_t i = 0; i < r.a.size(); ++i) {
      volatile T p = r.a[i] * r.b[i];
      fused.push_back(std::fma(-r.a[i], r.b[i], r.c[i]));
      unfused.push_back(r.c[i] - p);
    }
    expect_one_of(
        "a*b + c, c - a*b", [&](const tack::Device& d) { return run3(k, d, r, 2); }, fused, unfused);
  });
}

}  // namespace
