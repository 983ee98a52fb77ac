// 3-D textures: an f32 snapshot of an array, sampled trilinearly by kernels.
#pragma once

#include <tack/array.hpp>

#include <array>
#include <cstdint>
#include <memory>

namespace tack {

namespace runtime {
struct TextureStorage;
}
namespace detail {
struct Access;
}

// Holds its own copy of the array, taken at creation and again at update();
// writes to the array in between do not reach it.
class Texture {
 public:
  Texture() = default;
  explicit Texture(std::shared_ptr<runtime::TextureStorage> s);
  // Copies the source array again.
  void update();
  std::array<std::int64_t, 3> shape() const;  // {width, height, depth}
  Device device() const;

 private:
  friend struct detail::Access;
  std::shared_ptr<runtime::TextureStorage> storage_;
};

// shape is {width, height, depth}; the array must be f32 with width*height*depth
// elements, texel (x, y, z) at flat index (z * height + y) * width + x.
Texture texture3d(const Array& array, std::array<std::int64_t, 3> shape);

}  // namespace tack
