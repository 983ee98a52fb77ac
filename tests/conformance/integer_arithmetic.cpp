// DESIGN §4, integer + - *: they wrap modulo 2^bits in the operands' dtype, for
// every integer dtype (MAX + 1 == MIN, MIN - 1 == MAX, MIN * -1 == MIN); unary
// minus and abs wrap the same way (-MIN == MIN).
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(IntegerArithmetic);

// Host wrapping arithmetic: computed in u64, then converted to T modulo 2^bits (C++20).
template <class T>
T wadd(T a, T b) {
  return static_cast<T>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
template <class T>
T wsub(T a, T b) {
  return static_cast<T>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
template <class T>
T wmul(T a, T b) {
  return static_cast<T>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
template <class T>
T m1() {
  return static_cast<T>(-1);
}  // -1, or MAX for unsigned types

// A spread of values: the extremes, their neighbours, small numbers and bit patterns.
template <class T>
std::vector<T> sample_values() {
  const T mn = lowest<T>(), mx = highest<T>();
  return {T(0),
          T(1),
          T(2),
          T(3),
          T(7),
          mx,
          T(mx - 1),
          mn,
          T(mn + 1),
          m1<T>(),
          static_cast<T>(-2),
          static_cast<T>(0x5555555555555555ull),
          static_cast<T>(0xA5A5A5A5A5A5A5A5ull),
          static_cast<T>(mx / 3)};
}

// Every (a, b) pair of the sample values, as two columns.
template <class T>
void all_pairs(std::vector<T>& a, std::vector<T>& b) {
  auto v = sample_values<T>();
  for (T x : v)
    for (T y : v) a.push_back(x), b.push_back(y);
}

tack::Kernel add_kernel() {
  return tack::kernel(
      "int_add", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] + b[i]; }); });
}
tack::Kernel sub_kernel() {
  return tack::kernel(
      "int_sub", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] - b[i]; }); });
}
tack::Kernel mul_kernel() {
  return tack::kernel(
      "int_mul", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] * b[i]; }); });
}

// The named edge rows, with their results written out.
TEST_P(IntegerArithmetic, AddSubMulWrapAtTheEdges) {
  auto add = add_kernel(), sub = sub_kernel(), mul = mul_kernel();
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const T mn = lowest<T>(), mx = highest<T>();
    {
      std::vector<T> a = {mx, mx, mn, T(2), m1<T>(), T(mx - 1)};
      std::vector<T> b = {T(1), mx, mn, T(3), T(1), T(2)};
      // MAX + MAX is 2 * MAX, which is -2 modulo 2^bits for signed and unsigned alike.
      std::vector<T> want = {mn, static_cast<T>(-2), T(0), T(5), T(0), mn};
      expect_exact(
          "a + b", [&](const tack::Device& d) { return run_binary<T>(add, d, a, b); }, want,
          rows_from({"MAX + 1", "MAX + MAX", "MIN + MIN", "2 + 3", "-1 + 1", "(MAX - 1) + 2"}));
    }
    {
      std::vector<T> a = {mn, T(0), T(5), mx, mn, m1<T>()};
      std::vector<T> b = {T(1), T(1), T(7), m1<T>(), mx, mn};
      std::vector<T> want = {mx, m1<T>(), static_cast<T>(-2), wsub(mx, m1<T>()), T(1), mx};
      // Hand-checked: MAX - (-1) is MIN for signed types; for unsigned MAX - MAX is 0.
      if constexpr (std::is_signed_v<T>)
        EXPECT_EQ(want[3], mn);
      else
        EXPECT_EQ(want[3], T(0));
      expect_exact(
          "a - b", [&](const tack::Device& d) { return run_binary<T>(sub, d, a, b); }, want,
          rows_from({"MIN - 1", "0 - 1", "5 - 7", "MAX - (-1)", "MIN - MAX", "-1 - MIN"}));
    }
    {
      std::vector<T> a = {mn, mx, mx, m1<T>(), mn, T(3), T(mx / 2 + 1)};
      std::vector<T> b = {m1<T>(), T(2), mx, m1<T>(), mn, T(5), T(2)};
      // MAX * MAX = 2^(2w-2) - 2^w + 1 (signed) or (2^w - 1)^2 (unsigned): both 1 modulo 2^w.
      std::vector<T> want = {mn, static_cast<T>(-2), T(1), T(1), T(0), T(15), std::is_signed_v<T> ? mn : T(0)};
      expect_exact(
          "a * b", [&](const tack::Device& d) { return run_binary<T>(mul, d, a, b); }, want,
          rows_from({"MIN * -1", "MAX * 2", "MAX * MAX", "-1 * -1", "MIN * MIN", "3 * 5", "(MAX / 2 + 1) * 2"}));
    }
  });
}

