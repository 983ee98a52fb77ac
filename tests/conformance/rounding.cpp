// DESIGN §4, round: half to even (2.5 -> 2, -2.5 -> -2, 3.5 -> 4, 0.5 -> 0);
// floor, ceil and trunc on the same values; signs of zero kept, infinities and
// NaN passed through, values too large to have a fraction unchanged.
#include "conformance/backend_param.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Rounding);

template <class T>
struct Table {
  std::vector<T> x, round, floor, ceil, trunc;
};

// The values, each row's four results written out.
template <class T>
Table<T> table() {
  using L = std::numeric_limits<T>;
  const T inf = L::infinity(), nan = L::quiet_NaN();
  // The largest value below 0.5: round() gives 0 (floor(x + 0.5) would give 1).
  const T below_half = std::nextafter(T(0.5), T(0));
  // 2^p + 1 for the dtype's precision p (2^23 + 1 in f32, 2^52 + 1 in f64): an
  // integer where x + 0.5 is not representable.
  const T big_odd = std::is_same_v<T, float> ? T(8388609.0f) : T(4503599627370497.0);
  Table<T> t;
  // clang-format off
  t.x     = {T(2.5), T(-2.5), T(3.5), T(0.5), T(-0.5), T(1.5), T(-1.5), T(2.4), T(2.6), T(-2.6), T(5.5), T(-3.5),
             below_half, big_odd, T(-0.0), T(0), inf, -inf, nan, T(1e30), T(-0.25), T(0.75), L::denorm_min()};
  t.round = {T(2), T(-2), T(4), T(0), T(-0.0), T(2), T(-2), T(2), T(3), T(-3), T(6), T(-4),
             T(0), big_odd, T(-0.0), T(0), inf, -inf, nan, T(1e30), T(-0.0), T(1), T(0)};
  t.floor = {T(2), T(-3), T(3), T(0), T(-1), T(1), T(-2), T(2), T(2), T(-3), T(5), T(-4),
             T(0), big_odd, T(-0.0), T(0), inf, -inf, nan, T(1e30), T(-1), T(0), T(0)};
  t.ceil  = {T(3), T(-2), T(4), T(1), T(-0.0), T(2), T(-1), T(3), T(3), T(-2), T(6), T(-3),
             T(1), big_odd, T(-0.0), T(0), inf, -inf, nan, T(1e30), T(-0.0), T(1), T(1)};
  t.trunc = {T(2), T(-2), T(3), T(0), T(-0.0), T(1), T(-1), T(2), T(2), T(-2), T(5), T(-3),
             T(0), big_odd, T(-0.0), T(0), inf, -inf, nan, T(1e30), T(-0.0), T(0), T(0)};
  // clang-format on
  return t;
}

TEST_P(Rounding, RoundFloorCeilTrunc) {
  auto rk = tack::kernel("round",
                         [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = round(a[i]); }); });
  auto fk = tack::kernel("floor",
                         [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = floor(a[i]); }); });
  auto ck =
      tack::kernel("ceil", [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = ceil(a[i]); }); });
  auto tk = tack::kernel("trunc",
                         [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = trunc(a[i]); }); });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    Table<T> t = table<T>();
    // The written table agrees with the host's IEEE operations (nearbyint rounds half to even).
    for (std::size_t i = 0; i < t.x.size(); ++i) {
      EXPECT_TRUE(same_value(std::nearbyint(t.x[i]), t.round[i])) << "round row " << i;
      EXPECT_TRUE(same_value(std::floor(t.x[i]), t.floor[i])) << "floor row " << i;
      EXPECT_TRUE(same_value(std::ceil(t.x[i]), t.ceil[i])) << "ceil row " << i;
      EXPECT_TRUE(same_value(std::trunc(t.x[i]), t.trunc[i])) << "trunc row " << i;
    }
    RowText rows = rows_of(t.x);
    expect_exact(
        "round(x)", [&](const tack::Device& d) { return run_unary<T>(rk, d, t.x); }, t.round, rows);
    expect_exact(
        "floor(x)", [&](const tack::Device& d) { return run_unary<T>(fk, d, t.x); }, t.floor, rows);
    expect_exact(
        "ceil(x)", [&](const tack::Device& d) { return run_unary<T>(ck, d, t.x); }, t.ceil, rows);
    expect_exact(
        "trunc(x)", [&](const tack::Device& d) { return run_unary<T>(tk, d, t.x); }, t.trunc, rows);
  });
}

// round() followed by a conversion: the usual way to get the nearest integer.
TEST_P(Rounding, RoundThenConvertToInt) {
  auto k = tack::kernel("round_to_int", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) { out[i] = cast<std::int32_t>(round(a[i])); });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    std::vector<T> x = {T(0.5), T(1.5), T(2.5), T(-0.5), T(-1.5), T(-2.5), T(1e10), T(-7.5)};
    std::vector<std::int32_t> want = {0, 2, 2, 0, -2, -2, 2147483647, -8};
    expect_exact(
        "cast<i32>(round(x))", [&](const tack::Device& d) { return run_unary<std::int32_t>(k, d, x); }, want,
        rows_of(x));
  });
}

}  // namespace
