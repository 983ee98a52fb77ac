// A texture in the HIP texture hardware (reference: Textures, HIP row): a 3D
// HIP array of one 32-bit float channel (hipMalloc3DArray) and a texture
// object over it with linear filtering, clamp addressing and normalized
// coordinates, as on CUDA. Built eagerly and updated in place, so the object a
// kernel receives stays valid for the texture's life. The backend makes one
// only where the device has image support and the shape fits its 3D limits
// (CDNA parts have no texture hardware; hipRTC refuses tex3D there).
//
// Axes as on CUDA: width is the array's fastest-varying index.
#pragma once

#include "backends/hip/hip_device.hpp"
#include "runtime/devices/backend.hpp"

#include <array>
#include <cstdint>
#include <memory>

namespace tack::backends::hip {
using namespace tack::runtime;

class TextureImage3D final : public TextureImage {
 public:
  // shape is {width, height, depth}, each within the device's 3D texture limits. Throws BackendError when the
  // runtime refuses the array or the object.
  TextureImage3D(std::shared_ptr<Device> device, const std::array<std::int64_t, 3>& shape);
  // Destroys the object and the array after the device's queued work; errors are ignored (the runtime may be
  // torn down at exit).
  ~TextureImage3D() override;
  TextureImage3D(const TextureImage3D&) = delete;
  TextureImage3D& operator=(const TextureImage3D&) = delete;

  // A device-to-array copy of `source` (a hip array of width * height * depth f32 elements), queued on the
  // device's stream in order with the launches.
  void upload(const ArrayStorage& source) override;

  // The texture object, which a launch passes by value (8 bytes) for the kernel's texture parameter.
  drivers::hip::hipTextureObject_t object() const { return object_; }

 private:
  std::shared_ptr<Device> device_;  // the device (and its stream) outlives its images
  std::array<std::int64_t, 3> shape_{};
  drivers::hip::hipArray_t array_ = nullptr;
  drivers::hip::hipTextureObject_t object_ = nullptr;
};

// Whether `shape` can live in `device`'s texture hardware: image support, and every extent within its limits.
bool fits_texture_hardware(const DeviceInfo& device, const std::array<std::int64_t, 3>& shape);

}  // namespace tack::backends::hip
