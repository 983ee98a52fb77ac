// Host-side array errors: wrong buffer sizes, bad shapes, out-of-range reads,
// reading as the wrong type, reductions of empty arrays.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <cstdint>
#include <vector>

namespace {

TEST(HostBuffers, WrongSizeForShape) {
  std::vector<float> v(10);
  EXPECT_TACK_ERROR(tack::device("interp").from_host(v, {3, 3}), tack::InvalidArgument,
                    "the host buffer holds 10 elements but shape {3, 3} needs 9");
}

TEST(HostBuffers, NegativeExtent) {
  EXPECT_TACK_ERROR(tack::device("interp").zeros(tack::DType::F32, {4, -2}), tack::InvalidArgument,
                    "negative extent in shape {4, -2}");
}

TEST(HostBuffers, OverflowingShape) {
  std::int64_t big = std::int64_t{1} << 40;
  EXPECT_TACK_ERROR(tack::device("interp").zeros(tack::DType::F32, {big, big}), tack::InvalidArgument,
                    "overflows 64 bits");
  EXPECT_TACK_ERROR(tack::device("interp").zeros(tack::DType::F64, {std::int64_t{1} << 61}), tack::InvalidArgument,
                    "too large");
}

TEST(HostBuffers, TooManyDimensions) {
  EXPECT_TACK_ERROR(tack::device("interp").zeros(tack::DType::F32, {1, 1, 1, 1, 1}), tack::InvalidArgument,
                    "1 to 4 dimensions");
}

TEST(HostBuffers, ABoolArrayReadsAsBoolOrItsBytesOnly) {
  tack::Array a = tack::device("interp").zeros(tack::DType::Bool, {4});
  EXPECT_EQ(a.to_host<std::uint8_t>(), (std::vector<std::uint8_t>{0, 0, 0, 0}));
  EXPECT_TACK_ERROR(a.to_host<std::int8_t>(), tack::TypeError, "reading a bool array as i8",
                    "ask for the array's own dtype (or u8, its bytes)");
  EXPECT_TACK_ERROR(a.to_host_async<float>(), tack::TypeError, "reading a bool array as f32");
  tack::Array u = tack::device("interp").zeros(tack::DType::U8, {4});
  EXPECT_TACK_ERROR(u.read_range<std::int8_t>(0, 1), tack::TypeError, "reading a u8 array as i8");
}

TEST(HostBuffers, OutOfRangeRead) {
  auto a = tack::device("interp").from_host(std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_TACK_ERROR(a.read_range<int>(5, 10), tack::IndexError, "read_range(5, 10)", "array of 8 elements");
  EXPECT_TACK_ERROR(a.read_range<int>(-1, 2), tack::IndexError, "read_range(-1, 2)");
  EXPECT_EQ(a.read_range<int>(6, 2), (std::vector<int>{7, 8}));
}

TEST(HostBuffers, ReadAsTheWrongType) {
  auto a = tack::device("interp").from_host(std::vector<int>{1, 2});
  EXPECT_TACK_ERROR(a.to_host<float>(), tack::TypeError, "reading a i32 array as f32");
}

TEST(HostBuffers, EmptyReductions) {
  auto a = tack::device("interp").zeros(tack::DType::F32, {0});
  EXPECT_EQ(a.sum<float>(), 0.0f);
  EXPECT_TACK_ERROR(a.min<float>(), tack::InvalidArgument, "min() of an empty array");
  EXPECT_TACK_ERROR(a.max<float>(), tack::InvalidArgument, "max() of an empty array");
}

TEST(HostBuffers, EmptyArrayHandle) {
  tack::Array a;
  EXPECT_TACK_ERROR(a.size(), tack::InvalidArgument, "empty tack::Array");
  EXPECT_TACK_ERROR(a.to_host<float>(), tack::InvalidArgument, "empty tack::Array");
}

TEST(HostBuffers, FillConvertsAsCast) {
  auto a = tack::device("interp").zeros(tack::DType::U8, {3});
  a.fill(300);
  EXPECT_EQ(a.to_host<std::uint8_t>(), (std::vector<std::uint8_t>{44, 44, 44}));
  a.fill(-1.5);
  EXPECT_EQ(a.to_host<std::uint8_t>(), (std::vector<std::uint8_t>{0, 0, 0}));
}

}  // namespace
