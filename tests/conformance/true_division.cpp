// true_div(a, b): Python's and NumPy's `/`. A float operand type divides in that
// type (f32 / a weak int stays f32); integers and bool divide in f64 (i32 / i32,
// the i64 index / 2, u8 / 3), and by zero give IEEE's ±inf and NaN, as NumPy's
// float division does. The expected values are NumPy's, written out here; the
// f64 output arrays show which type the quotient was computed in (an f32
// quotient of 1 / 3 widens to 0x1.555556p-2, not 0x1.5555555555555p-2).
#include "conformance/backend_param.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(TrueDivision);

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

tack::Kernel arrays_kernel() {
  return tack::kernel("true_div_arrays", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = true_div(a[i], b[i]); });
  });
}

TEST_P(TrueDivision, IntegerArraysDivideInF64) {
  if (!has_dtype<double>()) return;
  auto k = arrays_kernel();
  std::vector<std::int32_t> a = {1, 7, -7, 2, 1, -1, 0, 2147483647, -2147483648};
  std::vector<std::int32_t> b = {3, 2, 2, -4, 0, 0, 0, 3, -1};
  // np.array(a, np.int32) / np.array(b, np.int32)
  std::vector<double> want = {0x1.5555555555555p-2,  3.5,         -3.5, -0.5, kInf, -kInf, kNaN,
                              0x1.55555552aaaabp+29, 2147483648.0};
  expect_exact(
      "i32 / i32", [&](const tack::Device& d) { return run_binary<double>(k, d, a, b); }, want, rows_of(a, b));
}

TEST_P(TrueDivision, I64ValuesRoundToF64First) {
  if (!has_dtype<double>() || !has_dtype<std::int64_t>()) return;
  auto k = arrays_kernel();
  // 2^53 + 1 is not an f64: NumPy converts each operand to f64 (to 2^53), then divides. 2^24 + 1 is an
  // f64 but not an f32.
  std::vector<std::int64_t> a = {9007199254740993, -9007199254740993, 10, 16777217};
  std::vector<std::int64_t> b = {1, 2, 4, 1};
  std::vector<double> want = {9007199254740992.0, -4503599627370496.0, 2.5, 16777217.0};
  expect_exact(
      "i64 / i64", [&](const tack::Device& d) { return run_binary<double>(k, d, a, b); }, want, rows_of(a, b));
}

TEST_P(TrueDivision, TheIndexOverAWeakIntIsF64) {
  if (!has_dtype<double>()) return;
  auto k = tack::kernel("index_over_three",
                        [](Array out) { parallel_for(out.size(), [&](Index i) { out[i] = true_div(i, 3); }); });
  // np.arange(4, dtype=np.int64) / 3
  std::vector<double> want = {0.0, 0x1.5555555555555p-2, 0x1.5555555555555p-1, 1.0};
  expect_exact(
      "i / 3",
      [&](const tack::Device& d) {
        tack::Array out = zeros<double>(d, 4);
        k(out);
        return out.to_host<double>();
      },
      want);
}

TEST_P(TrueDivision, U8ArrayOverAWeakIntIsF64) {
  if (!has_dtype<double>()) return;
  auto k = tack::kernel("u8_over_three", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) { out[i] = true_div(a[i], 3); });
  });
  std::vector<std::uint8_t> a = {0, 1, 2, 255};
  // np.array(a, np.uint8) / 3
  std::vector<double> want = {0.0, 0x1.5555555555555p-2, 0x1.5555555555555p-1, 85.0};
  expect_exact(
      "u8 / 3", [&](const tack::Device& d) { return run_unary<double>(k, d, a); }, want, rows_of(a));
}

TEST_P(TrueDivision, F32StaysF32) {
  if (!has_dtype<double>()) return;
  auto arrays = arrays_kernel();
  auto by_literal = tack::kernel("f32_over_three", [](Array out, Array x) {
    parallel_for(out.size(), [&](Index i) { out[i] = true_div(x[i], 3); });
  });
  std::vector<float> x = {1.0f, 2.0f, -1.0f, 0.0f};
  std::vector<float> y = {3.0f, 3.0f, 0.0f, 0.0f};
  // np.float32 quotients, widened to f64 by the store: np.float32(1) / np.float32(3) is 0x1.555556p-2.
  std::vector<double> want = {0x1.555556p-2, 0x1.555556p-1, -kInf, kNaN};
  expect_exact(
      "f32 / f32", [&](const tack::Device& d) { return run_binary<double>(arrays, d, x, y); }, want, rows_of(x, y));
  // np.array(x, np.float32) / 3 stays float32 (NEP 50: the Python int is weak).
  std::vector<double> want_literal = {0x1.555556p-2, 0x1.555556p-1, -0x1.555556p-2, 0.0};
  expect_exact(
      "f32 / 3", [&](const tack::Device& d) { return run_unary<double>(by_literal, d, x); }, want_literal, rows_of(x));
}

TEST_P(TrueDivision, F64DividesAsDiv) {
  if (!has_dtype<double>()) return;
  auto k = arrays_kernel();
  std::vector<double> a = {1.0, -0.0, 1.0};
  std::vector<double> b = {3.0, 5.0, -0.0};
  std::vector<double> want = {0x1.5555555555555p-2, -0.0, -kInf};
  expect_exact(
      "f64 / f64", [&](const tack::Device& d) { return run_binary<double>(k, d, a, b); }, want, rows_of(a, b));
}

}  // namespace
