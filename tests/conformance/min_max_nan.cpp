// DESIGN §4, min and max on floats: a NaN operand yields the other operand (in
// either order); two NaNs give NaN; of two zeros (+0, -0 in either order) the
// first operand is the result. Integer min/max compare in the dtype
// (signed or unsigned). clamp(x, lo, hi) is min(max(x, lo), hi).
#include "conformance/backend_param.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(MinMaxNaN);

tack::Kernel min_kernel() {
  return tack::kernel(
      "min", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = min(a[i], b[i]); }); });
}
tack::Kernel max_kernel() {
  return tack::kernel(
      "max", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = max(a[i], b[i]); }); });
}

TEST_P(MinMaxNaN, FloatNaNOperandYieldsTheOther) {
  auto mn = min_kernel(), mx = max_kernel();
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    using L = std::numeric_limits<T>;
    const T nan = L::quiet_NaN(), inf = L::infinity();
    std::vector<T> a = {nan, T(1), nan, T(1), T(2), -inf, nan, T(-3), inf, L::denorm_min(), nan, T(-0.5)};
    std::vector<T> b = {T(1), nan, nan, T(2), T(1), nan, inf, nan, T(5), T(0), -inf, T(-0.25)};
    std::vector<T> want_min = {T(1), T(1), nan, T(1), T(1), -inf, inf, T(-3), T(5), T(0), -inf, T(-0.5)};
    std::vector<T> want_max = {T(1), T(1), nan, T(2), T(2), -inf, inf, T(-3), inf, L::denorm_min(), -inf, T(-0.25)};
    RowText rows = rows_of(a, b);
    expect_exact(
        "min(a, b)", [&](const tack::Device& d) { return run_binary<T>(mn, d, a, b); }, want_min, rows);
    expect_exact(
        "max(a, b)", [&](const tack::Device& d) { return run_binary<T>(mx, d, a, b); }, want_max, rows);
  });
}

// Zeros of either sign compare equal, so min and max return their first
// operand (docs/semantics.md; the interpreter's b < a ? b : a). The sign bit is
// compared: llvm.minnum or C's fmin may return either zero.
TEST_P(MinMaxNaN, SignedZerosGiveTheFirstOperand) {
  auto mn = min_kernel(), mx = max_kernel();
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const T p = T(0), m = -T(0);
    std::vector<T> a = {p, m, m, p, p, m};
    std::vector<T> b = {m, p, m, p, T(1), T(-1)};
    std::vector<T> want_min = {p, m, m, p, p, T(-1)};
    std::vector<T> want_max = {p, m, m, p, T(1), m};
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(std::signbit(want_min[i]), std::signbit(a[i])) << "row " << i;
    RowText rows = rows_of(a, b);
    expect_exact(
        "min(a, b)", [&](const tack::Device& d) { return run_binary<T>(mn, d, a, b); }, want_min, rows);
    expect_exact(
        "max(a, b)", [&](const tack::Device& d) { return run_binary<T>(mx, d, a, b); }, want_max, rows);
  });
}

TEST_P(MinMaxNaN, IntegerMinMaxCompareInTheDtype) {
  auto mn = min_kernel(), mx = max_kernel();
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const T lo = lowest<T>(), hi = highest<T>(), m1 = static_cast<T>(-1);
    std::vector<T> a = {lo, hi, m1, T(0), T(5), lo};
    std::vector<T> b = {hi, lo, T(1), T(0), T(3), m1};
    // -1 is below 1 for signed types; for unsigned it is MAX.
    constexpr bool s = std::is_signed_v<T>;
    std::vector<T> want_min = {lo, lo, s ? m1 : T(1), T(0), T(3), lo};
    std::vector<T> want_max = {hi, hi, s ? T(1) : m1, T(0), T(5), m1};
    RowText rows = rows_of(a, b);
    expect_exact(
        "min(a, b)", [&](const tack::Device& d) { return run_binary<T>(mn, d, a, b); }, want_min, rows);
    expect_exact(
        "max(a, b)", [&](const tack::Device& d) { return run_binary<T>(mx, d, a, b); }, want_max, rows);
  });
}

TEST_P(MinMaxNaN, ClampIsMinOfMax) {
  auto k = tack::kernel(
      "clamp01", [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = clamp(a[i], 0, 1); }); });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    using L = std::numeric_limits<T>;
    std::vector<T> x = {T(-1), T(0.5), T(2), L::quiet_NaN(), L::infinity(), -L::infinity()};
    // clamp(NaN, 0, 1) = min(max(NaN, 0), 1) = min(0, 1) = 0.
    std::vector<T> want = {T(0), T(0.5), T(1), T(0), T(1), T(0)};
    expect_exact(
        "clamp(x, 0, 1)", [&](const tack::Device& d) { return run_unary<T>(k, d, x); }, want, rows_of(x));
  });
}

}  // namespace
