// DESIGN §4, integer / and %: truncate toward zero; by zero gives 0;
// MIN / -1 == MIN and MIN % -1 == 0. floordiv and floormod: floor semantics
// (the remainder takes the divisor's sign), with the same zero rules. Their float
// forms are Python's // and %, checked in full in float_floor_division.cpp.
#include "conformance/backend_param.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(IntegerDivision);

template <class T>
T m1() {
  return static_cast<T>(-1);
}

// Host references written from the contract, not from any implementation.
template <class T>
T ref_div(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return static_cast<T>(std::uint64_t{0} - static_cast<std::uint64_t>(a));  // -MIN == MIN
  }
  return static_cast<T>(a / b);
}
template <class T>
T ref_mod(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}
template <class T>
T ref_floordiv(T a, T b) {
  T q = ref_div(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (b != 0 && b != -1 && ref_mod(a, b) != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
  }
  return q;
}
template <class T>
T ref_floormod(T a, T b) {
  T r = ref_mod(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
  }
  return r;
}

tack::Kernel div_kernel() {
  return tack::kernel(
      "div", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] / b[i]; }); });
}
tack::Kernel mod_kernel() {
  return tack::kernel(
      "mod", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] % b[i]; }); });
}
tack::Kernel floordiv_kernel() {
  return tack::kernel("floordiv", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = floordiv(a[i], b[i]); });
  });
}
tack::Kernel floormod_kernel() {
  return tack::kernel("floormod", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = floormod(a[i], b[i]); });
  });
}

TEST_P(IntegerDivision, SignedRowsWrittenOut) {
  auto dk = div_kernel(), mk = mod_kernel(), fdk = floordiv_kernel(), fmk = floormod_kernel();
  for_each_type(SignedTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const T mn = lowest<T>(), mx = highest<T>();
    const T nmx = static_cast<T>(-mx);
    // clang-format off
    std::vector<T> a = {7, -7, 7,  -7, 7, -7, 0, mn, mx, mn, mn, mx, -1, 6, -6, 1, -1};
    std::vector<T> b = {2,  2, -2, -2, 0,  0, 0, -1, -1, 1,  mx, mn, mn, 3,  3, 2,  2};
    RowText rows = rows_from({"7, 2", "-7, 2", "7, -2", "-7, -2", "7, 0", "-7, 0", "0, 0", "MIN, -1", "MAX, -1",
                              "MIN, 1", "MIN, MAX", "MAX, MIN", "-1, MIN", "6, 3", "-6, 3", "1, 2", "-1, 2"});
    std::vector<T> quot  = {3, -3, -3, 3, 0, 0, 0, mn, nmx, mn, -1,  0, 0, 2, -2, 0, 0};
    std::vector<T> rem   = {1, -1, 1, -1, 0, 0, 0, 0,  0,   0,  -1, mx, -1, 0, 0, 1, -1};
    std::vector<T> fquot = {3, -4, -4, 3, 0, 0, 0, mn, nmx, mn, -2, -1, 0, 2, -2, 0, -1};
    std::vector<T> frem  = {1, 1, -1, -1, 0, 0, 0, 0,  0,   0,  static_cast<T>(mx - 1), -1, -1, 0, 0, 1, 1};
    // clang-format on
    expect_exact(
        "a / b", [&](const tack::Device& d) { return run_binary<T>(dk, d, a, b); }, quot, rows);
    expect_exact(
        "a % b", [&](const tack::Device& d) { return run_binary<T>(mk, d, a, b); }, rem, rows);
    expect_exact(
        "floordiv(a, b)", [&](const tack::Device& d) { return run_binary<T>(fdk, d, a, b); }, fquot, rows);
    expect_exact(
        "floormod(a, b)", [&](const tack::Device& d) { return run_binary<T>(fmk, d, a, b); }, frem, rows);
  });
}

TEST_P(IntegerDivision, UnsignedRowsWrittenOut) {
  auto dk = div_kernel(), mk = mod_kernel(), fdk = floordiv_kernel(), fmk = floormod_kernel();
  for_each_type(UnsignedTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const T mx = highest<T>();
    std::vector<T> a = {7, 7, 0, mx, mx, mx, 1, 6, mx, 0};
    std::vector<T> b = {2, 0, 0, 2, mx, 1, mx, 3, static_cast<T>(mx - 1), 5};
    RowText rows =
        rows_from({"7, 2", "7, 0", "0, 0", "MAX, 2", "MAX, MAX", "MAX, 1", "1, MAX", "6, 3", "MAX, MAX - 1", "0, 5"});
    std::vector<T> quot = {3, 0, 0, static_cast<T>(mx / 2), 1, mx, 0, 2, 1, 0};
    std::vector<T> rem = {1, 0, 0, 1, 0, 0, 1, 0, 1, 0};
    expect_exact(
        "a / b", [&](const tack::Device& d) { return run_binary<T>(dk, d, a, b); }, quot, rows);
    expect_exact(
        "a % b", [&](const tack::Device& d) { return run_binary<T>(mk, d, a, b); }, rem, rows);
    expect_exact(
        "floordiv(a, b)", [&](const tack::Device& d) { return run_binary<T>(fdk, d, a, b); }, quot, rows);
    expect_exact(
        "floormod(a, b)", [&](const tack::Device& d) { return run_binary<T>(fmk, d, a, b); }, rem, rows);
  });
}

