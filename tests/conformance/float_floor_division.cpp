// floordiv and floormod on floats: Python's and NumPy's // and %, bit for bit.
// Both come from the exact fmod, not from a rounded a / b: 1.0 // 0.1 is 9 (0.1
// is a little more than a tenth), where floor(1.0 / 0.1) would be 10. The
// remainder takes the divisor's sign, a zero one too (-4.0 % 2.0 is +0.0); a
// zero quotient keeps the sign of a / b (-0.0 // 1.0 is -0.0); by zero the
// quotient is a / b and the remainder NaN. f32 is computed in f32, as NumPy's
// float32 floor_divide and remainder are. Every expected value below was
// printed by NumPy 2 (np.floor_divide, np.remainder on np.float32 / np.float64
// scalars), not by any part of Tack.
#include "conformance/backend_param.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(FloatFloorDivision);

template <class T>
struct Table {
  std::vector<T> a, b, quotient, remainder;
};

template <class T>
void row(Table<T>& t, T a, T b, T q, T r) {
  t.a.push_back(a), t.b.push_back(b), t.quotient.push_back(q), t.remainder.push_back(r);
}

// The rows both types share, where the results are exact in each.
template <class T>
Table<T> common_rows() {
  constexpr T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  Table<T> t;
  row<T>(t, -4, 2, -2, 0);  // +0.0: the divisor's sign
  row<T>(t, -1.5, 2, -1, 0.5);
  row<T>(t, 5, -3, -2, -1);
  row<T>(t, -0.0, 1, -0.0, 0);  // a zero quotient takes the sign of a / b
  row<T>(t, 0, -1, -0.0, -0.0);
  row<T>(t, 7.5, 2, 3, 1.5);
  row<T>(t, -7.5, 2, -4, 0.5);
  row<T>(t, 7.5, -2, -4, -0.5);
  row<T>(t, -7.5, -2, 3, -1.5);
  row<T>(t, 2, 3, 0, 2);
  row<T>(t, -2, 3, -1, 1);
  row<T>(t, 1, 0, inf, nan);  // by zero: a / b, and fmod's NaN
  row<T>(t, -1, 0, -inf, nan);
  row<T>(t, 0, 0, nan, nan);
  row<T>(t, 1, -0.0, -inf, nan);
  row<T>(t, -1, inf, -1, inf);
  row<T>(t, 1, inf, 0, 1);
  row<T>(t, inf, 1, nan, nan);
  row<T>(t, nan, 1, nan, nan);
  row<T>(t, 1, nan, nan, nan);
  return t;
}

Table<float> f32_rows() {
  Table<float> t = common_rows<float>();
  row<float>(t, 1, 0.1f, 9, 0x1.999996p-4f);
  row<float>(t, 0.7f, 0.1f, 6, 0x1.999994p-4f);
  row<float>(t, -0.7f, 0.1f, -7, 0x1.8p-26f);
  // (a - fmod(a, b)) / b rounds to just off an integer; the quotient snaps back to it.
  row<float>(t, -0x1.023b22p+6f, -0x1.333334p-2f, 215, -0x1.d90aap-5f);
  row<float>(t, -0x1.4fbb24p+2f, 0x1.99999ap-4f, -53, 0x1.bc07c4p-5f);
  row<float>(t, 0x1p-149f, 1, 0, 0x1p-149f);  // denormals
  row<float>(t, -0x1p-149f, 1, -1, 1);
  row<float>(t, 0x1.fffffep127f, 0x1p-149f, std::numeric_limits<float>::infinity(), 0);
  return t;
}

Table<double> f64_rows() {
  Table<double> t = common_rows<double>();
  row<double>(t, 1, 0.1, 9, 0x1.9999999999996p-4);
  row<double>(t, 0.7, 0.1, 6, 0x1.9999999999994p-4);
  row<double>(t, -0.7, 0.1, -7, 0x1.8p-54);
  row<double>(t, 0x1.17b491f8c2ed8p+4, 0x1.199999999999ap+0, 15, 0x1.f6923f185daf4p-1);
  row<double>(t, -0x1.449f9ce6d0680p+4, 0x1.999999999999ap-4, -203, 0x1.697f2fe3268f0p-7);
  row<double>(t, 0x1p-1074, 1, 0, 0x1p-1074);
  row<double>(t, -0x1p-1074, 1, -1, 1);
  row<double>(t, 1e300, 1e-300, std::numeric_limits<double>::infinity(), 0x1.4f722a6f79f9cp-998);
  return t;
}

template <class T>
Table<T> rows() {
  if constexpr (std::is_same_v<T, float>)
    return f32_rows();
  else
    return f64_rows();
}

TEST_P(FloatFloorDivision, NumPysResults) {
  auto fdk = tack::kernel("floordiv", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = floordiv(a[i], b[i]); });
  });
  auto fmk = tack::kernel("floormod", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = floormod(a[i], b[i]); });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    Table<T> t = rows<T>();
    RowText r = rows_of(t.a, t.b);
    expect_exact(
        "floordiv(a, b)", [&](const tack::Device& d) { return run_binary<T>(fdk, d, t.a, t.b); }, t.quotient, r);
    expect_exact(
        "floormod(a, b)", [&](const tack::Device& d) { return run_binary<T>(fmk, d, t.a, t.b); }, t.remainder, r);
  });
}

// The same operations on constants: simplify folds them with the interpreter's arithmetic, which must
// give the same bits as the run-time code of every backend.
TEST_P(FloatFloorDivision, FoldedConstantsAgree) {
  auto k = tack::kernel("folded_floor", [](Array q, Array r) {
    parallel_for(q.size(), [&](Index i) {
      if_(i == 0, [&] {
        q[0] = floordiv(Value(1.0), 0.1);
        r[0] = floormod(Value(1.0), 0.1);
        q[1] = floordiv(Value(-0.0), 1.0);
        r[1] = floormod(Value(-4.0), 2.0);
        q[2] = floordiv(Value(0x1.17b491f8c2ed8p+4), 0x1.199999999999ap+0);  // snapped
        r[2] = floormod(Value(6.0), -3.0);
      });
    });
  });
  if (!has_dtype<double>()) return;
  expect_exact(
      "floordiv and floormod of literals",
      [&](const tack::Device& d) {
        tack::Array q = zeros<double>(d, 3), r = zeros<double>(d, 3);
        k(q, r);
        std::vector<double> out = q.to_host<double>();
        for (double x : r.to_host<double>()) out.push_back(x);
        return out;
      },
      std::vector<double>{9, -0.0, 15, 0x1.9999999999996p-4, 0, -0.0});
}

}  // namespace
