// A texture in the CUDA texture hardware (reference: Textures, CUDA row): a 3D
// CUDA array of one 32-bit float channel and a texture object over it with
// linear filtering, clamp addressing on all three axes and normalized
// coordinates. Built eagerly and updated in place (upload), so the object a
// kernel receives stays valid for the texture's life.
//
// Axes: Width is the array's fastest-varying index (texel (x, y, z) at
// (z * height + y) * width + x), so Width, Height, Depth = shape[0], shape[1],
// shape[2], and the generated tex3D(object, x, y, z) reads u along the width,
// as the software path does (codegen::CFamilyCodeGen's tack_texture_sample_hw).
#pragma once

#include "backends/cuda/cuda_context.hpp"
#include "runtime/devices/backend.hpp"

#include <array>
#include <cstdint>
#include <memory>

namespace tack::backends::cuda {
using namespace tack::runtime;

class TextureImage3D final : public TextureImage {
 public:
  // shape is {width, height, depth}, every extent positive. Throws InvalidArgument for an extent beyond the
  // device's 3D texture limits, BackendError when the driver refuses the array or the object.
  TextureImage3D(std::shared_ptr<Context> context, const std::array<std::int64_t, 3>& shape);
  // Destroys the texture object and the array once the context's queued work is done; errors are ignored
  // (the driver may be torn down at exit).
  ~TextureImage3D() override;
  TextureImage3D(const TextureImage3D&) = delete;
  TextureImage3D& operator=(const TextureImage3D&) = delete;

  // Copies the f32 elements of `source`, a cuda array of width * height * depth elements, into the image:
  // a device-to-array copy queued on the context's stream, in order with the launches.
  void upload(const ArrayStorage& source) override;

  // The texture object, which a launch passes by value (8 bytes) for the kernel's texture parameter.
  drivers::cu::CUtexObject object() const { return object_; }
  const std::array<std::int64_t, 3>& shape() const { return shape_; }

 private:
  std::shared_ptr<Context> context_;  // the context outlives its images
  std::array<std::int64_t, 3> shape_{};
  drivers::cu::CUarray array_ = nullptr;
  drivers::cu::CUtexObject object_ = 0;
};

}  // namespace tack::backends::cuda