// Every pair of a spread of values (zeros, -1, the extremes) against the host references.
TEST_P(IntegerDivision, AllPairsAgainstTheContract) {
  auto dk = div_kernel(), mk = mod_kernel(), fdk = floordiv_kernel(), fmk = floormod_kernel();
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const T mn = lowest<T>(), mx = highest<T>();
    std::vector<T> v = {T(0),
                        T(1),
                        T(2),
                        T(3),
                        T(7),
                        m1<T>(),
                        static_cast<T>(-2),
                        static_cast<T>(-7),
                        mn,
                        T(mn + 1),
                        mx,
                        T(mx - 1),
                        static_cast<T>(mx / 3),
                        static_cast<T>(0xA5A5A5A5A5A5A5A5ull)};
    std::vector<T> a, b, q, r, fq, fr;
    for (T x : v)
      for (T y : v) {
        a.push_back(x), b.push_back(y);
        q.push_back(ref_div(x, y)), r.push_back(ref_mod(x, y));
        fq.push_back(ref_floordiv(x, y)), fr.push_back(ref_floormod(x, y));
      }
    RowText rows = rows_of(a, b);
    expect_exact(
        "a / b", [&](const tack::Device& d) { return run_binary<T>(dk, d, a, b); }, q, rows);
    expect_exact(
        "a % b", [&](const tack::Device& d) { return run_binary<T>(mk, d, a, b); }, r, rows);
    expect_exact(
        "floordiv(a, b)", [&](const tack::Device& d) { return run_binary<T>(fdk, d, a, b); }, fq, rows);
    expect_exact(
        "floormod(a, b)", [&](const tack::Device& d) { return run_binary<T>(fmk, d, a, b); }, fr, rows);
  });
}

// A zero or -1 divisor the compiler can see (a literal) or cannot (a Scalar)
// obeys the same rules: no trap, no undefined behaviour to optimize around.
TEST_P(IntegerDivision, ConstantAndScalarDivisors) {
  auto by_zero_literal = tack::kernel("div_by_literal_zero", [](Array q, Array r, Array a) {
    parallel_for(q.size(), [&](Index i) {
      q[i] = a[i] / 0;
      r[i] = a[i] % 0 + floordiv(a[i], 0) + floormod(a[i], 0);
    });
  });
  auto by_scalar = tack::kernel("div_by_scalar", [](Array q, Array r, Array a, Scalar s) {
    parallel_for(q.size(), [&](Index i) {
      q[i] = a[i] / s;
      r[i] = a[i] % s;
    });
  });
  auto by_minus_one = tack::kernel("div_by_literal_minus_one", [](Array q, Array r, Array a) {
    parallel_for(q.size(), [&](Index i) {
      q[i] = a[i] / -1;
      r[i] = a[i] % -1;
    });
  });
  auto run2 = [](const tack::Kernel& k, const tack::Device& d, auto a, auto... s) {
    using T = typename decltype(a)::value_type;
    tack::Array q = zeros<T>(d, static_cast<std::int64_t>(a.size()));
    tack::Array r = zeros<T>(d, static_cast<std::int64_t>(a.size()));
    k(q, r, d.from_host(a), s...);
    std::vector<T> out = q.template to_host<T>();
    for (T x : r.template to_host<T>()) out.push_back(x);
    return out;
  };
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const T mn = lowest<T>(), mx = highest<T>();
    std::vector<T> a = {T(0), T(1), mx, mn, T(7)};
    std::vector<T> zeros_(2 * a.size(), T(0));
    expect_exact(
        "a / 0, a % 0 + floordiv(a, 0) + floormod(a, 0)",
        [&](const tack::Device& d) { return run2(by_zero_literal, d, a); }, zeros_);
    expect_exact(
        "a / s, a % s with s = 0", [&](const tack::Device& d) { return run2(by_scalar, d, a, T(0)); }, zeros_);
    if constexpr (std::is_signed_v<T>) {
      // q = -a (wrapping: -MIN == MIN), r = 0.
      std::vector<T> want = {T(0), T(-1), T(-mx), mn, T(-7), 0, 0, 0, 0, 0};
      expect_exact(
          "a / -1, a % -1", [&](const tack::Device& d) { return run2(by_minus_one, d, a); }, want);
      expect_exact(
          "a / s, a % s with s = -1", [&](const tack::Device& d) { return run2(by_scalar, d, a, T(-1)); }, want);
    }
  });
}

TEST_P(IntegerDivision, FloorDivAndFloorModOnFloats) {
  auto fdk = floordiv_kernel(), fmk = floormod_kernel();
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    // Exactly representable rows, so the written results are exact in f32 and f64.
    std::vector<T> a = {7.5, -7.5, 7.5, -7.5, 6, 0.5, -0.75, 1e3, -3};
    std::vector<T> b = {2, 2, -2, -2, 3, 0.25, 0.5, 7, 4};
    std::vector<T> fq = {3, -4, -4, 3, 2, 2, -2, 142, -1};
    std::vector<T> fr = {1.5, 0.5, -0.5, -1.5, 0, 0, 0.25, 6, 1};
    RowText rows = rows_of(a, b);
    expect_exact(
        "floordiv(a, b)", [&](const tack::Device& d) { return run_binary<T>(fdk, d, a, b); }, fq, rows);
    expect_exact(
        "floormod(a, b)", [&](const tack::Device& d) { return run_binary<T>(fmk, d, a, b); }, fr, rows);
  });
}

}  // namespace