// Every pair of a spread of values, against host arithmetic done in u64.
TEST_P(IntegerArithmetic, AddSubMulWrapForAllPairs) {
  auto add = add_kernel(), sub = sub_kernel(), mul = mul_kernel();
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    std::vector<T> a, b;
    all_pairs(a, b);
    std::vector<T> sum, diff, prod;
    for (std::size_t i = 0; i < a.size(); ++i) {
      sum.push_back(wadd(a[i], b[i]));
      diff.push_back(wsub(a[i], b[i]));
      prod.push_back(wmul(a[i], b[i]));
    }
    expect_exact(
        "a + b", [&](const tack::Device& d) { return run_binary<T>(add, d, a, b); }, sum, rows_of(a, b));
    expect_exact(
        "a - b", [&](const tack::Device& d) { return run_binary<T>(sub, d, a, b); }, diff, rows_of(a, b));
    expect_exact(
        "a * b", [&](const tack::Device& d) { return run_binary<T>(mul, d, a, b); }, prod, rows_of(a, b));
  });
}

TEST_P(IntegerArithmetic, NegationAndAbsWrap) {
  auto neg =
      tack::kernel("int_neg", [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = -a[i]; }); });
  auto absk = tack::kernel("int_abs",
                           [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = abs(a[i]); }); });
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const T mn = lowest<T>(), mx = highest<T>();
    std::vector<T> a = {mn, mx, T(0), T(1), T(5), m1<T>()};
    // -MIN == MIN; -MAX == MIN + 1 (for unsigned: -(2^w - 1) == 1); -(-1) == 1.
    std::vector<T> want_neg = {mn, T(mn + 1), T(0), m1<T>(), static_cast<T>(-5), T(1)};
    expect_exact(
        "-a", [&](const tack::Device& d) { return run_unary<T>(neg, d, a); }, want_neg,
        rows_from({"-MIN", "-MAX", "-0", "-1", "-5", "-(-1)"}));
    // abs(MIN) wraps to MIN; abs of an unsigned value is the value.
    std::vector<T> want_abs = std::is_signed_v<T> ? std::vector<T>{mn, mx, T(0), T(1), T(5), T(1)} : a;
    expect_exact(
        "abs(a)", [&](const tack::Device& d) { return run_unary<T>(absk, d, a); }, want_abs,
        rows_from({"abs(MIN)", "abs(MAX)", "abs(0)", "abs(1)", "abs(5)", "abs(-1)"}));
  });
}

// Compound assignment to an element and to a Var wraps in the element's dtype too.
TEST_P(IntegerArithmetic, CompoundAssignmentWraps) {
  auto k = tack::kernel("int_compound", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) {
      Var v = a[i];
      v += a[i];  // 2a
      v *= a[i];  // 2a^2
      v -= 1;     // 2a^2 - 1
      out[i] = a[i];
      out[i] += v;  // 2a^2 + a - 1
    });
  });
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    std::vector<T> a = sample_values<T>();
    std::vector<T> want;
    for (T x : a) want.push_back(wsub(wadd(wmul(wadd(x, x), x), x), T(1)));
    expect_exact(
        "v = a; v += a; v *= a; v -= 1; out = a; out += v",
        [&](const tack::Device& d) { return run_unary<T>(k, d, a); }, want, rows_of(a));
  });
}

}  // namespace
