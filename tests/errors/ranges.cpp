// Launch ranges: an empty range launches nothing; negative and overflowing
// ranges are refused.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <cstdint>

using namespace tack::lang;

namespace {

auto fill_n = tack::kernel("fill_n", [](Array y, Scalar n) { parallel_for(n, [&](Index i) { y[i] = 7; }); });

TEST(Ranges, EmptyRangeLaunchesNothing) {
  auto y = tack::device("interp").from_host(std::vector<float>{1, 2, 3});
  // An out-of-range store would raise on interp: with n == 0 nothing may run.
  auto oob = tack::kernel("oob", [](Array y, Scalar n) { parallel_for(n, [&](Index i) { y[i + 100] = 7; }); });
  oob(y, 0);
  fill_n(y, 0);
  EXPECT_EQ(y.to_host<float>(), (std::vector<float>{1, 2, 3}));
}

TEST(Ranges, NegativeRange) {
  auto y = tack::device("interp").zeros(tack::DType::F32, {3});
  EXPECT_TACK_ERROR(fill_n(y, -5), tack::InvalidArgument, "kernel 'fill_n'", "negative (-5)");
}

TEST(Ranges, OverflowingNdRange) {
  auto k = tack::kernel("huge", [](Array y, Scalar a, Scalar b) {
    parallel_for({a, b}, [&](Index i, Index j) { y[0] = 1; });
  });
  auto y = tack::device("interp").zeros(tack::DType::F32, {1});
  EXPECT_TACK_ERROR(k(y, std::int64_t{1} << 40, std::int64_t{1} << 40), tack::InvalidArgument, "overflows 64 bits");
}

TEST(Ranges, NegativeGroupCount) {
  auto k = tack::kernel("groups", [](Array y, Scalar n) { workgroup_for(n, [&](Group g) { y[0] = 1; }); });
  auto y = tack::device("interp").zeros(tack::DType::F32, {1});
  EXPECT_TACK_ERROR(k(y, -1), tack::InvalidArgument, "number of groups is negative");
}

TEST(Ranges, FloatRangeIsATypeError) {
  auto k = tack::kernel("float_range", [](Array y, Scalar n) { parallel_for(n, [&](Index i) { y[i] = 1; }); });
  auto y = tack::device("interp").zeros(tack::DType::F32, {1});
  EXPECT_TACK_ERROR(k(y, 2.5f), tack::TypeError, "must be an integer");
}

}  // namespace
