// texture3d input checks: f32 only, and width * height * depth must match.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

namespace {

TEST(Textures, WrongDtype) {
  auto a = tack::device("interp").zeros(tack::DType::F64, {8});
  EXPECT_TACK_ERROR(tack::texture3d(a, {2, 2, 2}), tack::TypeError, "texture3d needs an f32 array", "got f64");
}

TEST(Textures, ShapeDoesNotMatch) {
  auto a = tack::device("interp").zeros(tack::DType::F32, {8});
  EXPECT_TACK_ERROR(tack::texture3d(a, {2, 2, 3}), tack::InvalidArgument, "{2, 2, 3}", "array of 8 elements");
}

TEST(Textures, NonPositiveExtent) {
  auto a = tack::device("interp").zeros(tack::DType::F32, {8});
  EXPECT_TACK_ERROR(tack::texture3d(a, {8, 1, 0}), tack::InvalidArgument, "positive extents");
}

TEST(Textures, TextureWhereAnArrayIsExpected) {
  using namespace tack::lang;
  auto k = tack::kernel("needs_array", [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = 1; }); });
  auto a = tack::device("interp").zeros(tack::DType::F32, {8});
  auto t = tack::texture3d(a, {2, 2, 2});
  EXPECT_TACK_ERROR(k(t), tack::TypeError, "the parameter is an Array, got a Texture");
}

}  // namespace
